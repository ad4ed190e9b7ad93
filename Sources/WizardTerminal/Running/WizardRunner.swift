import Glibc
import SignupCore

/// Where and how a wizard talks. The defaults: answers on standard input, the conversation on
/// standard error, a person when both are terminals, a script otherwise.
public struct RunnerOptions: Sendable {
    /// The program's name, for libedit.
    public var programName: String
    /// The descriptor answers are read from.
    public var input: Int32 = 0
    /// The descriptor the conversation is written to.
    public var output: Int32 = 2
    /// Whether a person answers at the controlling terminal (`/dev/tty`) instead of `input` and
    /// `output`: for `cat answers | tool`, where standard input is taken.
    public var controllingTerminal = false
    /// A person (true), a script (false), or nil: a person when `input` and `output` are terminals.
    public var interactive: Bool?
    /// ASCII only, no colour, no escape sequence at all, and each field's accessibility
    /// description instead of its label (`--plain`). A person at a dumb terminal gets the same; a
    /// pipe or a locale that is not UTF-8 gets ASCII, but the labels.
    public var plain = false
    /// Only errors and the lines questions need (`--quiet`).
    public var quiet = false
    /// `TERM`, `NO_COLOR`, the locale variables and the terminfo folders, by name.
    public var environment: [String: String]
    /// The reader's language for every prompt and line (`Translation.gettext(_:)` (SignupCore)); English by default.
    public var translation: Translation = .english

    /// Options for the program `programName`, reading the process's environment.
    public init(programName: String, environment: [String: String] = ProcessEnvironment.current()) {
        self.programName = programName
        self.environment = environment
    }
}

/// The process's environment variables, by name, without Foundation.
public enum ProcessEnvironment {
    /// Every variable of the process as it is now.
    public static func current() -> [String: String] {
        var variables: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
            if let equals = text.firstIndex(of: "=") {
                variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        return variables
    }
}

/// Runs a `Wizard` at a terminal or over a script's lines: shows its effects, reads the
/// answers (line editing, masked secrets, or one line a question), hands its submits to you
/// and returns its outcome.
///
/// ```swift
/// TerminalGuard.install()                      // signals restore the terminal; remove with uninstall()
/// let runner = try TerminalRunner(RunnerOptions(programName: "example"))
/// var wizard = Wizard<Int>(form: form, mode: runner.mode, texts: texts)
/// let outcome = runner.run(&wizard) { form in .succeeded(save(form)) }
/// runner.close()
/// ```
public final class TerminalRunner {
    /// Whether a person or a script answers.
    public let mode: WizardMode
    /// Where the conversation goes; write your own result lines through it.
    public private(set) var conversation: Conversation
    private let options: RunnerOptions
    private let session: TerminalSession?
    /// Whether this runner installed the signal guard (then ``close()`` removes it).
    private let installedGuard: Bool
    /// Plain mode, for a screen reader: `--plain` (``RunnerOptions/plain``), or a person at a
    /// dumb terminal. A pipe or a locale that is not UTF-8 is ASCII, but not plain mode.
    private let speaksPlainly: Bool

    /// Opens the conversation `options` describe: a line-editing session when a person answers.
    /// Throws when that session cannot start (no terminal, libedit failing): never a silent end of input.
    /// When it will change a terminal's mode, installs the signal guard (``TerminalGuard/install()``)
    /// unless the program did, so a signal always restores the terminal; ``close()`` removes what it installed.
    public init(_ options: RunnerOptions) throws(TerminalError) {
        let interactive = options.controllingTerminal
            || (options.interactive ?? (Sys.isTerminal(options.input) && Sys.isTerminal(options.output)))
        // Only a run that changes a terminal's mode needs the guard (pipes have none to restore).
        installedGuard = (interactive || Sys.isTerminal(options.input)) && !TerminalGuard.isInstalled
        if installedGuard { TerminalGuard.install() }
        self.options = options
        mode = interactive ? .interactive : .script
        speaksPlainly = options.plain || (interactive && !TerminalCapabilities.knowsTerminal(environment: options.environment))
        let style = WizardStyle.detect(interactive: interactive, plain: options.plain, environment: options.environment)
        var conversation = Conversation(style: style, quiet: options.quiet, fd: options.output, translation: options.translation)
        if interactive {
            // NO_COLOR, a dumb terminal and plain mean no escape sequences at all, libedit's included.
            let session: TerminalSession
            do {
                session = options.controllingTerminal
                    ? try TerminalSession.controllingTerminal(programName: options.programName, escapeSequences: style.color)
                    : try TerminalSession(
                        programName: options.programName, escapeSequences: style.color, input: options.input, output: options.output)
            } catch {
                if installedGuard { TerminalGuard.uninstall() }  // nothing of this runner stays behind
                throw error
            }
            conversation.output = session.write
            self.session = session
        } else {
            session = nil
        }
        self.conversation = conversation
    }

    /// Runs `wizard` (made with ``mode``) to its end. `submit` receives the form that passed the
    /// gate and says what became of it; `check` checks a field of the wizard's `checkedFields`
    /// right after its answer (an availability lookup) and returns the errors to put on it;
    /// `intercept` may answer a prompt instead of the reader (it gets the prompt and the read
    /// it replaces).
    public func run<Success>(
        _ wizard: inout Wizard<Success>,
        intercept: (Prompt, () -> WizardInput<Success>) -> WizardInput<Success> = { $1() },
        check: (_ field: String, _ form: Form) -> [FieldError] = { _, _ in [] },
        submit: (Form) -> SubmitResult<Success>
    ) -> WizardOutcome<Success> {
        precondition(wizard.mode == mode, "the wizard was made for another mode than this runner's")
        // No core file and no same-user debugger may hold a secret typed or piped here.
        if wizard.form.fields.contains(where: \.isSecret) { ProcessHardening.apply() }
        if let session {
            return loop(&wizard, intercept: intercept, check: check, submit: submit) { prompt, typeAhead in
                TerminalAnswers.read(prompt, typeAhead: typeAhead, from: session)
            }
        }
        // One reader for the descriptor, shared with the wizards after this one (ScriptInputs).
        let input = ScriptInputs.reader(for: options.input)
        defer { ScriptInputs.release(input) }
        let answers = ScriptAnswers(input: input, conversation: conversation)
        // A script's lines at a terminal: the terminal echoes nothing for the whole run, so no
        // line, typed ahead or pasted, is ever shown by it; text answers are echoed by the
        // script protocol itself, a secret never.
        return withEchoOff(options.input, echoingNewlines: false) {
            loop(&wizard, intercept: intercept, check: check, submit: submit) { prompt, _ in answers.read(prompt) }
        }
    }

    /// Ends line editing, puts the terminal back as it was and removes the signal guard if this
    /// runner installed it; safe to call twice.
    public func close() {
        session?.close()
        if installedGuard && TerminalGuard.isInstalled { TerminalGuard.uninstall() }
    }

    /// Runs `wizard` (made with ``mode``) to its end with an `async` check and submit.
    ///
    /// `check` checks a field of the wizard's `checkedFields` right after its answer (an
    /// availability lookup) and returns the errors to put on it; a person hears them at once and
    /// is asked again. `submit` returns the typed success; what it throws becomes the result:
    /// a `FieldError` (SignupCore) goes back on its field, a `SubmissionFailure` is
    /// taken as it is, anything else is "unavailable" with its description (a retry is offered).
    /// With ``TerminalGuard`` installed, Ctrl-C while either runs cancels the task they run in:
    /// a check cut short is an interrupt at its field (the discard question), a submit cut short
    /// ends the wizard `cancelled`, unless it finished anyway (then its result stands).
    /// Everything runs on the caller's actor (the main actor of a program): nothing need be `Sendable`.
    public func run<Success: Sendable>(
        _ wizard: inout Wizard<Success>,
        isolation: isolated (any Actor)? = #isolation,
        check: (_ field: String, _ form: Form) async -> [FieldError] = { _, _ in [] },
        submit: (Form) async throws -> Success
    ) async -> WizardOutcome<Success> {
        precondition(wizard.mode == mode, "the wizard was made for another mode than this runner's")
        if wizard.form.fields.contains(where: \.isSecret) { ProcessHardening.apply() }
        if let session {
            return await loop(&wizard, isolation: isolation, check: check, submit: submit) { prompt, typeAhead in
                TerminalAnswers.read(prompt, typeAhead: typeAhead, from: session)
            }
        }
        let input = ScriptInputs.reader(for: options.input)
        defer { ScriptInputs.release(input) }
        let answers = ScriptAnswers(input: input, conversation: conversation)
        return await withEchoOff(options.input, echoingNewlines: false, isolation: isolation) {
            await loop(&wizard, isolation: isolation, check: check, submit: submit) { prompt, _ in answers.read(prompt) }
        }
    }

    private func loop<Success>(
        _ wizard: inout Wizard<Success>,
        intercept: (Prompt, () -> WizardInput<Success>) -> WizardInput<Success>,
        check: (String, Form) -> [FieldError],
        submit: (Form) -> SubmitResult<Success>,
        ask: @escaping (Prompt, _ typeAhead: TypeAhead) -> WizardInput<Success>
    ) -> WizardOutcome<Success> {
        var pending = wizard.start()
        var turn = Turn()
        while !pending.isEmpty {
            switch pending.removeFirst() {
            case .check(let field, let form):
                pending.append(each: wizard.handle(.checked(field: field, errors: check(field, form))))
            case .submit(let form):
                turn.typeAheadMayAnswer = false
                pending.append(each: wizard.handle(.submitted(submit(form))))
            case .finish(let outcome):
                return outcome
            case let effect:
                if let input = carryOut(effect, &turn, intercept: intercept, ask: ask) { pending.append(each: wizard.handle(input)) }
            }
        }
        preconditionFailure("the wizard stopped without an outcome")
    }

    private func loop<Success: Sendable>(
        _ wizard: inout Wizard<Success>,
        isolation: isolated (any Actor)?,
        check: (String, Form) async -> [FieldError],
        submit: (Form) async throws -> Success,
        ask: @escaping (Prompt, _ typeAhead: TypeAhead) -> WizardInput<Success>
    ) async -> WizardOutcome<Success> {
        var pending = wizard.start()
        var turn = Turn()
        while !pending.isEmpty {
            switch pending.removeFirst() {
            case .check(let field, let form):
                let (errors, interrupted) = await Interruptible.run(isolation: isolation) { await check(field, form) }
                pending.append(each: wizard.handle(interrupted ? .interrupt : .checked(field: field, errors: errors)))
            case .submit(let form):
                turn.typeAheadMayAnswer = false
                let (result, interrupted) = await Interruptible.run(isolation: isolation) { await SubmissionController.run(form, isolation: isolation, submit) }
                switch result {
                case .success(let value): pending.append(each: wizard.handle(.submitted(.succeeded(value))))
                case .failure where interrupted: pending.append(each: wizard.handle(.interrupt))
                case .failure(.fields(let errors)): pending.append(each: wizard.handle(.submitted(.rejected(errors))))
                case .failure(.unavailable(let reason)): pending.append(each: wizard.handle(.submitted(.unavailable(reason: reason))))
                }
            case .finish(let outcome):
                return outcome
            case let effect:
                if let input = carryOut(effect, &turn, intercept: { $1() }, ask: ask) { pending.append(each: wizard.handle(input)) }
            }
        }
        preconditionFailure("the wizard stopped without an outcome")
    }

    /// Whether keys typed ahead may answer the next prompt: only when it is the next field after
    /// an accepted answer, with nothing but a note shown in between. After an error, a review, a
    /// notice or any question, what was typed before it was seen is discarded: it was meant for
    /// something else (a password typed after a bad email). Nor may keys typed during a secret
    /// answer a visible prompt: a password pasted once too often would be echoed there (the
    /// third copy of a pasted password landed in the example's Age).
    private struct Turn {
        var typeAheadMayAnswer = false
        var lastAnswerWasSecret = false
        /// An error was shown since the last prompt: an auto-typed `bad-email⏎password⏎` sends the
        /// password after it, in pieces, and it must not land in the email field asked again.
        var errorShown = false
    }

    /// Shows an effect, or asks its prompt and returns the answer; checks, submits and the
    /// finish are the loops' own.
    private func carryOut<Success>(
        _ effect: WizardEffect<Success>, _ turn: inout Turn,
        intercept: (Prompt, () -> WizardInput<Success>) -> WizardInput<Success>,
        ask: @escaping (Prompt, _ typeAhead: TypeAhead) -> WizardInput<Success>
    ) -> WizardInput<Success>? {
        switch effect {
        case .ask(var prompt):
            // Plain mode (a screen reader, --plain, TERM=dumb) says a field's accessibility description.
            if speaksPlainly, let spoken = prompt.spoken { prompt.text = spoken }
            // A question's letters are the translation's (`[J/n/ä]`); the wizard reads the English ones.
            let keys = prompt.isKeyed ? AnswerKeys(english: prompt.text, shown: conversation.translation(prompt.text)) : nil
            prompt.text = keys?.shown ?? conversation.translation(prompt.text)
            let isField = if case .field = prompt.question { true } else { false }
            TerminalGuard.setPromptOpen(!conversation.quiet)  // a fatal signal ends the prompt's line
            let typeAhead: TypeAhead = turn.errorShown ? .discardedUntilQuiet
                : turn.typeAheadMayAnswer && isField && (prompt.isSecret || !turn.lastAnswerWasSecret) ? .answers : .discarded
            turn.errorShown = false
            var input = intercept(prompt) { ask(prompt, typeAhead) }
            if let keys, case .answer(let text) = input { input = .answer(keys.englishAnswer(for: text)) }
            TerminalGuard.setPromptOpen(false)
            turn.typeAheadMayAnswer = isField && { if case .answer = input { true } else { false } }()
            turn.lastAnswerWasSecret = prompt.isSecret
            return input
        case .note, .hint:
            // Lines about the field just answered or about to be asked: keys typed ahead still answer.
            conversation.show(effect)
        case .errors:
            turn.typeAheadMayAnswer = false
            turn.errorShown = true
            conversation.show(effect)
        default:
            turn.typeAheadMayAnswer = false
            conversation.show(effect)
        }
        return nil
    }
}
