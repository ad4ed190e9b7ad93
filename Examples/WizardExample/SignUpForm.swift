import PasswordStrength
import WizardTerminal

// The form: a username, a password under the standard policy, its confirmation, an age. Each
// field is named by its key, declared once: a misspelt key does not compile.
enum Keys {
    static let username = FieldKey<String>("username")
    static let password = FieldKey<String>("password")
    static let confirm = FieldKey<String>("confirm")
    static let age = FieldKey<Int>("age")
}

let passwordRules = PasswordPolicy.standard.rules(strength: .zxcvbn)
let signUpForm = Form(fields: [
    Field(Keys.username, label: "Username",
          rules: [.required(message: "Pick a username"), .minLength(3),
                  .pattern("[a-z0-9_]+", .wholeMatch, message: "Use only a-z, 0-9 and _", label: "only a-z, 0-9 and _")],
          normalize: Field.trimmingWhiteSpace),
    Field(Keys.password, label: "Password", rules: passwordRules, isSecret: true,
          hint: "Password requirements: " + Rule.requirements(of: passwordRules, leavingOut: ["tooLong"])),
    Field(Keys.confirm, label: "Confirm password",
          rules: [.required(message: "Enter the password again"), .equals(Keys.password)],
          isSecret: true, dependsOn: [Keys.password]),
    Field(Keys.age, label: "Age", rules: [.required(message: "Enter your age"), .range(13...120)]),
])

/// The banner and the review's question and help, in this program's words.
let signUpTexts: WizardTexts = {
    var texts = WizardTexts(banner: "Create your account (Ctrl-C to cancel)")
    texts.reviewQuestion = "Sign up? [Y/n/e] "
    texts.reviewHelp = "Answer y to sign up, n to cancel, or e to change an answer."
    return texts
}()

/// After the password: a ✓/✗ line per check (not the length limit no one reaches), then its strength.
let passwordChecks: Wizard<String>.AfterAnswer = { name, form in
    guard name == Keys.password.name, let password = form.value(Keys.password), !password.isEmpty else { return [] }
    let checks = form.checklist(for: Keys.password, leavingOut: ["tooLong"])
    let level = StrengthEstimator.zxcvbn.estimate(password, [form.text(Keys.username)]).level
    return [.checklist(checks), .strength(level)]
}

/// The usernames already taken, asked as a sign-up page asks its server.
///
/// The one call checks the username right after it is answered: a taken one is said at once and
/// asked again, before the password. The submit checks again (two people may race for a name);
/// a Ctrl-C during a slow lookup cancels it. On any ending but a sign-up the one call prints the
/// errors and exits with the outcome's code (65 invalid, 66 input ended, 1 declined, 130 cancelled).
struct Usernames: Sendable {
    /// One a line of `--taken FILE`, or these.
    var taken: Set<String> = ["admin", "root", "taken"]
    /// How long each lookup takes (`--lookup-delay MS`): a slow availability service.
    var lookupDelay: Duration = .zero

    static let takenError = FieldError(field: Keys.username.name, code: "username.taken", message: "This username is taken")

    /// The check of the username right after its answer: the taken error, or none.
    func check(_ field: String, _ form: Form) async -> [FieldError] {
        if lookupDelay > .zero { try? await Task.sleep(for: lookupDelay) }
        if Task.isCancelled { return [] }
        return taken.contains(form.text(Keys.username)) ? [Self.takenError] : []
    }

    /// The submit: the username signed up, or the taken error back on its field.
    func signUp(_ form: Form) throws -> String {
        let username = form.text(Keys.username)
        guard !taken.contains(username) else { throw Self.takenError }
        return username
    }
}
