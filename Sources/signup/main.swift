import SignupCommand

runSignup()
