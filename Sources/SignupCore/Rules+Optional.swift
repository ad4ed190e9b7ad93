/// Rules for an optional value (`FieldKey<Int?>`): the wrapped type's rules, applied when a value is there.
///
/// An empty answer is nil, and only ``Rule/required(message:allowingWhiteSpace:)`` (or a rule made to apply when
/// empty) fails it: `rules: [.required(), .range(13...120)]` on an `Int?` field.
extension Rule {
    /// The rule `rule` of the wrapped type, checking the value when there is one:
    /// `.ifPresent(.minLength(3))` on a `String?` field. nil is empty, and passes unless `rule`
    /// applies when empty (``appliesWhenEmpty``).
    public static func ifPresent<Wrapped>(_ rule: Rule<Wrapped>) -> Rule where Value == Wrapped? {
        Rule(
            checks: rule.checks, referencedFields: rule.referencedFields, appliesWhenEmpty: rule.appliesWhenEmpty, priority: rule.priority,
            reasons: rule.reasons,
            body: { value, context in rule.evaluate(value ?? nil, in: context) },
            every: { value, context in rule.evaluateEvery(value ?? nil, in: context) }
        )
    }

    /// Fails with `outOfRange` unless the value, when there is one, lies in `range` (inclusive):
    /// ``Rule/range(_:message:)-(ClosedRange<Value>,_)`` of the wrapped type.
    public static func range<Wrapped: Comparable>(_ range: ClosedRange<Wrapped>, message: String? = nil) -> Rule where Value == Wrapped? {
        ifPresent(Rule<Wrapped>.range(range, message: message))
    }
}
