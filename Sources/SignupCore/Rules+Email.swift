/// Rules for email addresses.
extension Rule where Value == String {
    /// Fails with `tooLong` over 254 UTF-8 bytes, else with `invalid` unless the address
    /// follows SPEC 2's syntax (see ``EmailSyntax``).
    public static func email(
        message: String = Translation.english("Enter a valid email address, like name@example.com"),
        tooLongMessage: String = Translation.english("Use an email address of at most 254 bytes")
    ) -> Rule {
        Rule(
            checks: [RuleCheck(reason: "invalid", label: Translation.english("a valid email address"))], referencedFields: [],
            appliesWhenEmpty: false, reasons: ["invalid", "tooLong"]
        ) { value, _ in
            guard let value, !value.isEmpty else { return [] }
            switch EmailSyntax.check(value) {
            case .valid: return []
            case .tooLong: return [RuleFailure(reason: "tooLong", message: tooLongMessage)]
            case .invalid: return [RuleFailure(reason: "invalid", message: message)]
            }
        }
    }
}
