/// Why a submit did not succeed.
public enum SubmissionFailure: Error, Sendable, Equatable {
    /// Errors that belong to fields (the store's `email.taken`); they are put back on the form.
    case fields([FieldError])
    /// The submit could not be carried out (disk, lock, permissions), with a reason for people.
    case unavailable(reason: String)
}

/// Where a submission is: initial → submitting → succeeded | failed.
public enum SubmissionState: Sendable, Equatable {
    case initial
    case submitting
    case succeeded
    case failed(SubmissionFailure)
}

/// Runs a form through the submit gate and takes the submit's result back.
public struct SubmissionController: Sendable {
    /// The form being submitted, with any errors the submit put back on it.
    public private(set) var form: Form
    /// Where the submission is.
    public private(set) var state: SubmissionState = .initial

    /// A controller for `form`, in the initial state.
    public init(form: Form) {
        self.form = form
    }

    /// Passes the gate: returns true and moves to `submitting` when every field passes;
    /// otherwise fails with the form's errors and returns false.
    public mutating func begin() -> Bool {
        form.markSubmitAttempted()
        guard form.isValid else {
            state = .failed(.fields(form.fields.flatMap { form.errors(for: $0.name) }))
            return false
        }
        state = .submitting
        return true
    }

    /// Records the submit's result; field errors are attached to their fields.
    public mutating func finish(_ result: Result<Void, SubmissionFailure>) {
        precondition(state == .submitting, "finish(_:) without a submit under way")
        switch result {
        case .success:
            state = .succeeded
        case .failure(let failure):
            if case .fields(let errors) = failure { form.attach(errors) }
            state = .failed(failure)
        }
    }

    /// Changes the form between submits (the person answers again).
    public mutating func update(_ change: (inout Form) -> Void) {
        change(&form)
        if case .failed = state { state = .initial }
    }

    /// The field to return to: the first invalid one, or nil when there is none.
    public var fieldToRevisit: String? { form.firstInvalidField }
}
