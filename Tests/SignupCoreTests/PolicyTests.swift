import Foundation
import SignupCore
import Testing

@Suite struct PolicyTests {
    func failures(_ policy: PasswordPolicy, _ password: String, email: String = "alice@example.com", estimator: StrengthEstimator = fakeEstimator) -> [String] {
        var form = SignupForm.make(policy: policy, strength: estimator)
        form.answer(K.email, line: email)
        form.answer(K.password, line: password)
        return codes(form.visibleErrors(for: K.password))
    }

    @Test func standard() {
        #expect(failures(.standard, goodPassword) == [])
        #expect(failures(.standard, "abcdefghij") == ["password.needsDigit", "password.needsUppercase"])
        #expect(failures(.standard, "") == ["password.required"])
        #expect(failures(.standard, String(repeating: "Ab1-", count: 257)) == ["password.tooLong"])
        #expect(failures(.standard, "Tab\there-Lantern1") == ["password.invalidCharacter"])
    }

    @Test func strict() {
        #expect(failures(.strict, "Quartz-Lantern-58") == [])
        #expect(failures(.strict, "QUARTZLANTERN") == ["password.needsLowercase", "password.needsDigit", "password.needsSymbol"])
        #expect(failures(.strict, "Quartz-Lan5") == ["password.tooShort"])
    }

    @Test func nist() {
        #expect(failures(.nist, "quartz lantern harbour") == [])  // no composition rules
        #expect(failures(.nist, "quartz lantern") == ["password.tooShort"])
        #expect(failures(.nist, "password") == ["password.tooShort", "password.common", "password.tooWeak"])
        #expect(failures(.nist, "aliceliddell-lantern-harbour", email: "aliceliddell@example.com") == ["password.containsEmail"])
    }

    @Test func policyFileWithEveryKey() throws {
        let json = """
            {"name": "acme", "base": "strict", "minLength": 10, "maxLength": 64, "require": ["digit"],
             "minimumStrength": "strong", "rejectCommon": true, "rejectEmailLocalPart": true,
             "blockedWords": ["acme"], "blocklistFile": "words.txt", "messages": {"password.tooShort": "Ten or more"}}
            """
        let file = try PolicyFile(json: Data(json.utf8))
        #expect(file.policy == PasswordPolicy(name: "acme", minLength: 10, maxLength: 64, requiredClasses: [.digit], minimumStrength: .strong, rejectsCommon: true, rejectsEmailLocalPart: true, blockedWords: ["acme"], messages: ["password.tooShort": "Ten or more"]))
        #expect(file.blocklistFile == "words.txt")
        #expect(failures(file.policy, "acme123") == ["password.tooShort", "password.blockedWord", "password.tooWeak"])
        var form = SignupForm.make(policy: file.policy, strength: fakeEstimator)
        form.answer(K.password, line: "x1")
        #expect(form.visibleErrors(for: K.password).first?.message == "Ten or more")
    }

    @Test func policyFileDefaultsToStandard() throws {
        let file = try PolicyFile(json: Data("{}".utf8))
        var expected = PasswordPolicy.standard
        expected.name = "custom"
        #expect(file.policy == expected)
    }

    @Test(arguments: [
        ("", "not valid JSON"),
        ("[1]", "one JSON object"),
        ("{\"minLenght\": 3}", "unknown key \"minLenght\""),
        ("{\"minLength\": \"8\"}", "\"minLength\" must be a whole number"),
        ("{\"minLength\": 8.5}", "\"minLength\" must be a whole number"),
        ("{\"minLength\": true}", "\"minLength\" must be a whole number"),
        ("{\"minLength\": 1e30}", "\"minLength\" is out of range"),
        ("{\"maxLength\": -99999999999999999999}", "\"maxLength\" is out of range"),
        ("{\"minLength\": 0}", "\"minLength\" must be at least 1"),
        ("{\"minLength\": 20, \"maxLength\": 10}", "no more than \"maxLength\""),
        ("{\"require\": [\"emoji\"]}", "not \"emoji\""),
        ("{\"minimumStrength\": \"mighty\"}", "\"minimumStrength\" must be one of"),
        ("{\"rejectCommon\": 1}", "\"rejectCommon\" must be true or false"),
        ("{\"base\": \"lax\"}", "\"base\" must be one of"),
        ("{\"messages\": [\"x\"]}", "\"messages\" must map codes to texts"),
        ("{\"blockedWords\": \"acme\"}", "\"blockedWords\" must be a list of strings"),
        ("{\"minLength\": 8, \"minLength\": 12}", "the key \"minLength\" is given twice"),
        ("{\"messages\": {\"password.tooShort\": \"a\", \"password.tooShort\": \"b\"}}", "the key \"password.tooShort\" is given twice"),
        ("{\"argon2\": {\"iterations\": 2, \"iterations\": 3}}", "the key \"iterations\" is given twice"),
        ("{\"minLength\": 1e999}", "not valid JSON (a number too large to be one)"),
        ("{\"minLength\": 08}", "not valid JSON"),
        ("{\"name\": \"\\ud800\"}", "not valid JSON (a \\u escape that is half of a surrogate pair)"),
        ("{\"blockedWords\": [\"a\",]}", "not valid JSON (a character that cannot come where it is, or the file ends too early)"),
        ("\u{FEFF}\u{FEFF}{}", "not valid JSON"),
        ("{\"name\": \"a\u{01}b\"}", "not valid JSON (a control character inside a string: write it as \\u followed by 4 hex digits)"),
        (String(repeating: "{\"messages\":", count: 10_000), "not valid JSON (arrays and objects nested more than 64 deep)"),
    ])
    func malformedPolicyFiles(json: String, expected: String) {
        #expect {
            try PolicyFile(json: Data(json.utf8))
        } throws: { error in
            (error as? PolicyFileError)?.description.contains(expected) == true
        }
    }

    /// What the parser gives a policy: the bytes as `[UInt8]` (or `Data`), whole numbers however
    /// JSON writes them, and text with every escape.
    @Test func policyFileFromBytes() throws {
        let json = #"{"minLength": 1e1, "maxLength": 64.0, "blockedWords": ["acm\u00e9", "\ud83d\ude00"], "argon2": {"iterations": 3}}"#
        let file = try PolicyFile(json: Array(json.utf8))
        #expect(file.policy.minLength == 10 && file.policy.maxLength == 64)
        #expect(file.policy.blockedWords == ["acmé", "😀"])
        #expect(file.policy.argon2.iterations == 3)
        #expect(try PolicyFile(json: Array("\u{FEFF}{\"minLength\": 12}".utf8)).policy.minLength == 12)
    }

    @Test func blocklistWords() {
        #expect(PolicyFile.words(inBlocklist: "# comment\nacme\n\n  widget  \r\n") == ["acme", "widget"])
    }

    @Test func strengthLevelsFromBits() {
        #expect([0, 27.9, 28, 35.9, 36, 59.9, 60, 127.9, 128, 500].map(StrengthLevel.init(bits:)) ==
            [.veryWeak, .veryWeak, .weak, .weak, .reasonable, .reasonable, .strong, .strong, .veryStrong, .veryStrong])
        #expect(StrengthLevel.allCases.map(\.label) == ["very weak", "weak", "reasonable", "strong", "very strong"])
    }
}
