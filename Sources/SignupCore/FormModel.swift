import Observation

/// A form a UI binds to: values, field states, visible errors, validity, dirtiness, the
/// submission and focus, each observable on its own.
///
/// It runs the same ``Form`` a terminal runner runs: declare the fields once and hand the form
/// to either. Every change goes through the form's rules (normalization, dependents reset,
/// deferred errors), then each property that changed, and only those, notifies what read it:
/// typing in one field redraws that field, not the whole form.
///
/// ```swift
/// @State var model = FormModel<Int64>(form: signUpForm)
/// TextField("Email", text: Binding(get: { model[Keys.email].text }, set: { model[Keys.email].text = $0 }))
/// ForEach(model[Keys.email].visibleErrors, id: \.code) { Text($0.message) }
/// Button("Create") { Task { await model.submit { form in try await api.create(form) } } }
///     .disabled(!model.canSubmit)
/// ```
@MainActor
@Observable
public final class FormModel<Success: Sendable> {
    /// One observable field of the model, in form order.
    public let fields: [FieldModel]
    /// Whether every field passes every rule: the submit gate.
    public private(set) var isValid = false
    /// Whether any field's value differs from its initial value: the value the model opened on
    /// (``init(form:existing:)``), or the value last submitted with success (a save makes what was
    /// saved the new starting point, so an edit screen that stays open has nothing to discard).
    public private(set) var isDirty = false
    /// Where the submission is.
    public private(set) var submission: SubmissionState = .initial
    /// Whether a submit now could pass the gate: every field passes, no submit is under way, and
    /// the form changed since the last successful submit. What a Save button's `disabled` reads:
    /// an edit screen that stays open is enabled again by the next change.
    public private(set) var canSubmit = false
    /// How long a field's value must stay unchanged, after the text binding changed it, before
    /// errors it did not show before become visible (zero, the default: at once). Errors that
    /// went away leave at once; a submit or ``validate()`` shows everything. A view then reads
    /// `visibleErrors` as it is, with no debounce of its own.
    public var errorSettling: Duration = .zero
    /// Whether a submit is under way. Stored apart from ``submission`` so that a view reading
    /// only this is not told when the submission moves between states in which it stays false
    /// (an edit after a failed submit).
    public private(set) var isSubmitting = false
    /// What the last successful submit returned.
    public private(set) var success: Success?
    /// Errors a submit put on the whole form rather than a field.
    public private(set) var formErrors: [FieldError] = []
    /// The name of the field that has the focus, or nil: move it with ``focus(on:)`` and ``clearFocus()``.
    public private(set) var focusedField: String?
    /// Whether a failed submit moves the focus to the first invalid field (on by default).
    public var focusesFirstInvalidFieldAfterFailedSubmit = true
    /// Whether leaving a changed form should be confirmed (on by default): see ``asksBeforeDiscarding``.
    public var confirmsDiscard = true

    @ObservationIgnored private var controller: SubmissionController
    /// Counts the changes of the form, so that a read of ``form`` is tracked.
    private var formChanges = 0
    /// The async checks of fields, by name, and how long a value must stay before its check runs.
    @ObservationIgnored private var checks: [String: (settling: Duration, check: Check)] = [:]
    /// The check under way (or waiting for its value to settle), by field name.
    @ObservationIgnored private var running: [String: Task<Void, Never>] = [:]
    /// The wait for a field's errors to settle (``errorSettling``), by field name.
    @ObservationIgnored private var settling: [String: Task<Void, Never>] = [:]

    /// An async check of a field beyond its rules (a server's "is this name free?"): given the
    /// form, it returns the errors to put on the field.
    public typealias Check = @MainActor (_ form: Form) async -> [FieldError]

    /// A model of `form`, with no field answered beyond what `form` already holds.
    public init(form: Form) {
        controller = SubmissionController(form: form)
        fields = form.fields.map { FieldModel(name: $0.name, label: $0.label, isSecret: $0.isSecret) }
        for field in fields { field.owner = self }
        synchronize()
    }

    /// The field of `key`. A key of a field the form lacks, or of a field of another type, stops
    /// the program (a programming error), as the form's own reads do.
    public subscript<Key: FieldReference>(key: Key) -> FieldModel {
        guard let field = fields.first(where: { $0.name == key.name }) else {
            preconditionFailure("no field of this form has the name given; its fields: \(fields.map(\.name).joined(separator: ", "))")
        }
        let source = controller.form[named: key.name]!
        precondition(source.valueType == ObjectIdentifier(Key.Value.self), "field \(key.name) holds \(source.valueTypeName), not \(Key.Value.self)")
        return field
    }

    /// Moves the focus to the field of `key`.
    public func focus(on key: some FieldReference) {
        setFocus(self[key].name)
    }

    /// Follows a focus the UI moved itself (a tap, Tab), by the field's name as a UI's focus state
    /// holds it (SwiftUI's `@FocusState var focused: String?`); nil takes it from every field.
    /// With ``focusedField`` read back into the UI, the focus is synced both ways. A name the
    /// form lacks stops the program (a programming error).
    public func focus(onFieldNamed name: String?) {
        if let name {
            precondition(fields.contains { $0.name == name }, "no field of this form has the name given; its fields: \(fields.map(\.name).joined(separator: ", "))")
        }
        setFocus(name)
    }

    /// Takes the focus from every field.
    public func clearFocus() {
        setFocus(nil)
    }

    /// Moves the focus, telling observers only when it moves.
    private func setFocus(_ name: String?) {
        if focusedField != name { focusedField = name }
    }

    /// Whether the field of `key` has the focus.
    public func isFocused(_ key: some FieldReference) -> Bool {
        focusedField == key.name
    }

    /// The form as it is now (what a submit would send). A view that reads it is told of every
    /// change to the model's form, whatever it read of it: a coarse read. Prefer the model's own
    /// properties (`model[key].isValid`, `.errors`, `.text`, ``value(_:)->Value?``), which tell only
    /// the views that read what changed.
    public var form: Form {
        _ = formChanges
        return controller.form
    }

    /// Whether leaving now should ask "Discard your changes?": only a changed form, and only when
    /// ``confirmsDiscard`` is on.
    public var asksBeforeDiscarding: Bool { confirmsDiscard && isDirty }

    /// Answers the field of `key` with a `line`, as a person typing it does.
    public func answer(_ key: some FieldReference, line: String) {
        controller.update { $0.answer(key, line: line) }
        synchronize()
    }

    /// Answers field `name` with `text`: a field model's binding.
    func answer(named name: String, with text: String) {
        let field = fields.first { $0.name == name }
        let shown = field.map { Set($0.visibleErrors.map(\.code)) }
        controller.update { $0.answer(named: name, with: text) }
        if let field, let shown, errorSettling > .zero { holdErrors(of: field, showing: shown) }
        synchronize()
        scheduleCheck(of: name)
    }

    /// Shows only the errors of `shown` on `field` until its value stays ``errorSettling`` long.
    private func holdErrors(of field: FieldModel, showing shown: Set<String>) {
        field.shownWhileSettling = shown
        settling[field.name]?.cancel()
        let wait = errorSettling
        settling[field.name] = Task { [weak field] in
            try? await Task.sleep(for: wait)
            guard !Task.isCancelled else { return }
            field?.shownWhileSettling = nil
        }
    }

    /// Ends every field's wait for its errors to settle: a submit or ``validate()`` shows them all.
    private func settleErrors() {
        for field in fields where field.shownWhileSettling != nil {
            settling[field.name]?.cancel()
            field.shownWhileSettling = nil
        }
    }

    /// Checks the field of `key` with `check` after each change once its value has stayed
    /// `settling` long and passes the field's own rules, as a terminal runner checks a wizard's
    /// `checkedFields` right after an answer. A change before the check ends cancels it (its
    /// result is dropped; the closure sees `Task.isCancelled`); meanwhile ``FieldModel/isChecking``
    /// is true, for a view's spinner. Its errors go on the field until the field changes.
    public func checking(_ key: some FieldReference, settling: Duration = .milliseconds(300), with check: @escaping Check) {
        checks[self[key].name] = (settling, check)
    }

    /// Runs the check of the field of `key` (see ``checking(_:settling:with:)``) now, without
    /// waiting for the value to settle, and returns when it is done; nothing when the field has
    /// none or fails its own rules.
    public func check(_ key: some FieldReference) async {
        let name = self[key].name
        running[name]?.cancel()
        await runCheck(of: name, settling: nil)
    }

    private func scheduleCheck(of name: String) {
        guard let settling = checks[name]?.settling, let field = fields.first(where: { $0.name == name }) else { return }
        running[name]?.cancel()
        // Pending from the change on, so a view shows "checking…" at once.
        setChecking(field, controller.form.errors(named: name).isEmpty)
        running[name] = Task { [weak self] in await self?.runCheck(of: name, settling: settling) }
    }

    private func runCheck(of name: String, settling: Duration?) async {
        guard let check = checks[name]?.check, let field = fields.first(where: { $0.name == name }) else { return }
        // A value that fails its own rules has nothing for the check to say.
        guard controller.form.errors(named: name).isEmpty else { return setChecking(field, false) }
        setChecking(field, true)
        if let settling { try? await Task.sleep(for: settling) }
        guard !Task.isCancelled else { return }
        let asked = controller.form
        let errors = await check(asked)
        // A change meanwhile made the answer stale: the change's own check speaks for it.
        guard !Task.isCancelled, controller.form.text(named: name) == asked.text(named: name) else { return }
        setChecking(field, false)
        if !errors.isEmpty { attach(errors) }
    }

    private func setChecking(_ field: FieldModel, _ checking: Bool) {
        if field.isChecking != checking { field.isChecking = checking }
    }

    /// Answers the field of `key` with a typed value.
    public func answer<Value: Equatable>(_ key: FieldKey<Value>, with value: Value) {
        controller.update { $0.answer(key, with: value) }
        synchronize()
    }

    /// The typed value of the field of `key`; nil when empty or not parsing.
    public func value<Value: Equatable>(_ key: FieldKey<Value>) -> Value? {
        // Read through the field so that a view reading it is told when it changes.
        _ = self[key].valueChanges
        return controller.form.value(key)
    }

    /// The value of the optional field of `key`; nil when it is empty or not parsing.
    public func value<Wrapped: Equatable>(_ key: FieldKey<Wrapped?>) -> Wrapped? {
        _ = self[key].valueChanges
        return controller.form.value(key)
    }

    /// Puts the field of `key` back to its initial value, unanswered.
    public func reset(_ key: some FieldReference) {
        controller.update { $0.reset(key) }
        synchronize()
    }

    /// A model of `form` opened on an existing record (an edit screen): each of `values` becomes
    /// its field's initial value, shown and kept, neither answered nor dirty, so ``isDirty`` says
    /// whether anything differs from the record. See ``Form/opening(on:)``.
    public convenience init(form: Form, existing values: [FieldPreset]) {
        self.init(form: form.opening(on: values))
    }

    /// Makes every field's errors visible, as a submit does, without submitting: what a "Check"
    /// button or leaving a page does. Returns whether every field passes; when one fails and
    /// ``focusesFirstInvalidFieldAfterFailedSubmit`` is on, the focus moves to the first that does.
    @discardableResult
    public func validate() -> Bool {
        settleErrors()
        controller.update { $0.markSubmitAttempted() }
        synchronize()
        if !isValid, focusesFirstInvalidFieldAfterFailedSubmit { setFocus(controller.form.firstInvalidField) }
        return isValid
    }

    /// Puts an error found outside the rules on the field of `key` (a server's answer, remapped
    /// from its own names to keys): shown at once, kept until the field changes, and the form is
    /// not valid meanwhile. The code is `name.reason`.
    public func addError(on key: some FieldReference, reason: String, message: String) {
        attach([FieldError(key, reason: reason, message: message)])
    }

    /// Puts errors found outside the rules on their fields, and errors of the whole form in
    /// ``formErrors``, as a submit's thrown ``FieldError``s are (see ``Form/attach(_:)``).
    public func attach(_ errors: [FieldError]) {
        for field in fields where errors.contains(where: { $0.field == field.name }) {
            settling[field.name]?.cancel()
            field.shownWhileSettling = nil
        }
        controller.update { $0.attach(errors) }
        synchronize()
    }

    /// Submits through the gate and runs `body` with the form that passed it.
    ///
    /// A field's async check (``checking(_:settling:with:)``) still pending or running is run to
    /// its end first, as a terminal runner checks an answer before its review: an error it finds
    /// refuses the submit like a rule's.
    ///
    /// Returns nil when the gate refused (a field fails, its check included: its errors become
    /// visible and, if ``focusesFirstInvalidFieldAfterFailedSubmit``, the focus moves there), a
    /// submit is already under way, or the last submit succeeded and no answer changed since (a
    /// double click; ``canSubmit`` is false then). A ``FieldError`` that `body` throws goes back
    /// on its field, a ``SubmissionFailure`` is the failure as it is, anything else is `unavailable`.
    @discardableResult
    public func submit(_ body: (Form) async throws -> Success) async -> Result<Success, SubmissionFailure>? {
        settleErrors()
        guard !isSubmitting, submission != .succeeded else { return nil }
        for field in fields where field.isChecking {
            running[field.name]?.cancel()
            await runCheck(of: field.name, settling: nil)
        }
        guard let attempt = controller.begin() else {
            synchronize()
            if case .failed = submission, focusesFirstInvalidFieldAfterFailedSubmit { setFocus(controller.fieldToRevisit) }
            return nil
        }
        synchronize()
        let result = await SubmissionController.perform(attempt, body)
        controller.finish(attempt, with: result)
        if case .success(let value) = result { success = value }
        synchronize()
        if case .failure = result, focusesFirstInvalidFieldAfterFailedSubmit, let invalid = controller.fieldToRevisit {
            setFocus(invalid)
        }
        return result
    }

    /// Copies what changed from the controller into the observable properties, and only that.
    private func synchronize() {
        formChanges &+= 1
        let form = controller.form
        for field in fields {
            guard let source = form[named: field.name] else { continue }
            field.take(
                source, state: form.state(named: field.name), errors: form.errors(named: field.name),
                isAnswered: source.isAnswered, isDirty: source.isDirty
            )
        }
        if isValid != form.isValid { isValid = form.isValid }
        if isDirty != form.isDirty { isDirty = form.isDirty }
        if submission != controller.state { submission = controller.state }
        if isSubmitting != (controller.state == .submitting) { isSubmitting = controller.state == .submitting }
        if canSubmit != controller.canSubmit { canSubmit = controller.canSubmit }
        if formErrors != form.formErrors { formErrors = form.formErrors }
    }
}

/// One field of a ``FormModel``: its text, what it shows and whether it changed.
///
/// Its text is never shown by `description`, `dump` or `Mirror`: a secret stays secret.
@MainActor
@Observable
public final class FieldModel: CustomStringConvertible, CustomReflectable {
    /// The stable name used in codes and JSON.
    public let name: String
    /// The words of its prompt.
    public let label: String
    /// Whether its value is a secret.
    public let isSecret: Bool
    /// What it shows: idle before an answer, then valid or invalid (or edited, before a submit).
    public private(set) var state: FieldState = .idle
    /// Whether it has been answered.
    public private(set) var isAnswered = false
    /// Whether its value differs from its initial value.
    public private(set) var isDirty = false
    /// Every error of its current value, visible or not (its rules, then errors put on it from
    /// outside): what a view that shows "this field passes" reads, tracked like every property.
    public private(set) var errors: [FieldError] = []
    /// Whether its current value passes every rule, whether or not its errors are visible yet.
    public var isValid: Bool { errors.isEmpty }
    /// Whether its async check (``FormModel/checking(_:settling:with:)``) is waiting or running for
    /// the current value: a view's "checking…".
    public internal(set) var isChecking = false
    private var storedText = ""
    /// Counts the changes of its value, a text's or one a UI set (which has no text): what a
    /// read of ``FormModel/value(_:)->Value?`` is tracked by.
    private(set) var valueChanges = 0
    /// The field as last taken, to tell whether its value changed.
    @ObservationIgnored private var shown: Field?

    @ObservationIgnored fileprivate weak var owner: AnyFormModel?

    init(name: String, label: String, isSecret: Bool) {
        self.name = name
        self.label = label
        self.isSecret = isSecret
    }

    /// The current answer, normalized by the field. Setting it answers the field through the
    /// form's rules (a binding's setter).
    public var text: String {
        get { storedText }
        set { owner?.answer(named: name, with: newValue) }
    }

    /// The errors it shows now: none before it is answered (deferred errors), and while its value
    /// settles (``FormModel/errorSettling``) only those it showed before the change.
    public var visibleErrors: [FieldError] {
        guard case .invalid(let errors) = state else { return [] }
        guard let shown = shownWhileSettling else { return errors }
        return errors.filter { shown.contains($0.code) }
    }
    /// The codes of the errors it may show while its value settles; nil once settled.
    var shownWhileSettling: Set<String>?

    fileprivate func take(_ source: Field, state: FieldState, errors: [FieldError], isAnswered: Bool, isDirty: Bool) {
        if shown.map({ !$0.holdsSameValue(as: source) }) ?? true { valueChanges &+= 1 }
        shown = source
        if storedText != source.value { storedText = source.value }
        if self.errors != errors { self.errors = errors }
        if self.state != state { self.state = state }
        if self.isAnswered != isAnswered { self.isAnswered = isAnswered }
        if self.isDirty != isDirty { self.isDirty = isDirty }
    }

    /// `FieldModel(name)`: never its text, so printing or logging a field from any thread shows
    /// no answer and no secret.
    nonisolated public var description: String { "FieldModel(\(name))" }

    /// Name, label and whether it is secret; never its text.
    nonisolated public var customMirror: Mirror {
        Mirror(self, children: ["name": name, "label": label, "isSecret": isSecret], displayStyle: .class)
    }
}

/// What a field model needs of its form model, whatever the form's success type.
@MainActor
fileprivate protocol AnyFormModel: AnyObject {
    func answer(named name: String, with text: String)
}

extension FormModel: AnyFormModel {}
