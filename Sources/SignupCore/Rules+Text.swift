/// How a ``Rule/pattern(_:_:reason:message:label:)`` matches: the caller says which.
public enum PatternMatch: Sendable, Equatable {
    /// The whole value must match (`[0-9]{4}` refuses `12345`).
    case wholeMatch
    /// Some part of the value must match (`[0-9]` asks for a digit somewhere).
    case contains
}

/// Rules for any text field.
extension Rule where Value == String {
    /// Fails with `tooShort` when the value has fewer than `count` characters.
    public static func minLength(_ count: Int, message: String? = nil) -> Rule {
        custom(
            "tooShort", message: message ?? Translation.english("Use at least {count} characters", ["count": String(count)]),
            label: Translation.english("at least {count} characters", ["count": String(count)])
        ) { value, _ in value.count >= count }
    }

    /// Fails with `tooShort` when the value has fewer than `count` characters, its message made
    /// from `count`: `.minLength(8) { "Use \($0) characters or more" }`.
    public static func minLength(_ count: Int, message: @escaping @Sendable (_ count: Int) -> String) -> Rule {
        minLength(count, message: message(count))
    }

    /// Fails with `tooLong` when the value has more than `count` characters, its message made from `count`.
    public static func maxLength(_ count: Int, message: @escaping @Sendable (_ count: Int) -> String) -> Rule {
        maxLength(count, message: message(count))
    }

    /// Fails with `tooLong` when the value has more than `count` characters.
    public static func maxLength(_ count: Int, message: String? = nil) -> Rule {
        custom(
            "tooLong", message: message ?? Translation.english("Use at most {count} characters", ["count": String(count)]),
            label: Translation.english("at most {count} characters", ["count": String(count)])
        ) { value, _ in value.count <= count }
    }

    /// Fails with `invalid` (or `reason`) unless the value matches the regular expression
    /// `pattern` as `match` says: the whole value (``PatternMatch/wholeMatch``) or some part of it
    /// (``PatternMatch/contains``).
    ///
    /// An invalid pattern is a programming error and stops the program. With a `label` the rule lists that check.
    public static func pattern(
        _ pattern: String, _ match: PatternMatch, reason: String = "invalid",
        message: String = Translation.english("Use the expected format"), label: String? = nil
    ) -> Rule {
        let regex: Regex<AnyRegexOutput>
        do {
            regex = try Regex(pattern)
        } catch {
            preconditionFailure("invalid regular expression \(pattern): \(error)")
        }
        let box = RegexBox(regex: regex)
        return custom(reason, message: message, label: label) { value, _ in
            switch match {
            case .wholeMatch: (try? box.regex.wholeMatch(in: value)) != nil
            case .contains: (try? box.regex.firstMatch(in: value)) != nil
            }
        }
    }

    /// Fails with `invalidCharacter` when the value holds a control character (tab, escape, NUL…).
    public static func noControlCharacters(message: String = Translation.english("Remove control characters such as tabs")) -> Rule {
        custom("invalidCharacter", message: message) { value, _ in
            !value.unicodeScalars.contains { $0.properties.generalCategory == .control }
        }
    }

    /// Fails with `invisibleCharacter` when the value holds a character that shows nothing:
    /// a default-ignorable code point (U+FE0F, U+034F, U+200B…) or a format character
    /// (general category Cf, which includes the byte-order mark U+FEFF).
    ///
    /// Such characters make two answers that look identical differ; the message never shows the character.
    public static func noInvisibleCharacters(message: String = Translation.english("Remove an invisible character (such as a zero-width space or a variation selector)")) -> Rule {
        custom("invisibleCharacter", message: message) { value, _ in
            !value.unicodeScalars.contains(where: \.isInvisible)
        }
    }
}

/// Rules for any collection: a list chosen in a UI, or a text counted in characters.
///
/// On a text the messages and labels speak of characters (`Use more than 3 characters`), on
/// any other collection of choices (`Choose more than 3`).
extension Rule where Value: Collection {
    /// A message for a count: made from it by the caller's closure.
    public typealias CountMessage = @Sendable (_ count: Int) -> String

    /// Fails with `tooFew` when the value has fewer than `count` elements (`count` itself passes).
    public static func count(atLeast count: Int, message: String? = nil) -> Rule {
        atLeast(count, message.map(fixed))
    }

    /// Fails with `tooFew` when the value has fewer than `count` elements, its message made from
    /// `count`: `.count(atLeast: 8) { "Use \($0) characters or more" }`.
    public static func count(atLeast count: Int, message: @escaping CountMessage) -> Rule {
        atLeast(count, message)
    }

    /// Fails with `tooFew` unless the value has more than `count` elements (`count` itself fails).
    public static func count(moreThan count: Int, message: String? = nil) -> Rule {
        moreThan(count, message.map(fixed))
    }

    /// Fails with `tooFew` unless the value has more than `count` elements, its message made from `count`.
    public static func count(moreThan count: Int, message: @escaping CountMessage) -> Rule {
        moreThan(count, message)
    }

    /// Fails with `tooMany` when the value has more than `count` elements (`count` itself passes).
    public static func count(atMost count: Int, message: String? = nil) -> Rule {
        atMost(count, message.map(fixed))
    }

    /// Fails with `tooMany` when the value has more than `count` elements, its message made from `count`.
    public static func count(atMost count: Int, message: @escaping CountMessage) -> Rule {
        atMost(count, message)
    }

    /// Fails with `tooMany` unless the value has fewer than `count` elements (`count` itself fails).
    public static func count(fewerThan count: Int, message: String? = nil) -> Rule {
        fewerThan(count, message.map(fixed))
    }

    /// Fails with `tooMany` unless the value has fewer than `count` elements, its message made from `count`.
    public static func count(fewerThan count: Int, message: @escaping CountMessage) -> Rule {
        fewerThan(count, message)
    }

    /// Fails with `wrongCount` unless the value has exactly `count` elements: a 6-digit code or a
    /// 4-digit PIN, one message for too few and too many alike.
    public static func count(equalTo count: Int, message: String? = nil) -> Rule {
        equalTo(count, message.map(fixed))
    }

    /// Fails with `wrongCount` unless the value has exactly `count` elements, its message made
    /// from `count`: `.count(equalTo: 6) { "The code has \($0) digits" }`.
    public static func count(equalTo count: Int, message: @escaping CountMessage) -> Rule {
        equalTo(count, message)
    }

    private static func fixed(_ text: String) -> CountMessage { { _ in text } }

    private static func atLeast(_ count: Int, _ message: CountMessage?) -> Rule {
        let n = ["count": String(count)]
        return isText
            ? counting("tooFew", message?(count) ?? Translation.english("Use at least {count} characters", n), Translation.english("at least {count} characters", n)) { $0 >= count }
            : counting("tooFew", message?(count) ?? Translation.english("Choose at least {count}", n), Translation.english("at least {count}", n)) { $0 >= count }
    }

    private static func moreThan(_ count: Int, _ message: CountMessage?) -> Rule {
        let n = ["count": String(count)]
        return isText
            ? counting("tooFew", message?(count) ?? Translation.english("Use more than {count} characters", n), Translation.english("more than {count} characters", n)) { $0 > count }
            : counting("tooFew", message?(count) ?? Translation.english("Choose more than {count}", n), Translation.english("more than {count}", n)) { $0 > count }
    }

    private static func atMost(_ count: Int, _ message: CountMessage?) -> Rule {
        let n = ["count": String(count)]
        return isText
            ? counting("tooMany", message?(count) ?? Translation.english("Use at most {count} characters", n), Translation.english("at most {count} characters", n)) { $0 <= count }
            : counting("tooMany", message?(count) ?? Translation.english("Choose at most {count}", n), Translation.english("at most {count}", n)) { $0 <= count }
    }

    private static func fewerThan(_ count: Int, _ message: CountMessage?) -> Rule {
        let n = ["count": String(count)]
        return isText
            ? counting("tooMany", message?(count) ?? Translation.english("Use fewer than {count} characters", n), Translation.english("fewer than {count} characters", n)) { $0 < count }
            : counting("tooMany", message?(count) ?? Translation.english("Choose fewer than {count}", n), Translation.english("fewer than {count}", n)) { $0 < count }
    }

    private static func equalTo(_ count: Int, _ message: CountMessage?) -> Rule {
        let n = ["count": String(count)]
        return isText
            ? counting("wrongCount", message?(count) ?? Translation.english("Use exactly {count} characters", n), Translation.english("exactly {count} characters", n)) { $0 == count }
            : counting("wrongCount", message?(count) ?? Translation.english("Choose exactly {count}", n), Translation.english("exactly {count}", n)) { $0 == count }
    }

    /// Whether the value is a text: its count is of characters, and its texts say so.
    private static var isText: Bool { Value.self == String.self }

    private static func counting(_ reason: String, _ message: String, _ label: String, passes: @escaping @Sendable (Int) -> Bool) -> Rule {
        custom(reason, message: message, label: label) { value, _ in passes(value.count) }
    }
}

/// Regex is not Sendable; a compiled pattern is never mutated after creation.
private struct RegexBox: @unchecked Sendable {
    let regex: Regex<AnyRegexOutput>
}

extension Unicode.Scalar {
    /// Whether the scalar shows nothing by itself: a default-ignorable code point or a format character (Cf).
    public var isInvisible: Bool {
        // No ASCII scalar is either; the Unicode property lookups cost ~0.1 µs a scalar.
        value >= 0x80 && (properties.isDefaultIgnorableCodePoint || properties.generalCategory == .format)
    }
}
