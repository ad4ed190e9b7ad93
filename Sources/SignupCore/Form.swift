/// A set of fields checked together: answers, deferred errors and the submit gate.
///
/// Fields are named by their ``FieldKey``s, so a misspelt or mistyped one does not compile.
/// Answering, resetting or reading through a key of a field this form does not have, or a rule or
/// dependency naming one, is a programming error that stops the program at once.
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
    ///
    /// A rule may read only fields asked before its own (a confirmation reads its password): a
    /// conversation asks fields in order, so a rule reading a later field would judge an answer
    /// against a field not answered yet and ask it for ever. Such a form stops the program when
    /// it is built; put the field the rule reads first.
    public init(fields: [Field]) {
        precondition(Set(fields.map(\.name)).count == fields.count, "field names must be unique")
        let names = Set(fields.map(\.name))
        for field in fields {
            for other in field.dependsOn + field.referencedFields {
                precondition(names.contains(other), "field \(field.name) names a field this form does not have")
            }
        }
        for (position, field) in fields.enumerated() {
            for other in field.referencedFields where other != field.name {
                precondition(
                    fields.firstIndex { $0.name == other }! < position,
                    "a rule of field \(field.name) reads field \(other), which is asked after it: put \(other) first"
                )
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

    /// The field of `key`, or nil when the form has none.
    public subscript(key: some FieldReference) -> Field? {
        self[named: key.name]
    }

    /// The field named `name`, or nil when the form has none.
    subscript(named name: String) -> Field? {
        fields.first { $0.name == name }
    }

    /// The same form opened on an existing record (an edit form): each of `values` becomes its
    /// field's initial value, normalized and parsed as an answer would be. It is on the line to
    /// edit (Enter keeps it), counts neither as answered nor as dirty, and ``reset(_:)`` goes
    /// back to it, so ``isDirty`` says whether anything differs from the record. A value that
    /// could not be read (``FieldPreset/unreadable(_:_:)``) or names a field this form lacks
    /// stops the program.
    public func opening(on values: [FieldPreset]) -> Form {
        var form = self
        for preset in values {
            let index = index(of: preset.name)
            switch preset.answer {
            case .line(let line):
                form.fields[index].open(on: form.fields[index].normalize(line), typed: nil)
            case .typed(let value):
                form.fields[index].open(on: "", typed: value)
            case .unreadable:
                preconditionFailure("an existing value of field \(preset.name) could not be read: it has no value to open on")
            }
            form.fields[index].isAnswered = false
        }
        return form
    }

    /// Makes every field's current value its initial one (a record just saved): nothing is
    /// dirty, and ``reset(_:)`` goes back to what was saved.
    mutating func keepValuesAsInitial() {
        for index in fields.indices { fields[index].keepAsInitial() }
    }

    /// The current value of every field, by name: what cross-field rules see.
    public var context: RuleContext {
        var context = RuleContext(
            values: Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0.value) }),
            secretFields: Set(fields.filter(\.isSecret).map(\.name))
        )
        for field in fields { if let value = field.typedValue { context.typedValues[field.name] = value } }
        return context
    }

    /// The current text of the field of `key` (normalized; "" when empty).
    public func text(_ key: some FieldReference) -> String {
        fields[index(of: key)].value
    }

    /// The current text of field `name`.
    func text(named name: String) -> String {
        fields[index(of: name)].value
    }

    /// The current value of the field of `key`, as parsed when it was answered or as a UI set it;
    /// nil when empty (for a type with no empty value) or not parsing.
    public func value<Value: Equatable>(_ key: FieldKey<Value>) -> Value? {
        fields[index(of: key)].typedValue as? Value
    }

    /// The current value of the optional field of `key`: nil when it is empty or not parsing.
    public func value<Wrapped: Equatable>(_ key: FieldKey<Wrapped?>) -> Wrapped? {
        fields[index(of: key)].typedValue as? Wrapped
    }

    /// Answers the field of `key` with a typed `value` (a UI's control): a value read from a line
    /// as if its text were typed, any other value as it is.
    public mutating func answer<Value: Equatable>(_ key: FieldKey<Value>, with value: Value) {
        let index = index(of: key)
        if let value = value as? any AnswerValue, fields[index].isAskable {
            return answer(named: fields[index].name, with: value.answerText)
        }
        let changed = fields[index].value(as: Value.self) != value
        fields[index].assign(typed: value)
        fields[index].isAnswered = true
        fields[index].externalErrors = []
        formErrors = []
        if changed { resetDependents(of: key.name) }
    }

    /// Answers the field of `key` with a `line` as typed, read as the field's type: a line that
    /// does not parse fails with the type's reason (`age.notAWholeNumber`).
    public mutating func answer(_ key: some FieldReference, line: String) {
        answer(named: fields[index(of: key)].name, with: line)
    }

    /// Answers field `name` with `text` (normalized by the field); fields that depend on it
    /// and have changed become unanswered again.
    mutating func answer(named name: String, with text: String) {
        let index = index(of: name)
        let value = fields[index].normalize(text)
        let changed = value != fields[index].value
        fields[index].assign(value)
        fields[index].isAnswered = true
        fields[index].isRejected = false
        fields[index].externalErrors = []
        formErrors = []
        if changed { resetDependents(of: name) }
    }

    /// Marks the field of `key` answered with an input that could not be read, shown as `errors`.
    public mutating func reject(_ key: some FieldReference, with errors: [FieldError]) {
        reject(named: fields[index(of: key)].name, with: errors)
    }

    mutating func reject(named name: String, with errors: [FieldError]) {
        let index = index(of: name)
        if !fields[index].value.isEmpty { resetDependents(of: name) }
        fields[index].assign("")
        fields[index].isAnswered = true
        fields[index].isRejected = true
        fields[index].externalErrors = errors
        formErrors = []
    }

    /// Makes the field of `key` unanswered again with its initial value, and with it the fields that depend on it.
    public mutating func reset(_ key: some FieldReference) {
        reset(named: fields[index(of: key)].name)
    }

    mutating func reset(named name: String) {
        let index = index(of: name)
        let changed = fields[index].isDirty || fields[index].isAnswered
        fields[index].restoreInitial()
        fields[index].isAnswered = false
        fields[index].isRejected = false
        fields[index].externalErrors = []
        if changed { resetDependents(of: name) }
    }

    /// Puts errors found outside the rules (by a submit) on their fields until those change;
    /// an error of the whole form (``FieldError/isFormLevel``) is kept in ``formErrors``.
    ///
    /// An error naming a field this form does not have is a misspelt name or a server's name
    /// not mapped to a key: a debug build stops there (`assertionFailure`); a release build keeps
    /// it in ``formErrors`` so that a person still sees it. Make field errors with a key
    /// (`FieldError(Keys.email, reason: "taken", message: …)`), and map a server's names to keys
    /// before they reach the form.
    public mutating func attach(_ errors: [FieldError]) {
        for error in errors {
            guard let index = fields.firstIndex(where: { $0.name == error.field }) else {
                // The name is not repeated (it may be outside text); the form's own are.
                assert(error.isFormLevel, "an error names a field this form does not have (\(error.field.count) characters); its fields: \(fields.map(\.name).joined(separator: ", "))")
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

    /// Every failing rule of the field of `key`, visible or not.
    public func errors(for key: some FieldReference) -> [FieldError] {
        errors(named: fields[index(of: key)].name)
    }

    func errors(named name: String) -> [FieldError] {
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

    /// Every check of the rules of the field of `key` and whether its current value passes it (a
    /// ✓/✗ checklist), without the checks failing with one of `reasons` (a limit no one reaches).
    public func checklist(for key: some FieldReference, leavingOut reasons: Set<String> = []) -> [CheckStatus] {
        fields[index(of: key)].checklist(in: context).filter { !reasons.contains($0.check.reason) }
    }

    /// What the field of `key` shows now: nothing before it is answered (deferred errors).
    public func state(of key: some FieldReference) -> FieldState {
        state(named: fields[index(of: key)].name)
    }

    /// `answerSpeaks`: a conversation's person who answered a field silent while empty (Enter on
    /// an empty line) hears its errors at once; a UI's binding answers on every keystroke, so a
    /// model keeps such a field silent until a submit.
    func state(named name: String, answerSpeaks: Bool = false) -> FieldState {
        let field = fields[index(of: name)]
        let visible = field.isAnswered || field.mode == .always || submitAttempted
        guard visible else { return .idle }
        if field.mode == .onSubmit && !submitAttempted { return .edited }
        // Invalid but silent while empty (a disabled button with no message), until a submit.
        if field.isSilentWhileEmpty && field.isEmpty && !submitAttempted && !(answerSpeaks && field.isAnswered) {
            return .edited
        }
        let failures = field.validate(in: context)
        return failures.isEmpty ? .valid : .invalid(failures)
    }

    /// The errors the field of `key` shows now; empty before it is answered.
    public func visibleErrors(for key: some FieldReference) -> [FieldError] {
        visibleErrors(named: fields[index(of: key)].name)
    }

    func visibleErrors(named name: String, answerSpeaks: Bool = false) -> [FieldError] {
        if case .invalid(let errors) = state(named: name, answerSpeaks: answerSpeaks) { return errors }
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
        firstFieldNeedingAnswer(answerSpeaks: false)
    }

    /// ``firstFieldNeedingAnswer``, with `answerSpeaks` as ``state(named:answerSpeaks:)`` takes it.
    func firstFieldNeedingAnswer(answerSpeaks: Bool) -> String? {
        fields.first { !$0.isAnswered || !visibleErrors(named: $0.name, answerSpeaks: answerSpeaks).isEmpty }?.name
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

    private func index<Key: FieldReference>(of key: Key) -> Int {
        let index = index(of: key.name)
        precondition(
            fields[index].valueType == ObjectIdentifier(Key.Value.self),
            "field \(key.name) holds \(fields[index].valueTypeName), not \(Key.Value.self)"
        )
        return index
    }

    private mutating func resetDependents(of name: String) {
        for dependent in fields where dependent.dependsOn.contains(name) && dependent.isAnswered {
            reset(named: dependent.name)
        }
    }
}
