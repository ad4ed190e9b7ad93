import SignupCore

/// Answers read line by line from a script: one line a question.
struct ScriptAnswers {
    let input: LineInput
    let conversation: Conversation

    /// Writes the prompt, reads a line, echoes it unless it is a secret, ends the line.
    func read<Success>(_ prompt: Prompt) -> WizardInput<Success> {
        // At a terminal (a script's lines typed there) echo is off for the whole run (see TerminalRunner).
        conversation.put(VisibleText.of(prompt.text))  // a label is the program's text, but made visible like every other
        let line = input.next()
        // The echo follows the field being answered, never where the line came from; what is
        // echoed is made visible, so a line cannot send escape sequences to the terminal.
        if case .text(let text) = line, !prompt.isSecret {
            // An empty line keeps the initial value: the log shows the value used.
            conversation.put(VisibleText.of(text.isEmpty ? prompt.initial : text))
        }
        conversation.put("\n")
        switch line {
        case .text(let text): return .answer(text)
        case .unreadable(let problem): return .unreadable(problem)
        case .endOfInput: return .endOfInput
        }
    }
}

/// What becomes of keys typed before a prompt appears.
enum TypeAhead {
    /// They answer it (the next field after an accepted answer).
    case answers
    /// They are thrown away: they were meant for something else.
    case discarded
    /// They are thrown away, and so is whatever comes until the input is quiet (after an error).
    case discardedUntilQuiet
}

/// Answers typed at a terminal: line editing for plain lines, masked entry for secrets.
enum TerminalAnswers {
    static func read<Success>(_ prompt: Prompt, typeAhead: TypeAhead, from session: TerminalSession) -> WizardInput<Success> {
        let isField = if case .field = prompt.question { true } else { false }
        switch typeAhead {
        case .answers: break
        case .discarded: session.discardTypeAhead()
        case .discardedUntilQuiet: session.discardTypeAhead(untilQuiet: true)
        }
        let text = VisibleText.of(prompt.text)  // a label with an escape sequence cannot drive the terminal
        let read = prompt.isSecret
            ? session.readSecret(prompt: text)
            : session.readLine(prompt: text, remember: isField && prompt.isRemembered, initial: prompt.initial)  // Up recalls answers, not "y" or "1"
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
