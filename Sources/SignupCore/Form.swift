/// A set of fields checked together: answers, deferred errors and the submit gate.
public struct Form: Sendable {
    /// The fields in the order they are asked.
    public private(set) var fields: [Field]
    /// Whether a submit has been attempted (makes ``ValidationMode/onSubmit`` errors visible).
    public private(set) var submitAttempted = false

    /// A form of `fields`, asked in this order. Field names must be unique.
    public init(fields: [Field]) {
        precondition(Set(fields.map(\.name)).count == fields.count, "field names must be unique")
        self.fields = fields
    }

    /// The field named `name`.
    public subscript(name: String) -> Field? {
        fields.first { $0.name == name }
    }

    /// The current value of every field, by name: what cross-field rules see.
    public var context: RuleContext {
        RuleContext(values: Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0.value) }))
    }

    /// Answers field `name` with `text` (normalized by the field); fields that depend on it
    /// and have changed become unanswered again.
    public mutating func answer(_ name: String, with text: String) {
        guard let index = index(of: name) else { return }
        let value = fields[index].normalize(text)
        let changed = value != fields[index].value
        fields[index].value = value
        fields[index].isAnswered = true
        fields[index].isDirty = fields[index].isDirty || changed || !value.isEmpty
        fields[index].isRejected = false
        fields[index].externalErrors = []
        if changed { resetDependents(of: name) }
    }

    /// Marks field `name` answered with an input that could not be read, shown as `errors`.
    public mutating func reject(_ name: String, with errors: [FieldError]) {
        guard let index = index(of: name) else { return }
        if !fields[index].value.isEmpty { resetDependents(of: name) }
        fields[index].value = ""
        fields[index].isAnswered = true
        fields[index].isDirty = true
        fields[index].isRejected = true
        fields[index].externalErrors = errors
    }

    /// Makes field `name` unanswered and empty again, and with it the fields that depend on it.
    public mutating func reset(_ name: String) {
        guard let index = index(of: name) else { return }
        let hadValue = !fields[index].value.isEmpty
        fields[index].value = ""
        fields[index].isAnswered = false
        fields[index].isRejected = false
        fields[index].externalErrors = []
        if hadValue { resetDependents(of: name) }
    }

    /// Puts errors found outside the rules (by a submit) on their fields until those change.
    public mutating func attach(_ errors: [FieldError]) {
        for error in errors {
            guard let index = index(of: error.field) else { continue }
            fields[index].isAnswered = true
            if !fields[index].externalErrors.contains(error) { fields[index].externalErrors.append(error) }
        }
    }

    /// Records a submit attempt: from now on every field's errors are visible.
    public mutating func markSubmitAttempted() {
        submitAttempted = true
    }

    /// Every failing rule of field `name`, visible or not.
    public func errors(for name: String) -> [FieldError] {
        self[name]?.validate(in: context) ?? []
    }

    /// The failing rules of every field that has some, by field name: what blocks a submit.
    public var errors: [String: [FieldError]] {
        var result: [String: [FieldError]] = [:]
        for field in fields {
            let failures = field.validate(in: context)
            if !failures.isEmpty { result[field.name] = failures }
        }
        return result
    }

    /// What field `name` shows now: nothing before it is answered (deferred errors).
    public func state(of name: String) -> FieldState {
        guard let field = self[name] else { return .idle }
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

    /// The name of the first field, in order, that is unanswered or fails a rule: where to go next.
    public var firstFieldNeedingAnswer: String? {
        let context = self.context
        return fields.first { !$0.isAnswered || !$0.validate(in: context).isEmpty }?.name
    }

    /// Whether any field has been given a value.
    public var isDirty: Bool { fields.contains { $0.isDirty } }

    private func index(of name: String) -> Int? {
        fields.firstIndex { $0.name == name }
    }

    private mutating func resetDependents(of name: String) {
        for dependent in fields where dependent.dependsOn.contains(name) && dependent.isAnswered {
            reset(dependent.name)
        }
    }
}
