/// The sign-up form: email, password and its confirmation, under a password policy. `signup`
/// is this configuration of ``Wizard``.
public enum SignupForm {
    /// The email field's key.
    public static let email = FieldKey<String>("email")
    /// The password field's key.
    public static let password = FieldKey<String>("password")
    /// The confirmation field's key.
    public static let confirm = FieldKey<String>("confirm")
    /// The first line of every `signup` conversation.
    public static let banner = Translation.english("Create your account (Ctrl-C to cancel)")
    /// Checks of the policy left out of the password's hint (a limit no one reaches by accident).
    static let unhinted: Set<String> = ["tooLong"]

    /// The three fields of a sign-up (email, password, confirmation) under `policy`, with strength from `estimator`. The password
    /// field's hint says the policy's requirements before it is first asked.
    public static func make(policy: PasswordPolicy = .standard, strength estimator: StrengthEstimator) -> Form {
        let passwordRules = policy.rules(strength: estimator, emailField: email)
        let emailRules: [Rule<String>] = [
            .required(message: Translation.english("Enter your email address")), .email(),
            .noInvisibleCharacters(message: Translation.english("Remove an invisible character: it would make this address look like another one")),
            .oneLookalikeScriptPerPart(), .noStackedMarks(),
            // Fullwidth and mathematical letters (`ａdmin`, `𝐚𝐝𝐦𝐢𝐧`) look like the plain ones.
            .noCompatibilityCharacters(message: Translation.english("Use plain letters: a fullwidth or styled letter makes this address look like another one")),
        ]
        let confirmRules: [Rule<String>] = [.required(message: Translation.english("Enter the password again")), .equals(password)]
        // A policy's messages are one table for the three fields: each takes what it can use.
        return Form(fields: [
            Field(
                email, label: Translation.english("Email"),
                rules: emailRules,
                messages: Field.messages(policy.messages, for: email, rules: emailRules),
                normalize: normalizeEmail
            ),
            Field(
                password, label: Translation.english("Password"),
                rules: passwordRules,
                isSecret: true, messages: Field.messages(policy.messages, for: password, rules: passwordRules),
                hint: Translation.english(
                    "Password requirements: {requirements}",
                    translated: ["requirements": Rule.requirements(of: passwordRules, leavingOut: unhinted)]
                ),
                normalize: normalizePassword
            ),
            Field(
                confirm, label: Translation.english("Confirm password"),
                rules: confirmRules,
                isSecret: true, dependsOn: [password], messages: Field.messages(policy.messages, for: confirm, rules: confirmRules),
                normalize: normalizePassword
            ),
        ])
    }

    /// The texts of `signup passwd`'s conversation for the account of `email` (shown as given: make it visible first).
    public static func passwordChangeTexts(email: String) -> WizardTexts {
        var texts = WizardTexts(banner: Translation.english("Change the password for {email} (Ctrl-C to cancel)", ["email": email]))
        texts.reviewQuestion = Translation.english("Change the password? [Y/n/e] ")
        texts.reviewHelp = Translation.english("Answer y to change the password, n to cancel, or e to change an answer.")
        texts.unavailable = { Translation.english("The password could not be changed: {reason}.", ["reason": $0]) }
        return texts
    }

    /// The error of a password change whose account is gone (deleted meanwhile).
    public static let emailUnknown = FieldError(field: email.name, code: "email.unknown", message: "No account has this email")

    /// The texts of `signup`'s conversation.
    public static var texts: WizardTexts {
        var texts = WizardTexts(banner: banner)
        texts.reviewQuestion = Translation.english("Create account? [Y/n/e] ")
        texts.reviewHelp = Translation.english("Answer y to create the account, n to cancel, or e to change an answer.")
        texts.unavailable = { Translation.english("The account could not be saved: {reason}.", ["reason": $0]) }
        return texts
    }

    /// The sign-up wizard over `form` (see ``make(policy:strength:)``): the strength shown after a
    /// password that passes every rule but those about strength, and at the review ("set (strong)").
    /// `checkedFields` are checked beyond their rules right after their answer (`signup` looks up
    /// whether the email is taken, so that nobody types a password for an account that exists).
    public static func wizard(
        form: Form,
        mode: WizardMode,
        strength estimator: StrengthEstimator,
        presets: [FieldPreset] = [],
        texts: WizardTexts = texts,
        checkedFields: [any FieldReference] = []
    ) -> Wizard<CreatedAccount> {
        Wizard(
            form: form, mode: mode, texts: texts, checkedFields: checkedFields, presets: presets,
            afterAnswer: { name, form in
                guard case password = name, let level = shownStrength(in: form, estimator: estimator) else { return [] }
                return [.strength(level)]
            },
            reviewValue: { name, form in
                name == password.name ? Translation.english("set ({level})", translated: ["level": strength(in: form, estimator: estimator).label]) : nil
            }
        )
    }

    /// What to store from a form that passed the gate: the email, the password and its strength.
    public static func submission(from form: Form, strength estimator: StrengthEstimator) -> Submission {
        Submission(
            email: form[email]?.value ?? "",
            password: Secret(form[password]?.value ?? ""),
            strength: strength(in: form, estimator: estimator)
        )
    }

    /// The error of a submit that found the email taken.
    public static let emailTaken = FieldError(field: email.name, code: "email.taken", message: Translation.english("An account with this email already exists"))

    /// The strength to show after a password: when it passes every rule but those about strength.
    static func shownStrength(in form: Form, estimator: StrengthEstimator) -> StrengthLevel? {
        let value = form[password]?.value ?? ""
        let errors = form.visibleErrors(for: password)
        guard !value.isEmpty, errors.allSatisfy({ PasswordPolicy.strengthReasons.contains($0.reason) }) else { return nil }
        return strength(in: form, estimator: estimator)
    }

    static func strength(in form: Form, estimator: StrengthEstimator) -> StrengthLevel {
        let value = form[password]?.value ?? ""
        return estimator.estimate(value, knownWords(inEmail: form[email]?.value ?? "")).level
    }

    /// Surrounding white space (tabs and spaces, not line breaks) trimmed, then Unicode NFC.
    @Sendable public static func normalizeEmail(_ text: String) -> String {
        UnicodeText.nfc(text.trimmingBlanks())
    }

    /// Unicode NFC; never trimmed or truncated. A password whose NFKC form differs is refused by
    /// its rules (`password.compatibilityCharacter`), so every accepted password is hashed as the
    /// NFC text, the same bytes people type into other software; NFD input is composed.
    @Sendable public static func normalizePassword(_ text: String) -> String {
        UnicodeText.nfc(text)
    }
}

/// What to store: the email as entered (trimmed, NFC) and the password (NFC, which its rules made equal to its NFKC form).
public struct Submission: Sendable, Equatable {
    /// The email as entered.
    public var email: String
    /// The password: prints as `<redacted>`.
    public var password: Secret
    /// Its strength, for the result.
    public var strength: StrengthLevel

    /// A submission of `email` and `password`.
    public init(email: String, password: Secret, strength: StrengthLevel) {
        self.email = email
        self.password = password
        self.strength = strength
    }

    /// What storing this submission created, under the id `id`.
    public func created(id: Int64) -> CreatedAccount {
        CreatedAccount(email: email, id: id, strength: strength)
    }
}

/// What a sign-up created: the account's email, its id in the store and the password's strength.
public struct CreatedAccount: Sendable, Equatable {
    /// The email as stored.
    public var email: String
    /// The account's id (0 in a dry run).
    public var id: Int64
    /// The password's strength.
    public var strength: StrengthLevel

    /// The result of a sign-up.
    public init(email: String, id: Int64, strength: StrengthLevel) {
        self.email = email
        self.id = id
        self.strength = strength
    }
}
