/// Why a submit did not succeed.
public enum SubmissionFailure: Error, Sendable, Equatable {
    /// Errors that belong to fields (the store's `email.taken`) or to the whole form
    /// (``FieldError/form(code:message:)``); they are put back on the form.
    case fields([FieldError])
    /// The submit could not be carried out (disk, lock, network), with a reason for people.
    case unavailable(reason: String)
}

/// Where a submission is: initial → submitting → succeeded | failed.
public enum SubmissionState: Sendable, Equatable {
    /// Nothing submitted yet, or the form changed since the last failure.
    case initial
    /// A submit is under way: another one is refused.
    case submitting
    /// The submit succeeded.
    case succeeded
    /// The gate or the submit failed, for this reason.
    case failed(SubmissionFailure)
}

/// One submit under way: the form as it passed the gate, and the ticket that finishes it.
public struct SubmitAttempt: Sendable, CustomStringConvertible {
    /// Which attempt this is; a result for an older one is ignored.
    public let number: Int
    /// The controller it belongs to: another controller ignores it.
    let controller: UInt64
    /// The form that passed the gate (its secrets print as `<redacted>`).
    public let form: Form

    /// `SubmitAttempt(number)`, without the form's values.
    public var description: String { "SubmitAttempt(\(number))" }
}

/// Runs a form through the submit gate and takes the submit's result back, safely in a UI:
/// a second submit while one runs is refused, and a result that belongs to no submit under
/// way (a stray, a late one, a second one) is ignored rather than trapping.
///
/// ```swift
/// guard let attempt = controller.begin() else { return }      // gate failed or one is running
/// let result = await SubmissionController.perform(attempt) { form in try await api.create(form) }
/// controller.finish(attempt, with: result)                    // thrown field errors go on their fields
/// ```
public struct SubmissionController: Sendable {
    /// The form being submitted, with any errors the submit put back on it.
    public private(set) var form: Form
    /// Where the submission is.
    public private(set) var state: SubmissionState = .initial
    private var attempts = 0
    /// Tells this controller's attempts from another's.
    private let identity = UInt64.random(in: 1...UInt64.max)

    /// A controller for `form`, in the initial state.
    public init(form: Form) {
        self.form = form
    }

    /// Passes the gate: when every field passes and no submit is under way, moves to
    /// `submitting` and returns the attempt to finish. Returns nil when a submit is already
    /// under way, or has succeeded and the form has not changed since (nothing changes: a double
    /// click after a fast submit is not a second one; an edit screen that stays open saves again
    /// once an answer changes), or when a field fails (the state says which errors).
    @discardableResult
    public mutating func begin() -> SubmitAttempt? {
        guard state != .submitting, state != .succeeded else { return nil }
        form.markSubmitAttempted()
        form.clearFormErrors()
        guard form.isValid else {
            state = .failed(.fields(form.fields.flatMap { form.errors(named: $0.name) }))
            return nil
        }
        attempts += 1
        state = .submitting
        return SubmitAttempt(number: attempts, controller: identity, form: form)
    }

    /// Records the result of `attempt`; field errors go on their fields, form errors into
    /// ``Form/formErrors``. After a success the submitted values become the form's initial
    /// values (an edit screen that stays open has saved them): ``Form/isDirty`` is false until
    /// the next change, and ``Form/reset(_:)`` goes back to them. Returns false, changing nothing, when `attempt` is not the submit
    /// under way (already finished, or an older one).
    @discardableResult
    public mutating func finish(_ attempt: SubmitAttempt, with result: Result<Void, SubmissionFailure>) -> Bool {
        guard state == .submitting, attempt.number == attempts, attempt.controller == identity else { return false }
        switch result {
        case .success:
            form.keepValuesAsInitial()  // what was saved is the new starting point: nothing to discard
            state = .succeeded
        case .failure(let failure):
            if case .fields(let errors) = failure { form.attach(errors) }
            state = .failed(failure)
        }
        return true
    }

    /// Records the result of `attempt` as ``finish(_:with:)-(_,Result<Void,SubmissionFailure>)``
    /// does, for a submit that returned a value (``perform(_:isolation:_:)``'s typed success).
    @discardableResult
    public mutating func finish<Output>(_ attempt: SubmitAttempt, with result: Result<Output, SubmissionFailure>) -> Bool {
        finish(attempt, with: result.map { _ in () })
    }

    /// Runs an `async` submit of the attempt's form on the caller's actor (the main actor of a
    /// UI: no `@Sendable` needed) and returns what it returned (an account's id, a server's
    /// answer), typed. What it throws becomes the failure: a ``SubmissionFailure`` as
    /// it is, a ``FieldError`` as that field's error, a cancelled task as `unavailable` "the
    /// submit was cancelled", anything else as `unavailable` with its description. Nothing is
    /// held while it runs, so the controller stays usable (and refuses a second submit) meanwhile.
    public static func perform<Output>(
        _ attempt: SubmitAttempt,
        isolation: isolated (any Actor)? = #isolation,
        _ submit: (Form) async throws -> Output
    ) async -> Result<Output, SubmissionFailure> {
        await run(attempt.form, submit)
    }

    /// Runs an `async` submit of `form` and turns what it throws into a ``SubmissionFailure``, as
    /// ``perform(_:isolation:_:)`` does, for a caller that keeps no controller (a runner).
    public static func run<Output>(
        _ form: Form,
        isolation: isolated (any Actor)? = #isolation,
        _ submit: (Form) async throws -> Output
    ) async -> Result<Output, SubmissionFailure> {
        do {
            return .success(try await submit(form))
        } catch let failure as SubmissionFailure {
            return .failure(failure)
        } catch let error as FieldError {
            return .failure(.fields([error]))
        } catch is CancellationError {
            return .failure(.unavailable(reason: "the submit was cancelled"))
        } catch {
            return .failure(.unavailable(reason: "\(error)"))
        }
    }

    /// Changes the form between submits (the person answers again); refused (returns false)
    /// while a submit is under way, so what is submitted is what passed the gate. A change after
    /// a failure or a success puts the state back to `initial`: the changed form may be submitted.
    @discardableResult
    public mutating func update(_ change: (inout Form) -> Void) -> Bool {
        guard state != .submitting else { return false }
        let before = state == .succeeded ? form : nil
        change(&form)
        if case .failed = state { state = .initial }
        if let before, form.fields.indices.contains(where: { !form.fields[$0].holdsSameValue(as: before.fields[$0]) }) { state = .initial }
        return true
    }

    /// Whether a submit now could pass the gate: the form is valid, no submit is under way, and
    /// the form changed since the last success (what a Save button's `disabled` reads).
    public var canSubmit: Bool { state != .submitting && state != .succeeded && form.isValid }

    /// The field to return to: the first invalid one, or nil when there is none.
    public var fieldToRevisit: String? { form.firstInvalidField }
}

extension FieldError: Error {}
