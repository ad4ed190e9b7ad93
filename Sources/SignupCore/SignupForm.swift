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
                rules: [
                    .required(message: "Enter your email address"), .email(),
                    .noInvisibleCharacters(message: "Remove an invisible character: it would make this address look like another one"),
                ],
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

    /// Unicode NFC; never trimmed or truncated. A password whose NFKC form differs is refused by
    /// its rules (`password.compatibilityCharacter`), so every accepted password is hashed as the
    /// NFC text, the same bytes people type into other software; NFD input is composed.
    @Sendable public static func normalizePassword(_ text: String) -> String {
        text.precomposedStringWithCanonicalMapping
    }
}
