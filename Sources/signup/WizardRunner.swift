import SignupCore

/// Runs the wizard: shows its effects, reads answers, stores the account, and returns the outcome.
///
/// The two closures are the seams: where answers come from (a terminal or a script) and
/// where accounts go (the store, or nowhere in a dry run).
struct WizardRunner {
    /// Shows a prompt and reads the answer to it.
    var ask: (Prompt) -> WizardInput
    /// Stores a submission and says what happened.
    var submit: (Submission) -> SubmitResult
    /// Where output-only effects go.
    var conversation: Conversation

    func run(_ wizard: inout SignupWizard) -> Outcome {
        var pending = wizard.start()
        while !pending.isEmpty {
            let effect = pending.removeFirst()
            switch effect {
            case .ask(let prompt):
                pending += wizard.handle(ask(prompt))
            case .submit(let submission):
                pending += wizard.handle(.submitted(submit(submission)))
            case .finish(let outcome):
                return outcome
            default:
                conversation.show(effect)
            }
        }
        preconditionFailure("the wizard stopped without an outcome")
    }
}
