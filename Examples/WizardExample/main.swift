// wizard-example: the tutorials' sign-up form, built only on the library products (README.md beside
// this file). The form is in SignUpForm.swift, the command line (--taken FILE, --lookup-delay MS,
// --no-interactive) in Options.swift: main runs the form with one call and prints its answer.
import WizardTerminal

let options = Options.parse(CommandLine.arguments.dropFirst())
let username = await signUpForm.runOrExit(options.runner, texts: signUpTexts, afterAnswer: passwordChecks,
                                          checking: [Keys.username], check: options.usernames.check, submit: options.usernames.signUp)
printOrExit("Welcome, \(username)", options.runner)
