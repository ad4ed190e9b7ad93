/// One failing check of a field: a stable code and a message for people.
///
/// Codes are `field.reason` (`password.tooShort`); they never change. Messages may be
/// improved or overridden, and never contain what was typed into a secret field.
/// An error of the whole form (a submit refused for no one field) has the field name `""`.
public struct FieldError: Sendable, Equatable, Hashable, Codable {
    /// The field's name, such as `password`; `""` for an error of the whole form.
    public var field: String
    /// The stable code, such as `password.tooShort` (or `form.rateLimited` for the whole form).
    public var code: String
    /// The text shown to people.
    public var message: String
    /// What a screen reader says for the error when it differs from ``message`` (a message with a
    /// symbol or an abbreviation), set with ``Rule/spoken(_:)``; nil: the message is spoken.
    public var spokenMessage: String?

    /// An error of field `field` with the stable `code`, a `message` for people and, when it
    /// should differ, the text a screen reader speaks.
    public init(field: String, code: String, message: String, spokenMessage: String? = nil) {
        self.field = field
        self.code = code
        self.message = message
        self.spokenMessage = spokenMessage
    }

    /// What a screen reader says for the error: a view's accessibility label
    /// (`Text(error.message).accessibilityLabel(error.accessibilityLabel)`).
    public var accessibilityLabel: String { spokenMessage ?? message }

    /// An error of the field of `key` with the code `name.reason` (`email.taken`): the key's name
    /// cannot be misspelt, as a string's can.
    public init(_ key: some FieldReference, reason: String, message: String) {
        self.init(field: key.name, code: "\(key.name).\(reason)", message: message)
    }

    /// An error of the whole form, not of one field (a submit refused for a reason of its own).
    public static func form(code: String, message: String) -> FieldError {
        FieldError(field: "", code: code, message: message)
    }

    /// Whether the error belongs to the whole form rather than to one field.
    public var isFormLevel: Bool { field.isEmpty }

    /// The part of the code after the field name, such as `tooShort`.
    public var reason: String {
        code.hasPrefix(field + ".") ? String(code.dropFirst(field.count + 1)) : code
    }
}

/// A failure reported by a rule before it is tied to a field.
public struct RuleFailure: Sendable, Equatable {
    /// The reason, such as `tooShort`; the field turns it into the code `password.tooShort`.
    public var reason: String
    /// The default text shown to people.
    public var message: String
    /// What a screen reader says instead of ``message``, or nil to speak the message.
    public var spokenMessage: String?

    /// A failure with `reason`, a default `message` and, when it should differ, the text a screen reader speaks.
    public init(reason: String, message: String, spokenMessage: String? = nil) {
        self.reason = reason
        self.message = message
        self.spokenMessage = spokenMessage
    }

    /// What a screen reader says for the failure: ``spokenMessage``, else the message.
    public var accessibilityLabel: String { spokenMessage ?? message }
}

/// One requirement a rule checks, for a checklist or a hint: the reason it fails with and a short label.
///
/// `RuleCheck(reason: "tooShort", label: "at least 8 characters")`. Rules that only refuse
/// unusual input (`required`, control, invisible or compatibility characters) list none.
public struct RuleCheck: Sendable, Equatable, Hashable {
    /// The reason the rule fails with when this check does not pass, such as `needsDigit`.
    public var reason: String
    /// What the check asks for, in a few words: `a digit`.
    public var label: String

    /// A check failing with `reason`, described by `label`.
    public init(reason: String, label: String) {
        self.reason = reason
        self.label = label
    }
}

/// The values of a form's other fields, for rules that look across fields.
///
/// Read a field's typed value with its key: `context[password]`. Prints and mirrors without
/// the values of secret fields.
public struct RuleContext: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The current (normalized) text of every field, by name.
    public var values: [String: String]
    /// The names of the fields whose values are secrets: never printed.
    public var secretFields: Set<String>
    /// The values as their fields parsed them, by name (absent for a field that holds no value).
    var typedValues: [String: any Sendable] = [:]

    /// A context of `values`, of which those named in `secretFields` are secrets.
    public init(values: [String: String] = [:], secretFields: Set<String> = []) {
        self.values = values
        self.secretFields = secretFields
    }

    /// The value of the field of `key`, as its field parsed it; nil when it holds none (an empty
    /// number, a line that does not parse) or the context has no such field.
    public subscript<Value: AnswerValue>(key: FieldKey<Value>) -> Value? {
        if let typed = typedValues[key.name] { return typed as? Value }
        return values[key.name].flatMap(Value.init(answer:))
    }

    /// The value of the field of `key` that a UI set (no line stands for it); nil when the
    /// context has no such field.
    public subscript<Value: Equatable>(key: FieldKey<Value>) -> Value? {
        typedValues[key.name] as? Value
    }

    /// The values, secrets shown as `<redacted>`, in name order.
    public var description: String {
        let shown = values.keys.sorted().map { "\($0): " + (secretFields.contains($0) ? "<redacted>" : values[$0]!.debugDescription) }
        return "RuleContext(" + shown.joined(separator: ", ") + ")"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The values by name, secrets replaced by `<redacted>`.
    public var customMirror: Mirror {
        let shown = values.keys.sorted().map { (label: Optional($0), value: (secretFields.contains($0) ? "<redacted>" : values[$0]!) as Any) }
        return Mirror(self, children: shown, displayStyle: .struct)
    }
}

/// Whether `value` is empty: absent (an empty answer of a type that has no empty value, such as
/// a number), nil (an optional's), or an empty text or collection.
func isEmptyValue<Value>(_ value: Value?) -> Bool {
    guard let value else { return true }
    if let optional = value as? any OptionalValue { return isEmptyValue(optional.wrappedValue) }
    return (value as? any Collection)?.isEmpty ?? false
}

/// Whether `value` is a text (or an optional text) of white space alone, at least one character long.
func isWhiteSpaceOnly<Value>(_ value: Value?) -> Bool {
    guard let value else { return false }
    if let optional = value as? any OptionalValue { return isWhiteSpaceOnly(optional.wrappedValue) }
    guard let text = value as? String else { return false }
    return !text.isEmpty && text.allSatisfy(\.isWhitespace)
}

/// A check of one typed value that reports every way it fails, and lists what it checks.
///
/// `Value` is what the field holds once its line is parsed (`String`, `Int`, `Bool`, a choice) or
/// a UI set it. A rule is one of the families below, built with ``custom(_:message:label:referencing:where:)``
/// or ``init(checks:referencing:appliesWhenEmpty:check:)``, or a composition of rules.
///
/// **Empty values.** A rule says whether it applies to an empty value (an empty text or
/// collection, or no value at all): ``appliesWhenEmpty``. Only ``required(message:allowingWhiteSpace:)`` does by
/// default, so an empty answer reports only that it is required; `.minLength(8).applyingWhenEmpty()`
/// also fails on `""`. On a field whose type has no empty value (a number, yes/no), an empty
/// answer has no value at all: a rule of its own that applies then is passed nothing and passes.
///
/// **Composition.** A field reports every failure of its rules in order (``allFailures(_:)``);
/// ``firstFailure(_:)`` stops at the first rule that fails, ``byPriority(_:)`` reports only the
/// failing rules of the highest `priority` among those that fail.
public struct Rule<Value: Sendable>: Sendable {
    // Only `Sendable`, not `Equatable`: the rules that compare (`oneOf`, `equals`) ask for it
    // themselves. A requirement of the type is checked by the runtime when it first makes
    // `Rule<String>`, and each first check of a conformance scans every conformance record of
    // the program (about 236,000 instructions before the first prompt).
    /// The failures of a value (nil: an empty answer of a type with no empty value), applicability aside.
    private let body: @Sendable (Value?, RuleContext) -> [RuleFailure]
    /// Every failure, composition aside: what a checklist shows.
    private let every: @Sendable (Value?, RuleContext) -> [RuleFailure]
    /// What the rule checks, for a checklist: one entry per reason it can fail with that people design for.
    public let checks: [RuleCheck]
    /// The names of the fields whose values the rule reads (a confirmation reads its password); a
    /// form refuses, at creation, a rule reading a field it does not have.
    public let referencedFields: [String]
    /// Whether the rule checks an empty value (an empty text or collection, or none). False for
    /// every rule but ``required(message:allowingWhiteSpace:)`` unless made with ``applyingWhenEmpty(_:)``; a
    /// composition is true and leaves it to each of its rules.
    public let appliesWhenEmpty: Bool
    /// Its rank in ``byPriority(_:)``: higher first. 0 unless set with ``priority(_:)``.
    public let priority: Int
    /// Every reason it can fail with, or nil when that is not known (a rule made from a closure
    /// with ``init(checks:referencing:appliesWhenEmpty:check:)``): what a field's `messages:` may name.
    let reasons: Set<String>?

    init(
        checks: [RuleCheck], referencedFields: [String], appliesWhenEmpty: Bool, priority: Int = 0, reasons: Set<String>?,
        body: @escaping @Sendable (Value?, RuleContext) -> [RuleFailure],
        every: (@Sendable (Value?, RuleContext) -> [RuleFailure])? = nil
    ) {
        self.checks = checks
        self.referencedFields = referencedFields
        self.appliesWhenEmpty = appliesWhenEmpty
        self.priority = priority
        self.reasons = reasons
        self.body = body
        self.every = every ?? body
    }

    /// A rule from a closure that returns its failures for a value in its context, listing
    /// `checks` and reading the fields `referencing`. It sees an empty value only when
    /// `appliesWhenEmpty`.
    public init(
        checks: [RuleCheck] = [],
        referencing: [any FieldReference] = [],
        appliesWhenEmpty: Bool = false,
        check: @escaping @Sendable (_ value: Value, _ context: RuleContext) -> [RuleFailure]
    ) {
        self.init(checks: checks, referencedFields: referencing.map(\.name), appliesWhenEmpty: appliesWhenEmpty, reasons: nil) { value, context in
            value.map { check($0, context) } ?? []
        }
    }

    /// Every failure of `value`, in the rule's order (none for an empty value unless it ``appliesWhenEmpty``).
    public func validate(_ value: Value, in context: RuleContext = RuleContext()) -> [RuleFailure] {
        evaluate(value, in: context)
    }

    /// The failures of a field's value; nil is an empty answer of a type with no empty value.
    func evaluate(_ value: Value?, in context: RuleContext) -> [RuleFailure] {
        !appliesWhenEmpty && isEmptyValue(value) ? [] : body(value, context)
    }

    /// Every failure, each rule of a composition checked: what a checklist shows.
    func evaluateEvery(_ value: Value?, in context: RuleContext) -> [RuleFailure] {
        !appliesWhenEmpty && isEmptyValue(value) ? [] : every(value, context)
    }

    /// A rule that fails with `reason` and `message` when `predicate` is false for a non-empty
    /// value; with a `label` it lists that check.
    public static func custom(
        _ reason: String,
        message: String,
        label: String? = nil,
        referencing: [any FieldReference] = [],
        where predicate: @escaping @Sendable (_ value: Value, _ context: RuleContext) -> Bool
    ) -> Rule {
        Rule(
            checks: label.map { [RuleCheck(reason: reason, label: $0)] } ?? [], referencedFields: referencing.map(\.name),
            appliesWhenEmpty: false, reasons: [reason]
        ) { value, context in
            guard let value else { return [] }
            return predicate(value, context) ? [] : [RuleFailure(reason: reason, message: message)]
        }
    }

    /// Fails with `required` when the value is empty (an empty text or collection, or no value)
    /// or, unless `allowingWhiteSpace`, a text of white space alone (`"   "`), as FormsKit's
    /// `isNotEmpty` and Django's fields treat it. The other rules still see such a text: it is not
    /// empty to them.
    public static func required(message: String = Translation.english("This field is required"), allowingWhiteSpace: Bool = false) -> Rule {
        Rule(checks: [], referencedFields: [], appliesWhenEmpty: true, reasons: ["required"]) { value, _ in
            isEmptyValue(value) || (!allowingWhiteSpace && isWhiteSpaceOnly(value)) ? [RuleFailure(reason: "required", message: message)] : []
        }
    }

    /// The same rule, checking an empty value too when `applies` (see ``appliesWhenEmpty``).
    public func applyingWhenEmpty(_ applies: Bool = true) -> Rule {
        Rule(checks: checks, referencedFields: referencedFields, appliesWhenEmpty: applies, priority: priority, reasons: reasons, body: body, every: every)
    }

    /// The same rule ranked `level` in ``byPriority(_:)`` (higher first).
    public func priority(_ level: Int) -> Rule {
        Rule(checks: checks, referencedFields: referencedFields, appliesWhenEmpty: appliesWhenEmpty, priority: level, reasons: reasons, body: body, every: every)
    }

    /// The same rule with `text` as the message of every failure it reports. An empty `text` says
    /// nothing at a terminal (no bare `✗` line; the field is still asked again), and a script's
    /// error line gives the code instead.
    public func message(_ text: String) -> Rule {
        let (body, every) = (self.body, self.every)
        return Rule(
            checks: checks, referencedFields: referencedFields, appliesWhenEmpty: appliesWhenEmpty, priority: priority, reasons: reasons,
            body: { body($0, $1).map { RuleFailure(reason: $0.reason, message: text, spokenMessage: $0.spokenMessage) } },
            every: { every($0, $1).map { RuleFailure(reason: $0.reason, message: text, spokenMessage: $0.spokenMessage) } }
        )
    }

    /// The same rule with `text` as what a screen reader says for each failure it reports, in place
    /// of its message (``FieldError/accessibilityLabel``): `.containsSymbol().spoken("Add a symbol, such as an exclamation mark")`.
    public func spoken(_ text: String) -> Rule {
        let (body, every) = (self.body, self.every)
        let speak: @Sendable ([RuleFailure]) -> [RuleFailure] = { $0.map { RuleFailure(reason: $0.reason, message: $0.message, spokenMessage: text) } }
        return Rule(
            checks: checks, referencedFields: referencedFields, appliesWhenEmpty: appliesWhenEmpty, priority: priority, reasons: reasons,
            body: { speak(body($0, $1)) }, every: { speak(every($0, $1)) }
        )
    }

    /// The same rule with `text` as the label of each check it lists.
    public func label(_ text: String) -> Rule {
        Rule(
            checks: checks.map { RuleCheck(reason: $0.reason, label: text) }, referencedFields: referencedFields,
            appliesWhenEmpty: appliesWhenEmpty, priority: priority, reasons: reasons, body: body, every: every
        )
    }

    /// Every failure of every rule of `rules`, in order: what a field's list of rules does.
    public static func allFailures(_ rules: [Rule]) -> Rule {
        composed(rules) { value, context in rules.flatMap { $0.evaluate(value, in: context) } }
    }

    /// The failures of the first rule of `rules` that fails, and nothing of the rules after it:
    /// `.firstFailure([.required(), .email()])`.
    public static func firstFailure(_ rules: [Rule]) -> Rule {
        composed(rules) { value, context in
            for rule in rules {
                let failures = rule.evaluate(value, in: context)
                if !failures.isEmpty { return failures }
            }
            return []
        }
    }

    /// The failures of the failing rules of the highest `priority` among those that fail, in
    /// order: `.byPriority([.required().priority(2), .email().priority(1), .notCommon(…)])` reports
    /// a bad address before a weak one, never both.
    public static func byPriority(_ rules: [Rule]) -> Rule {
        composed(rules) { value, context in
            let failing = rules.map { ($0.priority, $0.evaluate(value, in: context)) }.filter { !$0.1.isEmpty }
            guard let top = failing.map(\.0).max() else { return [] }
            return failing.filter { $0.0 == top }.flatMap(\.1)
        }
    }

    private static func composed(_ rules: [Rule], body: @escaping @Sendable (Value?, RuleContext) -> [RuleFailure]) -> Rule {
        Rule(
            checks: rules.flatMap(\.checks), referencedFields: rules.flatMap(\.referencedFields), appliesWhenEmpty: true,
            reasons: rules.contains { $0.reasons == nil } ? nil : Set(rules.flatMap { $0.reasons ?? [] }), body: body, every: { value, context in rules.flatMap { $0.evaluateEvery(value, in: context) } }
        )
    }

    /// The labels of the checks of `rules`, joined for one line: `at least 8 characters, a digit`.
    public static func requirements(of rules: [Rule], leavingOut reasons: Set<String> = []) -> String {
        Translation.list(rules.flatMap(\.checks).filter { !reasons.contains($0.reason) }.map(\.label))
    }
}
