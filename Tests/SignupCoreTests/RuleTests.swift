import SignupCore
import Testing

@Suite struct RuleTests {
    func reasons(_ rule: Rule<String>, _ value: String, _ context: RuleContext = RuleContext()) -> [String] {
        rule.validate(value, in: context).map(\.reason)
    }

    /// White space alone is empty to `required` (FormsKit, Django); anything else passes it.
    @Test func requiredFailsOnlyOnEmptyOrWhiteSpaceAlone() {
        #expect(reasons(.required(), "") == ["required"])
        #expect(reasons(.required(), " ") == ["required"])
        #expect(reasons(.required(), " x") == [])
        #expect(reasons(.required(allowingWhiteSpace: true), " ") == [])
    }

    @Test func otherRulesPassOnEmptySoOnlyRequiredReports() {
        let rules: [Rule<String>] = [.minLength(8), .containsDigit(), .containsUppercase(), .email(), .pattern("[a-z]+", .wholeMatch), .equals(K.x)]
        for rule in rules { #expect(rule.validate("", in: RuleContext(values: ["x": "abc"])).isEmpty) }
    }

    @Test func lengthsCountCharactersNotBytes() {
        #expect(reasons(.minLength(3), "éé") == ["tooShort"])
        #expect(reasons(.minLength(3), "éé👍🏽") == [])  // three Characters, eleven bytes
        #expect(reasons(.maxLength(2), "👍🏽👍🏽") == [])
        #expect(reasons(.maxLength(2), "abc") == ["tooLong"])
        #expect(Rule.minLength(8).validate("abc").first?.message == "Use at least 8 characters")
    }

    @Test func characterClassesAreUnicodeAware() {
        #expect(reasons(.containsDigit(), "abc٣") == [])  // Arabic-Indic three
        #expect(reasons(.containsDigit(), "abc") == ["needsDigit"])
        #expect(reasons(.containsUppercase(), "ébÉ") == [])
        #expect(reasons(.containsUppercase(), "ébé") == ["needsUppercase"])
        #expect(reasons(.containsLowercase(), "ÀB") == ["needsLowercase"])
        #expect(reasons(.containsLowercase(), "Àb") == [])
        #expect(reasons(.containsSymbol(), "Ab1 x") == ["needsSymbol"])
        #expect(reasons(.containsSymbol(), "Ab1€") == [])
    }

    @Test func controlCharactersAreRejected() {
        #expect(reasons(.noControlCharacters(), "a\tb") == ["invalidCharacter"])
        #expect(reasons(.noControlCharacters(), "a\u{1B}[Ab") == ["invalidCharacter"])
        #expect(reasons(.noControlCharacters(), "a b é") == [])
    }

    @Test func patternMatchesTheWholeValue() {
        let rule = Rule.pattern("[a-z]{3}[0-9]", .wholeMatch, message: "Three letters and a digit")
        #expect(reasons(rule, "abc1") == [])
        #expect(reasons(rule, "abc1x") == ["invalid"])
        #expect(rule.validate("x").first?.message == "Three letters and a digit")
    }

    @Test func customRulesAndMessageOverrides() {
        let rule = Rule.custom("notAdmin", message: "Pick another name") { value, _ in value != "admin" }
        #expect(reasons(rule, "admin") == ["notAdmin"])
        #expect(reasons(rule, "alice") == [])
        #expect(Rule.containsDigit().message("Need a number").validate("abc").first?.message == "Need a number")
    }

    @Test func equalsLooksAtTheOtherField() {
        let context = RuleContext(values: ["password": "Secret-1"])
        #expect(reasons(.equals(K.password), "Secret-1", context) == [])
        #expect(reasons(.equals(K.password), "secret-1", context) == ["mismatch"])
        #expect(Rule.equals(K.password).validate("x", in: context).first?.message == "Passwords do not match")
    }

    @Test func emailRuleReportsTooLongOrInvalid() {
        #expect(reasons(.email(), "alice@example.com") == [])
        #expect(reasons(.email(), "alice.example.com") == ["invalid"])
        #expect(reasons(.email(), String(repeating: "a", count: 64) + "@" + String(repeating: "b", count: 190) + ".com") == ["tooLong"])
        #expect(Rule.email().validate("x").first?.message == "Enter a valid email address, like name@example.com")
    }

    @Test func strengthUsesTheEmailLocalPartAsAKnownWord() {
        let rule = Rule.strength(atLeast: .reasonable, estimator: fakeEstimator, emailField: K.email)
        #expect(reasons(rule, "aliceliddell1", RuleContext(values: ["email": "x@example.com"])) == [])
        #expect(reasons(rule, "aliceliddell1", RuleContext(values: ["email": "aliceliddell@example.com"])) == ["tooWeak"])
    }

    @Test func containsEmailNeedsThreeCharactersAndIgnoresCase() {
        let rule = Rule.notContainingEmail(field: K.email)
        #expect(reasons(rule, "xxALICExx", RuleContext(values: ["email": "alice@example.com"])) == ["containsEmail"])
        #expect(reasons(rule, "xxalxx", RuleContext(values: ["email": "al@example.com"])) == [])
    }

    // Found by the FuzzPassword target (Fuzz/Regressions/FuzzPassword/nul-in-email-local-part):
    // Foundation's String.contains trapped on these and said "\0" contains "\0\0".
    @Test func containsEmailAndBlockedWordsHandleNulWithoutTrapping() {
        let email = RuleContext(values: ["email": "\0\0\0\0"])
        #expect(reasons(.notContainingEmail(field: K.email), "\0\0\088\u{FFFD}\0", email) == [])
        #expect(reasons(.notContainingEmail(field: K.email), "x\0", RuleContext(values: ["email": "\0\0\0@example.com"])) == [])
        #expect(reasons(.notContaining(words: ["\0\0"]), "a\0") == [])
        #expect(reasons(.notContaining(words: ["\0\0"]), "a\0\0") == ["blockedWord"])
    }

    @Test func blockedWordsAreNotNamedInTheMessage() {
        let failure = Rule.notContaining(words: ["acme"]).validate("MyACMEpass1").first
        #expect(failure?.reason == "blockedWord")
        #expect(failure?.message.lowercased().contains("acme") == false)
    }
}
