/// A type a field's answer can be read as, from the one line typed: after swift-argument-parser's
/// `ExpressibleByArgument`.
///
/// `String`, `Int`, `Double` and `Bool` (yes/no) conform; so does any `String`-backed
/// `CaseIterable` enum that declares `AnswerValue` (a choice among its cases). A line that does
/// not parse fails with the type's own reason, such as `age.notAWholeNumber`.
public protocol AnswerValue: Sendable {
    /// The value a (trimmed) line stands for, or nil when it does not parse.
    init?(answer: String)
    /// The line that stands for this value: what an initial value puts on the line to edit.
    var answerText: String { get }
    /// The failure of a line that does not parse, such as `notAWholeNumber`.
    static var notParsed: RuleFailure { get }
    /// How a prompt for this type is asked: a line to edit (the default), a yes/no question, or a
    /// choice that lists its options. A yes/no or a choice shows its default in the prompt and
    /// takes it on Enter; it never puts it on the line to edit.
    static var promptStyle: PromptStyle { get }
}

/// How a field's prompt is asked (``AnswerValue/promptStyle``).
public enum PromptStyle: Sendable, Equatable {
    /// A line to edit; an initial value is put on it.
    case line
    /// `Label [y/N]: `: Enter takes the default.
    case yesNo
    /// `Label (a, b, c) [a]: `: one of these, by name or number; Enter takes the default.
    case choice([String])
}

extension AnswerValue {
    /// A line to edit.
    public static var promptStyle: PromptStyle { .line }
}

extension String: AnswerValue {
    /// Any line is a text.
    public init?(answer: String) { self = answer }
    /// The text itself.
    public var answerText: String { self }
    /// Never reported: every line is a text.
    public static var notParsed: RuleFailure { RuleFailure(reason: "invalid", message: Translation.english("Enter a text")) }
}

extension Int: AnswerValue {
    /// Decimal digits with an optional sign: `42`, `-3`, `+7`.
    public init?(answer: String) {
        guard let value = Int(answer, radix: 10) else { return nil }
        self = value
    }
    /// The decimal digits.
    public var answerText: String { String(self) }
    /// `notAWholeNumber`.
    public static var notParsed: RuleFailure { RuleFailure(reason: "notAWholeNumber", message: Translation.english("Enter a whole number, such as 42")) }
}

extension Double: AnswerValue {
    /// A finite decimal number with `.` as its point: `1.5`, `-2`, `3e2`; never `nan`, `inf` or hexadecimal (`0x10`).
    public init?(answer: String) {
        guard answer.allSatisfy({ "0123456789.+-eE".contains($0) }), let value = Double(answer), value.isFinite else { return nil }
        self = value
    }
    /// The shortest text that reads back as the same number.
    public var answerText: String { description }
    /// `notANumber`.
    public static var notParsed: RuleFailure { RuleFailure(reason: "notANumber", message: Translation.english("Enter a number, such as 1.5")) }
}

extension Bool: AnswerValue {
    /// `y`, `yes`, `true` or `n`, `no`, `false`, in any case.
    public init?(answer: String) {
        switch answer.lowercased() {
        case "y", "yes", "true": self = true
        case "n", "no", "false": self = false
        default: return nil
        }
    }
    /// `yes` or `no`.
    public var answerText: String { self ? "yes" : "no" }
    /// `notYesOrNo`.
    public static var notParsed: RuleFailure { RuleFailure(reason: "notYesOrNo", message: Translation.english("Answer yes or no")) }
    /// A yes/no question.
    public static var promptStyle: PromptStyle { .yesNo }
}

extension AnswerValue where Self: CaseIterable & RawRepresentable, RawValue == String {
    /// A case by its raw value (exactly, else in any case), or by its number in `allCases` from
    /// 1 when no raw value is itself a number (`case ground = "0"` is chosen by "0", never by position).
    public init?(answer: String) {
        let cases = Array(Self.allCases)
        if let exact = cases.first(where: { $0.rawValue == answer }) {
            self = exact
            return
        }
        if let match = cases.first(where: { $0.rawValue.lowercased() == answer.lowercased() }) {
            self = match
            return
        }
        let numbered = !cases.contains { Int($0.rawValue, radix: 10) != nil }
        guard numbered, let number = Int(answer, radix: 10), cases.indices.contains(number - 1) else { return nil }
        self = cases[number - 1]
    }
    /// The raw value.
    public var answerText: String { rawValue }
    /// A choice that lists its cases.
    public static var promptStyle: PromptStyle { .choice(Self.allCases.map(\.rawValue)) }
    /// `notAChoice`, naming the choices.
    public static var notParsed: RuleFailure {
        RuleFailure(reason: "notAChoice", message: Translation.english("Choose one of: {choices}", ["choices": Self.allCases.map(\.rawValue).joined(separator: ", ")]))
    }
}

/// The name of a field together with the type of its answer: `FieldKey<Int>("age")`.
///
/// Reading or answering through a key checks, at once, that the form has such a field of
/// that type: a misspelt name stops the program where it is used instead of failing silently.
public struct FieldKey<Value: AnswerValue>: Sendable, Hashable, CustomStringConvertible {
    /// The field's name.
    public let name: String

    /// The key of the field `name`, whose answers are read as `Value`.
    public init(_ name: String) {
        self.name = name
    }

    /// The field's name.
    public var description: String { name }
}

extension Rule {
    /// Fails with the type's `notParsed` reason when a non-empty value does not read as `Value`.
    public static func parses<Value: AnswerValue>(as type: Value.Type) -> Rule {
        Rule { value, _ in
            value.isEmpty || Value(answer: value) != nil ? [] : [Value.notParsed]
        }
    }

    /// A rule on the typed value: fails with `reason` and `message` when `predicate` is false.
    /// A value that does not read as `Value` is left to ``parses(as:)``; with a `label` it lists that check.
    public static func typed<Value: AnswerValue>(
        _ reason: String,
        message: String,
        label: String? = nil,
        referencing: [String] = [],
        where predicate: @escaping @Sendable (_ value: Value, _ context: RuleContext) -> Bool
    ) -> Rule {
        custom(reason, message: message, label: label, referencing: referencing) { text, context in
            guard let value = Value(answer: text) else { return true }
            return predicate(value, context)
        }
    }

    /// Fails with `outOfRange` unless the value lies in `range` (inclusive).
    public static func range<Value: AnswerValue & Comparable>(_ range: ClosedRange<Value>, message: String? = nil) -> Rule {
        let bounds = ["low": range.lowerBound.answerText, "high": range.upperBound.answerText]
        return typed("outOfRange", message: message ?? Translation.english("Enter a value from {low} to {high}", bounds),
                     label: Translation.english("from {low} to {high}", bounds)) { (value: Value, _) in
            range.contains(value)
        }
    }

    /// Fails with `notAllowed` unless the value is one of `values`.
    public static func oneOf<Value: AnswerValue & Equatable>(_ values: [Value], message: String? = nil) -> Rule {
        let listed = values.map(\.answerText).joined(separator: ", ")
        return typed("notAllowed", message: message ?? Translation.english("Choose one of: {choices}", ["choices": listed]),
                     label: Translation.english("one of {choices}", ["choices": listed])) { (value: Value, _) in
            values.contains(value)
        }
    }

    /// Fails with `mustBeYes` unless the answer is yes (terms accepted).
    public static func mustBeTrue(message: String = Translation.english("Answer yes to go on")) -> Rule {
        typed("mustBeYes", message: message, label: "yes") { (value: Bool, _) in value }
    }
}
