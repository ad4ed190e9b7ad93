import SignupCore
import WizardTerminal

/// Runs the wizard: shows its effects, reads answers, stores the account, and returns the outcome.
///
/// The two closures are the seams: where answers come from (a terminal or a script) and
/// where accounts go (the store, or nowhere in a dry run).
struct WizardRunner {
    /// Shows a prompt and reads the answer to it. The flag says whether keys typed before the
    /// prompt appeared must be thrown away (see ``typeAheadMayAnswer``).
    var ask: (Prompt, _ discardTypeAhead: Bool) -> WizardInput
    /// Stores a submission and says what happened.
    var submit: (Submission) -> SubmitResult
    /// Where output-only effects go.
    var conversation: Conversation

    func run(_ wizard: inout SignupWizard) -> Outcome {
        var pending = wizard.start()
        // Whether keys typed ahead may answer the next prompt: only when it is the next field
        // after an accepted answer, with nothing but the strength shown in between. After an
        // error, a review, a notice or any question, what was typed before it was seen is
        // discarded: it was meant for something else (a password typed after a bad email).
        var typeAheadMayAnswer = false
        while !pending.isEmpty {
            let effect = pending.removeFirst()
            switch effect {
            case .ask(let prompt):
                let isField = if case .field = prompt.question { true } else { false }
                TerminalGuard.setPromptOpen(!conversation.quiet)  // a fatal signal ends the prompt's line
                let input = ask(prompt, !(typeAheadMayAnswer && isField))
                TerminalGuard.setPromptOpen(false)
                typeAheadMayAnswer = isField && { if case .answer = input { true } else { false } }()
                pending += wizard.handle(input)
            case .submit(let submission):
                typeAheadMayAnswer = false
                pending += wizard.handle(.submitted(submit(submission)))
            case .finish(let outcome):
                return outcome
            case .strength:
                conversation.show(effect)
            default:
                typeAheadMayAnswer = false
                conversation.show(effect)
            }
        }
        preconditionFailure("the wizard stopped without an outcome")
    }
}
