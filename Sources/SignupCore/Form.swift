/// A set of fields checked together: answers, deferred errors and the submit gate.
///
/// Names are checked: answering, resetting or reading a field the form does not have, or a
/// rule or dependency naming one, is a programming error that stops the program at once.
public struct Form: Sendable {
    /// The fields in the order they are asked.
    public private(set) var fields: [Field]
    /// Whether a submit has been attempted (makes ``ValidationMode/onSubmit`` errors visible).
    public private(set) var submitAttempted = false
    /// Errors a submit put on the whole form rather than a field, kept until an answer changes
    /// the form or the next submit begins.
    public private(set) var formErrors: [FieldError] = []

    /// A form of `fields`, asked in this order. Field names must be unique, every field a rule
    /// reads or a field depends on must be one of them, and no field may depend on itself, even
    /// through others (it would be asked for ever).
    public init(fields: [Field]) {
        precondition(Set(fields.map(\.name)).count == fields.count, "field names must be unique")
        let names = Set(fields.map(\.name))
        for field in fields {
            for other in field.dependsOn + field.rules.flatMap(\.referencedFields) {
                precondition(names.contains(other), "field \(field.name) names a field this form does not have")
            }
        }
        let sources = Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0.dependsOn) })
        for field in fields {
            var seen: Set<String> = []
            var next = field.dependsOn
            while let name = next.popLast() {
                precondition(name != field.name, "field \(field.name) depends on itself")
                if seen.insert(name).inserted { next += sources[name] ?? [] }
            }
        }
        self.fields = fields
    }

    /// The field named `name`, or nil when the form has none.
    public subscript(name: String) -> Field? {
        fields.first { $0.name == name }
    }

    /// The current value of every field, by name: what cross-field rules see.
    public var context: RuleContext {
        RuleContext(
            values: Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0.value) }),
            secretFields: Set(fields.filter(\.isSecret).map(\.name))
        )
    }

    /// The current text of field `name` (normalized; "" when empty). An unknown name stops the program.
    public func text(_ name: String) -> String {
        fields[index(of: name)].value
    }

    /// The current answer of the field of `key` read as its type; nil when empty or not parsing.
    public func value<Value: AnswerValue>(_ key: FieldKey<Value>) -> Value? {
        let field = fields[index(of: key)]
        return field.value.isEmpty ? nil : Value(answer: field.value)
    }

    /// Answers field `name` with `text` (normalized by the field); fields that depend on it
    /// and have changed become unanswered again.
    public mutating func answer(_ name: String, with text: String) {
        let index = index(of: name)
        let value = fields[index].normalize(text)
        let changed = value != fields[index].value
        fields[index].value = value
        fields[index].isAnswered = true
        fields[index].isRejected = false
        fields[index].externalErrors = []
        formErrors = []
        if changed { resetDependents(of: name) }
    }

    /// Answers the field of `key` with a typed `value`.
    public mutating func answer<Value: AnswerValue>(_ key: FieldKey<Value>, with value: Value) {
        _ = index(of: key)
        answer(key.name, with: value.answerText)
    }

    /// Marks field `name` answered with an input that could not be read, shown as `errors`.
    public mutating func reject(_ name: String, with errors: [FieldError]) {
        let index = index(of: name)
        if !fields[index].value.isEmpty { resetDependents(of: name) }
        fields[index].value = ""
        fields[index].isAnswered = true
        fields[index].isRejected = true
        fields[index].externalErrors = errors
        formErrors = []
    }

    /// Makes field `name` unanswered again with its initial value, and with it the fields that depend on it.
    public mutating func reset(_ name: String) {
        let index = index(of: name)
        let changed = fields[index].value != fields[index].initialValue || fields[index].isAnswered
        fields[index].value = fields[index].initialValue
        fields[index].isAnswered = false
        fields[index].isRejected = false
        fields[index].externalErrors = []
        if changed { resetDependents(of: name) }
    }

    /// Puts errors found outside the rules (by a submit) on their fields until those change;
    /// an error of no field of this form (``FieldError/isFormLevel``, or a name it lacks) is kept
    /// in ``formErrors``.
    public mutating func attach(_ errors: [FieldError]) {
        for error in errors {
            guard let index = fields.firstIndex(where: { $0.name == error.field }) else {
                if !formErrors.contains(error) { formErrors.append(error) }
                continue
            }
            fields[index].isAnswered = true
            if !fields[index].externalErrors.contains(error) { fields[index].externalErrors.append(error) }
        }
    }

    /// Forgets the errors of the whole form (a new submit begins).
    public mutating func clearFormErrors() {
        formErrors = []
    }

    /// Records a submit attempt: from now on every field's errors are visible.
    public mutating func markSubmitAttempted() {
        submitAttempted = true
    }

    /// Every failing rule of field `name`, visible or not.
    public func errors(for name: String) -> [FieldError] {
        fields[index(of: name)].validate(in: context)
    }

    /// The failing rules of every field that has some, by field name: what blocks a submit.
    public var errors: [String: [FieldError]] {
        var result: [String: [FieldError]] = [:]
        let context = self.context
        for field in fields {
            let failures = field.validate(in: context)
            if !failures.isEmpty { result[field.name] = failures }
        }
        return result
    }

    /// Every check of field `name`'s rules and whether its current value passes it (a ✓/✗
    /// checklist), without the checks failing with one of `reasons` (a limit no one reaches).
    public func checklist(for name: String, leavingOut reasons: Set<String> = []) -> [CheckStatus] {
        fields[index(of: name)].checklist(in: context).filter { !reasons.contains($0.check.reason) }
    }

    /// What field `name` shows now: nothing before it is answered (deferred errors).
    public func state(of name: String) -> FieldState {
        let field = fields[index(of: name)]
        let visible = field.isAnswered || field.mode == .always || submitAttempted
        guard visible else { return .idle }
        if field.mode == .onSubmit && !submitAttempted { return .edited }
        let failures = field.validate(in: context)
        return failures.isEmpty ? .valid : .invalid(failures)
    }

    /// The errors field `name` shows now; empty before it is answered.
    public func visibleErrors(for name: String) -> [FieldError] {
        if case .invalid(let errors) = state(of: name) { return errors }
        return []
    }

    /// Whether every field passes every rule: the submit gate.
    public var isValid: Bool { firstInvalidField == nil }

    /// The name of the first field, in order, that fails a rule.
    public var firstInvalidField: String? {
        let context = self.context
        return fields.first { !$0.validate(in: context).isEmpty }?.name
    }

    /// The name of the first field, in order, that is unanswered or shows errors: where to go next.
    ///
    /// A field whose errors are not visible yet (``ValidationMode/onSubmit`` before a submit) keeps
    /// its answer: asking it again without its reasons would ask it for ever.
    public var firstFieldNeedingAnswer: String? {
        fields.first { !$0.isAnswered || !visibleErrors(for: $0.name).isEmpty }?.name
    }

    /// Whether any field's value differs from its initial value.
    public var isDirty: Bool { fields.contains { $0.isDirty } }

    private func index(of name: String) -> Int {
        guard let index = fields.firstIndex(where: { $0.name == name }) else {
            // The name is not repeated: arguments passed the wrong way round would put an answer here.
            preconditionFailure("no field of this form has the name given (\(name.count) characters); its fields: \(fields.map(\.name).joined(separator: ", "))")
        }
        return index
    }

    private func index<Value: AnswerValue>(of key: FieldKey<Value>) -> Int {
        let index = index(of: key.name)
        precondition(
            fields[index].valueType == ObjectIdentifier(Value.self),
            "field \(key.name) holds \(fields[index].valueTypeName), not \(Value.self)"
        )
        return index
    }

    private mutating func resetDependents(of name: String) {
        for dependent in fields where dependent.dependsOn.contains(name) && dependent.isAnswered {
            reset(dependent.name)
        }
    }
}
