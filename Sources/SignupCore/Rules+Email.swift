/// Rules for email addresses.
extension Rule where Value == String {
    /// Fails with `tooLong` over 254 UTF-8 bytes, else with `invalid` unless the address
    /// follows the standard syntax (see ``EmailSyntax``), else with `domainInvalid` when its domain is
    /// not one IDNA allows (UTS #46, nontransitional): an `xn--` label that does not decode, a label
    /// over 63 bytes once encoded, a code point UTS #46 disallows.
    ///
    /// When libidn2 cannot be loaded the domain is not judged here: the store, which needs it for
    /// the account's key, refuses to store or look up such an address, with the reason.
    public static func email(
        message: String = Translation.english("Enter a valid email address, like name@example.com"),
        tooLongMessage: String = Translation.english("Use an email address of at most 254 bytes"),
        domainMessage: String = Translation.english("The part after @ is not a valid domain name")
    ) -> Rule {
        Rule(
            checks: [RuleCheck(reason: "invalid", label: Translation.english("a valid email address"))], referencedFields: [],
            appliesWhenEmpty: false, reasons: ["invalid", "tooLong"]
        ) { value, _ in
            guard let value, !value.isEmpty else { return [] }
            switch EmailSyntax.check(value) {
            case .valid:
                guard let at = value.lastIndex(of: "@") else { return [] }
                if case .invalid = IDNA.unicodeForm(ofDomain: String(value[value.index(after: at)...])) {
                    return [RuleFailure(reason: "domainInvalid", message: domainMessage)]
                }
                return []
            case .tooLong: return [RuleFailure(reason: "tooLong", message: tooLongMessage)]
            case .invalid: return [RuleFailure(reason: "invalid", message: message)]
            }
        }
    }
}
