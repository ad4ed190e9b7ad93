import SignupCore
import WizardTerminal

/// Answers read from standard input, one line a question (SPEC 6).
struct ScriptAnswers {
    let input: LineInput
    let conversation: Conversation

    /// Writes the prompt, reads a line, echoes it unless it is a secret, ends the line.
    func read(_ prompt: Prompt, discardTypeAhead: Bool) -> WizardInput {
        // At a terminal (--no-interactive) echo is off for the whole run (see CreateCommand).
        conversation.put(prompt.text)
        let line = input.next()
        // The echo follows the field being answered, never where the line came from; what is
        // echoed is made visible, so a line cannot send escape sequences to the terminal.
        if case .text(let text) = line, !prompt.isSecret {
            conversation.put(VisibleText.of(text))
        }
        conversation.put("\n")
        switch line {
        case .text(let text): return .answer(text)
        case .unreadable(let problem): return .unreadable(problem)
        case .endOfInput: return .endOfInput
        }
    }
}

/// Answers typed at a terminal: libedit for plain lines, masked entry for secrets.
enum TerminalAnswers {
    static func read(_ prompt: Prompt, discardTypeAhead: Bool, from session: TerminalSession) -> WizardInput {
        let isField = if case .field = prompt.question { true } else { false }
        if discardTypeAhead { session.discardTypeAhead() }
        let read = prompt.isSecret
            ? session.readSecret(prompt: prompt.text)
            : session.readLine(prompt: prompt.text, remember: isField, initial: prompt.initial)  // Up recalls emails, not "y" or "1"
        switch read {
        case .unreadable(let problem):
            return .unreadable(problem)
        case .line(let text):
            if text.utf8.count > LineInput.limit { return .unreadable(.tooLong(limit: LineInput.limit)) }
            if text.utf8.contains(0) { return .unreadable(.nulByte) }
            return .answer(text)
        case .endOfInput:
            return .endOfInput
        case .interrupted:
            return .interrupt
        }
    }
}
