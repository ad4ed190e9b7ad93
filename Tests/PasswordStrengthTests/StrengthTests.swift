import PasswordStrength
import SignupCore
import Testing

/// `StrengthEstimator.zxcvbn` against zxcvbn-c 2.5 (Debian's libzxcvbn0, dictionary built in).
///
/// Figures measured with this library: "password" 0 bits, "q7$Lm!2vXz#9" 74.1, "correct horse battery staple"
/// 70.3, "Tr0ub4dor&3" 46.7, "aliceliddell" 18.6 alone and 0 with the user word "aliceliddell".
@Suite("zxcvbn strength")
struct StrengthTests {
    let estimator = StrengthEstimator.zxcvbn

    @Test("\"password\" is very weak and common")
    func passwordIsVeryWeakAndCommon() {
        let estimate = estimator.estimate("password", [])
        #expect(estimate.level == .veryWeak)
        #expect(estimate.isCommon)
    }

    @Test("A capitalised or leet dictionary word is still common", arguments: ["Password", "PASSWORD", "P@ssw0rd", "m0nkey"])
    func variantsOfDictionaryWordsAreCommon(password: String) {
        let estimate = estimator.estimate(password, [])
        #expect(estimate.isCommon)
        #expect(estimate.level == .veryWeak)
    }

    @Test("A dictionary word with something added is not the whole password, so not common")
    func dictionaryWordWithSuffixIsNotCommon() {
        #expect(!estimator.estimate("password1", []).isCommon)
        #expect(!estimator.estimate("passwordpassword", []).isCommon)
    }

    @Test("A random 12-character mix is at least reasonable")
    func randomMixIsAtLeastReasonable() {
        let estimate = estimator.estimate("q7$Lm!2vXz#9", [])
        #expect(estimate.level >= .reasonable)
        #expect(!estimate.isCommon)
    }

    /// zxcvbn-c gives 70.3 bits: four common words, each from the dictionaries, plus the spaces between them.
    @Test("\"correct horse battery staple\" is strong")
    func passphraseIsStrong() {
        let estimate = estimator.estimate("correct horse battery staple", [])
        #expect(estimate.level == .strong)
        #expect(!estimate.isCommon)
    }

    /// The xkcd "Tr0ub4dor&3": a leet dictionary word, a symbol and a digit; zxcvbn-c gives 46.7 bits.
    @Test("\"Tr0ub4dor&3\" is reasonable, below a passphrase, and not common")
    func leetWordWithAdditions() {
        let estimate = estimator.estimate("Tr0ub4dor&3", [])
        #expect(estimate.level == .reasonable)
        #expect(!estimate.isCommon)
        #expect(estimate.bits < estimator.estimate("correct horse battery staple", []).bits)
    }

    @Test("The email's local part as a user word lowers the estimate of a password built on it")
    func userWordLowersEstimate() {
        let alone = estimator.estimate("aliceliddell", [])
        let known = estimator.estimate("aliceliddell", ["aliceliddell"])
        #expect(known.bits < alone.bits)
        #expect(known.level == .veryWeak)
        // A user-word match is not a dictionary match: it is weak, but not "common".
        #expect(!known.isCommon)

        let withDigits = estimator.estimate("AliceLiddell1987", [])
        let withDigitsKnown = estimator.estimate("AliceLiddell1987", ["aliceliddell"])
        #expect(withDigitsKnown.bits < withDigits.bits)
    }

    @Test("User words are optional and empty words are ignored")
    func emptyUserWordsAreIgnored() {
        #expect(estimator.estimate("q7$Lm!2vXz#9", [""]) == estimator.estimate("q7$Lm!2vXz#9", []))
    }

    @Test("Non-ASCII passwords do not crash and give a finite value", arguments: ["passwörd", "пароль123", "密码密码密码", "😀😀😀😀", "e\u{301}te\u{301}"])
    func nonASCIIPasswords(password: String) {
        let estimate = estimator.estimate(password, ["pässwörd", "密码"])
        #expect(estimate.bits.isFinite)
        #expect(estimate.bits > 0)
        #expect(!estimate.isCommon)
    }

    @Test("The empty password is zero bits, very weak, not common")
    func emptyPassword() {
        let estimate = estimator.estimate("", [])
        #expect(estimate.bits == 0)
        #expect(estimate.level == .veryWeak)
        #expect(!estimate.isCommon)
    }

    /// zxcvbn-c examines the first 100 bytes in detail and adds a small allowance for the rest.
    @Test("A password over 100 bytes gives a finite value, not common")
    func longPassword() {
        let estimate = estimator.estimate("password" + String(repeating: "Zq7!", count: 300), [])
        #expect(estimate.bits.isFinite)
        #expect(!estimate.isCommon)
    }

    @Test("Concurrent estimates agree with serial ones (no shared mutable state)")
    func concurrentEstimates() async {
        let passwords = ["password", "q7$Lm!2vXz#9", "correct horse battery staple", "Tr0ub4dor&3", "passwörd"]
        let zxcvbn = estimator
        let expected = passwords.map { zxcvbn.estimate($0, ["alice"]) }
        let results = await withTaskGroup(of: (Int, StrengthEstimate).self) { group in
            for round in 0..<200 {
                let index = round % passwords.count
                group.addTask { (index, zxcvbn.estimate(passwords[index], ["alice"])) }
            }
            return await group.reduce(into: [(Int, StrengthEstimate)]()) { $0.append($1) }
        }
        #expect(results.count == 200)
        for (index, estimate) in results {
            #expect(estimate == expected[index])
        }
    }
}
