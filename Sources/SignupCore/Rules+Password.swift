/// A class of characters a password rule asks for, in one of two meanings made explicit: the
/// standard library's `Character` properties (the defaults of ``Rule/containsDigit(in:message:)``
/// and ``Rule/containsSymbol(in:message:)``) or Foundation's `CharacterSet` (Unicode general categories).
///
/// They differ: `½` and `²` are numbers but not decimal digits; a space is neither a symbol nor
/// punctuation in either meaning, `!` and `#` are punctuation, not `CharacterSet.symbols`, which
/// holds `+`, `$`, `^` and emoji.
public enum CharacterClass: Sendable, Equatable, Hashable {
    /// `Character.isNumber`: any number, `½`, `²` and `٣` included.
    case number
    /// `CharacterSet.decimalDigits`: general category Nd only (`0`–`9`, `٣`), not `½` nor `²`.
    case decimalDigit
    /// What is neither a letter, a number nor white space (`!`, `#`, `+`, `€`, emoji): the
    /// default meaning of a password's "symbol".
    case notLetterDigitOrSpace
    /// `CharacterSet.symbols`: general categories Sm, Sc, Sk and So (`+`, `$`, `^`, `©`, emoji), not `!` nor `#`.
    case symbol
    /// `CharacterSet.punctuationCharacters`: general categories P* (`!`, `#`, `.`, `-`).
    case punctuation
    /// `CharacterSet.symbols` and `.punctuationCharacters` together: `!`, `#` and `+`, not a space.
    case symbolOrPunctuation

    /// Whether `character` belongs to the class (a character of several scalars by its first).
    public func contains(_ character: Character) -> Bool {
        switch self {
        case .number: return character.isNumber
        case .notLetterDigitOrSpace: return !character.isLetter && !character.isNumber && !character.isWhitespace
        default: break
        }
        guard let first = character.unicodeScalars.first else { return false }
        switch (self, first.properties.generalCategory) {
        case (.decimalDigit, .decimalNumber): return true
        case (.symbol, .mathSymbol), (.symbol, .currencySymbol), (.symbol, .modifierSymbol), (.symbol, .otherSymbol): return true
        case (.punctuation, .connectorPunctuation), (.punctuation, .dashPunctuation), (.punctuation, .openPunctuation),
             (.punctuation, .closePunctuation), (.punctuation, .initialPunctuation), (.punctuation, .finalPunctuation),
             (.punctuation, .otherPunctuation):
            return true
        case (.symbolOrPunctuation, _): return CharacterClass.symbol.contains(character) || CharacterClass.punctuation.contains(character)
        default: return false
        }
    }
}

/// Rules for passwords: character classes, strength and words to avoid.
extension Rule where Value == String {
    /// Fails with `needsDigit` unless some character is a number (`Character.isNumber`, where `½`
    /// counts): `.containsDigit(in: .decimalDigit)` asks for `0`–`9` and other decimal digits only,
    /// as `CharacterSet.decimalDigits` does.
    public static func containsDigit(in digits: CharacterClass = .number, message: String = Translation.english("Add a digit")) -> Rule {
        custom("needsDigit", message: message, label: Translation.english("a digit")) { value, _ in value.contains(where: digits.contains) }
    }

    /// Fails with `needsUppercase` unless some character is uppercase (`Character.isUppercase`).
    public static func containsUppercase(message: String = Translation.english("Add an uppercase letter")) -> Rule {
        custom("needsUppercase", message: message, label: Translation.english("an uppercase letter")) { value, _ in value.contains { $0.isUppercase } }
    }

    /// Fails with `needsLowercase` unless some character is lowercase (`Character.isLowercase`).
    public static func containsLowercase(message: String = Translation.english("Add a lowercase letter")) -> Rule {
        custom("needsLowercase", message: message, label: Translation.english("a lowercase letter")) { value, _ in value.contains { $0.isLowercase } }
    }

    /// Fails with `needsSymbol` unless some character is neither a letter, a number nor white space
    /// (``CharacterClass/notLetterDigitOrSpace``: a space is no symbol). `CharacterSet`'s meanings:
    /// `.containsSymbol(in: .symbol)` (`+`, `$`, not `!`), `.containsSymbol(in: .symbolOrPunctuation)`.
    public static func containsSymbol(
        in symbols: CharacterClass = .notLetterDigitOrSpace, message: String = Translation.english("Add a symbol, such as ! or #")
    ) -> Rule {
        custom("needsSymbol", message: message, label: Translation.english("a symbol")) { value, _ in value.contains(where: symbols.contains) }
    }

    /// Fails with `tooWeak` when the estimate is below `level`; with `emailField`, the local
    /// part of the email in that field counts as a known word.
    public static func strength(
        atLeast level: StrengthLevel,
        estimator: StrengthEstimator,
        emailField: FieldKey<String>? = nil,
        message: String? = nil
    ) -> Rule {
        let text = message ?? Translation.english("Choose a harder-to-guess password: it must be at least {level}", translated: ["level": level.label])
        let label = Translation.english("strength at least {level}", translated: ["level": level.label])
        return custom("tooWeak", message: text, label: label, referencing: emailField.map { [$0] } ?? []) { value, context in
            estimator.estimate(value, userWords(from: context, emailField: emailField)).level >= level
        }
    }

    /// Fails with `common` when the estimator finds the whole password in its dictionaries.
    public static func notCommon(estimator: StrengthEstimator, message: String = Translation.english("This password is too common; choose another")) -> Rule {
        custom("common", message: message, label: Translation.english("not a common password")) { value, _ in !estimator.estimate(value, []).isCommon }
    }

    /// Fails with `containsEmail` when the local part (3 or more characters) of the email in
    /// field `emailField` appears in the password, ignoring case. The field is the caller's to
    /// name: no key is assumed (signup's own is `SignupForm.email`).
    public static func notContainingEmail(field emailField: FieldKey<String>, message: String = Translation.english("Do not use your email address in your password")) -> Rule {
        custom("containsEmail", message: message, label: Translation.english("not your email's name"), referencing: [emailField]) { value, context in
            let local = emailLocalPart(context[emailField] ?? "").lowercased()
            return local.count < 3 || !value.lowercased().includes(local)
        }
    }

    /// Fails with `blockedWord` when the password contains one of `words`, ignoring case.
    /// The message never names the word, since that would repeat part of the password.
    public static func notContaining(words: [String], message: String = Translation.english("Remove a word that is not allowed in passwords here")) -> Rule {
        let lowered = words.map { $0.lowercased() }.filter { !$0.isEmpty }
        return custom("blockedWord", message: message, label: Translation.english("no word blocked here")) { value, _ in
            let password = value.lowercased()
            return !lowered.contains { password.includes($0) }
        }
    }
}

extension String {
    /// Whether `part` occurs in this text, Character by Character (the standard library's search).
    ///
    /// Not Foundation's `contains`, which another file's `import Foundation` makes the default:
    /// it mishandles NUL (`"\0".contains("\0\0")` is true) and traps on some texts holding it.
    func includes(_ part: String) -> Bool { firstRange(of: part) != nil }
}

/// The part of an email address before its last `@`, or the whole text when it has none.
func emailLocalPart(_ email: String) -> String {
    guard let at = email.lastIndex(of: "@") else { return email }
    return String(email[..<at])
}

private func userWords(from context: RuleContext, emailField: FieldKey<String>?) -> [String] {
    guard let emailField else { return [] }
    return knownWords(inEmail: context[emailField] ?? "")
}

/// The words of an email's local part that zxcvbn should treat as known: the whole local
/// part and its pieces between `.`, `_`, `-` and `+` (zxcvbn matches user words only whole).
func knownWords(inEmail email: String) -> [String] {
    let local = emailLocalPart(email)
    guard !local.isEmpty else { return [] }
    let pieces = local.split(whereSeparator: { ".-_+".contains($0) }).map(String.init).filter { $0.count >= 3 }
    return [local] + pieces.filter { $0 != local }
}

extension Rule where Value == String {
    /// Fails with `compatibilityCharacter` when the value's NFKC form differs from its NFC form:
    /// fullwidth letters, ligatures, no-break and other special spaces, superscripts.
    ///
    /// Mail servers, PHP, Python and LDAP hash the bytes they receive without normalizing, so
    /// such a password would not match when typed elsewhere. The message never shows the character.
    public static func noCompatibilityCharacters(
        message: String = Translation.english("Use plain characters: a fullwidth letter, ligature, special space or superscript types differently elsewhere")
    ) -> Rule {
        custom("compatibilityCharacter", message: message) { value, _ in
            UnicodeText.nfc(value) == UnicodeText.nfkc(value)
        }
    }
}
