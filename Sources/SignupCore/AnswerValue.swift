/// A type a field's answer can be read as, from the one line typed: after swift-argument-parser's
/// `ExpressibleByArgument`.
///
/// `String`, `Int`, `Double` and `Bool` (yes/no) conform; so does any `String`-backed
/// `CaseIterable` enum that declares `AnswerValue` (a choice among its cases). A line that does
/// not parse fails with the type's own reason, such as `age.notAWholeNumber`. A value is
/// `Equatable`, so that rules (``Rule/oneOf(_:message:)``, ``Rule/equals(_:message:)``) and dirtiness can compare it.
public protocol AnswerValue: Sendable, Equatable {
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
    /// `Label (a, b, c; separated by commas): ` or `Label (separated by commas): `: a line of
    /// elements separated by commas, each one of these choices (by name or number) when there
    /// are any; an initial value is put on the line to edit, as for ``line``.
    case list([String])

    /// Whether it is asked on a line to edit, where an initial value is put (a line or a list).
    var editsLine: Bool {
        switch self {
        case .line, .list: true
        case .yesNo, .choice: false
        }
    }
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

/// A field's key, whatever the type of its value: what a list of fields of several types holds
/// (`dependsOn: [password, age]`). Only ``FieldKey`` conforms.
public protocol FieldReference: Sendable {
    /// The type of the field's value.
    associatedtype Value: Sendable & Equatable
    /// The field's name, used in codes (`email.invalid`), JSON and ``FieldError/field``.
    var name: String { get }
}

/// The key of a field: its name together with the type of its value, `FieldKey<Int>("age")`.
///
/// A field whose type is an ``AnswerValue`` (a text, a number, a yes/no, a choice, an optional
/// or a list of these) is read from a line, so a terminal can ask it; a field of any other
/// `Sendable & Equatable` type (a colour, a coordinate) is set by a UI through a ``FormModel``
/// (``Field/init(setByUI:label:rules:mode:initial:isSecret:dependsOn:messages:reviewLabel:)``), and a
/// ``Wizard`` refuses a form that has one when it is made.
///
/// Declare each key once, as a value, and name the field by it everywhere else: in its
/// ``Field``, in rules that read it (`.equals(password)`), in `dependsOn`, when answering,
/// reading (`form.value(age)`, `form.visibleErrors(for: email)`), resetting and focusing.
///
/// ```swift
/// enum SignUpKeys {
///     static let email = FieldKey<String>("email")
///     static let password = FieldKey<String>("password")
///     static let age = FieldKey<Int>("age")
/// }
/// ```
///
/// A misspelt key (`SignUpKeys.emial`) does not compile, nor does a key of the wrong type: a
/// `FieldKey<Int>` where a `FieldKey<String>` is compared (`.equals(SignUpKeys.age)` on a text
/// field), or a rule of `String` on an `Int` field. The name is a string only here, at its
/// declaration; whether a given form has the field is checked when it is used, and a key of a
/// field the form lacks stops the program there.
public struct FieldKey<Value: Sendable>: Sendable, Hashable, CustomStringConvertible {
    // Only `Sendable`, as `Rule` (where it says why); the key of a field is a `FieldReference`
    // when its value is `Equatable`, as every field's is.
    /// The field's name.
    public let name: String

    /// The key of the field `name`, whose values are `Value`.
    public init(_ name: String) {
        self.name = name
    }

    /// The field's name.
    public var description: String { name }
}

extension FieldKey: FieldReference where Value: Equatable {}

extension FieldKey {
    /// Whether `name`, handed back by the wizard (its hooks, ``Question/field(_:)``, a check), is this
    /// key's field: `case Keys.password:` in a `switch` over it.
    public static func ~= (key: FieldKey, name: String) -> Bool {
        key.name == name
    }
}

/// Rules for values that can be ordered: numbers, dates.
extension Rule where Value: Comparable {
    /// Fails with `outOfRange` unless the value lies in `range` (inclusive).
    public static func range(_ range: ClosedRange<Value>, message: String? = nil) -> Rule {
        let bounds = ["low": shown(range.lowerBound), "high": shown(range.upperBound)]
        return custom("outOfRange", message: message ?? Translation.english("Enter a value from {low} to {high}", bounds),
                      label: Translation.english("from {low} to {high}", bounds)) { value, _ in
            range.contains(value)
        }
    }
}

/// Rules for values that can be compared for equality.
extension Rule where Value: Equatable {
    /// Fails with `notAllowed` unless the value is one of `values`.
    public static func oneOf(_ values: [Value], message: String? = nil) -> Rule {
        let listed = values.map(shown).joined(separator: ", ")
        return custom("notAllowed", message: message ?? Translation.english("Choose one of: {choices}", ["choices": listed]),
                      label: Translation.english("one of {choices}", ["choices": listed])) { value, _ in
            values.contains(value)
        }
    }

    /// A value as people read it: its answer's text when it has one.
    static func shown(_ value: Value) -> String {
        (value as? any AnswerValue)?.answerText ?? "\(value)"
    }
}

extension Rule where Value: AnswerValue {
    /// Fails with `mismatch` unless the value equals the value of the field of `other` (a
    /// confirmation of its password): `.equals(password)`. The key's type must be the field's own.
    public static func equals(_ other: FieldKey<Value>, message: String = Translation.english("Passwords do not match")) -> Rule {
        custom("mismatch", message: message, label: Translation.english("the same as {field}", ["field": other.name]), referencing: [other]) { value, context in
            value == context[other]
        }
    }
}

extension Rule where Value == Bool {
    /// Fails with `mustBeYes` unless the answer is yes (terms accepted): no, and no answer at all.
    ///
    /// It implies ``required(message:allowingWhiteSpace:)``: a yes/no never answered (an empty
    /// line at a script's prompt, a `FormModel` field never set) fails with `mustBeYes` too,
    /// so a field with this rule alone cannot be submitted unanswered; `.required()` beside it
    /// adds nothing but a second message for an unanswered field.
    public static func mustBeTrue(message: String = Translation.english("Answer yes to go on")) -> Rule {
        Rule(checks: [RuleCheck(reason: "mustBeYes", label: "yes")], referencedFields: [], appliesWhenEmpty: true, reasons: ["mustBeYes"]) { value, _ in
            value == true ? [] : [RuleFailure(reason: "mustBeYes", message: message)]
        }
    }
}
