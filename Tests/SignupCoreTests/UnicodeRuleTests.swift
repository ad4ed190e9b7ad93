import Foundation
import SignupCore
import Testing

/// Characters that look like nothing or type differently elsewhere.
@Suite struct UnicodeRuleTests {
    func emailCodes(_ email: String) -> [String] {
        var form = standardForm()
        form.answer(K.email, line: email)
        return codes(form.visibleErrors(for: K.email))
    }

    func passwordCodes(_ policy: PasswordPolicy, _ password: String) -> [String] {
        var form = SignupForm.make(policy: policy, strength: fakeEstimator)
        form.answer(K.email, line: "alice@example.com")
        form.answer(K.password, line: password)
        return codes(form.visibleErrors(for: K.password))
    }

    @Test(arguments: [
        "alice\u{FE0F}@example.com",   // variation selector: a mark, so the syntax alone let it through
        "alic\u{34F}e@example.com",    // combining grapheme joiner
        "ali\u{200D}ce@example.com",   // zero-width joiner (Cf)
        "\u{FEFF}alice@example.com",   // byte-order mark
        "alice@exa\u{AD}mple.com",     // soft hyphen
    ])
    func invisibleCharactersAreRefusedInEmails(email: String) {
        #expect(emailCodes(email).contains("email.invisibleCharacter"))
        #expect(emailCodes("alice@example.com") == [])
    }

    static let compatibility = [
        "Ｑuartz-Lantern-58",            // fullwidth letter
        "Quartz-Lan\u{FB01}re-58",       // ﬁ ligature
        "Quartz\u{A0}Lantern-58",        // no-break space
        "Quartz\u{2003}Lantern-58",      // em space
        "Quartz-Lantern-5\u{B2}",        // superscript two
    ]

    static let invisible = [
        "Quartz\u{200B}Lantern-58",      // zero-width space
        "\u{FEFF}Quartz-Lantern-58",     // byte-order mark
        "Quartz-Lantern-58\u{FE0F}",     // variation selector
        "Quartz\u{2060}Lantern-58",      // word joiner
    ]

    @Test func compatibilityAndInvisibleCharactersAreRefusedInEveryPolicy() throws {
        let file = try PolicyFile(json: Data(#"{"base": "nist", "minLength": 4}"#.utf8)).policy
        for policy in [PasswordPolicy.standard, .strict, .nist, file] {
            for password in Self.compatibility {
                #expect(passwordCodes(policy, password + "-Quartz!x").contains("password.compatibilityCharacter"), "\(policy.name)")
            }
            for password in Self.invisible {
                #expect(passwordCodes(policy, password + "-Quartz!x").contains("password.invisibleCharacter"), "\(policy.name)")
            }
        }
    }

    @Test func theMessagesSayWhyAndNeverShowTheCharacter() {
        var form = standardForm()
        form.answer(K.password, line: "Ｑuartz\u{200B}-Lantern-58")
        let errors = form.visibleErrors(for: K.password)
        #expect(codes(errors) == ["password.invisibleCharacter", "password.compatibilityCharacter"])
        for error in errors {
            #expect(!error.message.contains("Ｑ") && !error.message.unicodeScalars.contains("\u{200B}"))
            #expect(error.message.count > 20)
        }
    }

    @Test func nfdIsAcceptedAndKeptAsNFC() {
        var form = standardForm()
        form.answer(K.password, line: "Que\u{301}bec-Lantern-58")
        #expect(form.visibleErrors(for: K.password).isEmpty)
        #expect(Array(form[K.password]!.value.utf8) == Array("Qu\u{E9}bec-Lantern-58".utf8))
    }

    @Test func aLetterBeyondU10000BeforeAMarkIsKeptAsTyped() {
        // Foundation's NFC on Linux cut U+10041 (Linear B) to U+0041 and composed it with the
        // accent: this password was hashed as "Quartz-Á-58", another password.
        let typed = "Quartz-\u{10041}\u{301}-58"
        #expect(Array(SignupForm.normalizePassword(typed).unicodeScalars) == Array(typed.unicodeScalars))
        #expect(SignupForm.normalizePassword(typed) != SignupForm.normalizePassword("Quartz-\u{C1}-58"))
    }

    /// The standard library's tables (Unicode 16 and later) know letters that utf8proc's (15 with
    /// Debian 12) does not: those would neither fold nor normalize, and their account's key would
    /// change with the next utf8proc. Such an email is refused until the system's utf8proc knows them.
    @Test func anEmailWithALetterUtf8procDoesNotKnowIsRefused() throws {
        let newer = (0x80...0x3FFFF).lazy.compactMap(Unicode.Scalar.init).filter {
            $0.properties.isAlphabetic && $0.properties.generalCategory != .unassigned && !UnicodeText.isAssigned($0)
        }
        guard let letter = newer.first else {
            // This utf8proc knows every letter the standard library does: nothing to refuse.
            return
        }
        #expect(emailCodes("\(Character(letter))x@example.com") == ["email.invalid"], "U+\(String(letter.value, radix: 16, uppercase: true))")
        #expect(emailCodes("\u{E9}x@example.com").isEmpty)
        #expect(UnicodeText.isAssigned("\u{E9}") && !UnicodeText.isAssigned("\u{378}"))
    }

    @Test func anEmailLosesTheSpacesAroundItButNotItsLineBreaks() {
        #expect(SignupForm.normalizeEmail("\t\u{200B} alice@example.com\u{3000}\u{A0}") == "alice@example.com")
        #expect(SignupForm.normalizeEmail(" a\u{301}lice@example.com ") == "\u{E1}lice@example.com")
        #expect(SignupForm.normalizeEmail("alice@example.com\n") == "alice@example.com\n")
    }

    @Test func everyAcceptedPasswordHasEqualNFCAndNFKC() {
        let samples = ["Quartz-Lantern-58", "Qu\u{E9}bec-Lantern-58", "Пароль-Надёжный-58", "密码-Lantern-58"] + Self.compatibility + Self.invisible
        for sample in samples {
            var form = standardForm()
            form.answer(K.password, line: sample)
            let value = form[K.password]!.value
            if form.visibleErrors(for: K.password).isEmpty {
                #expect(value == value.precomposedStringWithCompatibilityMapping)
                #expect(value == sample.precomposedStringWithCanonicalMapping)
            }
        }
    }
}

/// Look-alike addresses an outside attack got past the first rules: styled and fullwidth
/// letters, other alphabets that copy Latin letters, and strokes through a letter.
@Suite struct LookalikeEmailTests {
    func codes(_ email: String) -> [String] {
        var form = standardForm()
        form.answer(SignupForm.email, with: email)
        return form.errors(for: SignupForm.email).map(\.code)
    }

    @Test(arguments: ["ａdmin@example.com", "𝐚𝐝𝐦𝐢𝐧@example.com", "𝖺admin@example.com", "admin@𝐞𝐱ample.com"])
    func styledOrFullwidthLettersAreRefused(email: String) {
        #expect(codes(email).contains("email.compatibilityCharacter"), "\(email)")
    }

    @Test(arguments: ["ꓮdmin@example.com", "ⲟpen@example.com", "ᑭayment@example.com"])
    func otherAlphabetsMixedWithLatinAreRefused(email: String) {
        #expect(codes(email) == ["email.mixedScripts"], "\(email)")
    }

    @Test(arguments: ["x̶adm@example.com", "a@exa̶mple.com", "a@exa\u{20D2}mple.com"])
    func aStrokeThroughALetterIsRefused(email: String) {
        #expect(codes(email).contains("email.stackedMarks"), "\(email)")
    }

    @Test(arguments: ["josé@bücher.de", "δοκιμή@παράδειγμα.δοκιμή", "ⲙⲟⲩ@example.com", "用户@例子.广告"])
    func realAddressesStillPass(email: String) {
        #expect(codes(email).isEmpty, "\(email)")
    }
}
