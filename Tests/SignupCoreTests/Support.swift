import SignupCore

/// A stand-in for zxcvbn: strength grows with length, "password" and "letmein" are common,
/// and a user word inside the password takes its length off the estimate.
let fakeEstimator = StrengthEstimator { password, userWords in
    let common = ["password", "letmein", "password1"].contains(password.lowercased())
    var bits = Double(password.count) * 4
    for word in userWords where !word.isEmpty && password.lowercased().contains(word.lowercased()) {
        bits -= Double(word.count) * 4
    }
    return StrengthEstimate(bits: common ? 2 : bits, isCommon: common)
}

let goodPassword = "Quartz-Lantern-58"

func codes(_ errors: [FieldError]) -> [String] { errors.map(\.code) }

func standardForm() -> Form { SignupForm.make(policy: .standard, strength: fakeEstimator) }

/// The sign-up form answered in full: alice@example.com and `password` twice.
func filledForm(password: String = goodPassword) -> Form {
    var form = standardForm()
    form.answer("email", with: "alice@example.com")
    form.answer("password", with: password)
    form.answer("confirm", with: password)
    return form
}
