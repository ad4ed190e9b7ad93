import Foundation

/// The sign-up form: email, password and its confirmation, under a password policy.
public enum SignupForm {
    /// The email field's name.
    public static let email = "email"
    /// The password field's name.
    public static let password = "password"
    /// The confirmation field's name.
    public static let confirm = "confirm"

    /// The three fields of SPEC 2 under `policy`, with strength from `estimator`.
    public static func make(policy: PasswordPolicy = .standard, strength estimator: StrengthEstimator) -> Form {
        Form(fields: [
            Field(
                name: email, label: "Email",
                rules: [.required(message: "Enter your email address"), .email()],
                messages: policy.messages,
                normalize: normalizeEmail
            ),
            Field(
                name: password, label: "Password",
                rules: policy.rules(strength: estimator, emailField: email),
                isSecret: true, messages: policy.messages,
                normalize: normalizePassword
            ),
            Field(
                name: confirm, label: "Confirm password",
                rules: [.required(message: "Enter the password again"), .equals(field: password)],
                isSecret: true, dependsOn: [password], messages: policy.messages,
                normalize: normalizePassword
            ),
        ])
    }

    /// Surrounding white space trimmed, then Unicode NFC.
    @Sendable public static func normalizeEmail(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespaces).precomposedStringWithCanonicalMapping
    }

    /// Unicode NFKC; never trimmed or truncated.
    @Sendable public static func normalizePassword(_ text: String) -> String {
        text.precomposedStringWithCompatibilityMapping
    }
}
