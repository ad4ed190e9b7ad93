// A program of forms needs one import: `import WizardTerminal` brings the core (Form, Field, rules,
// VisibleText) with it, so a three-line main.swift runs a form and prints its answer.
import Glibc
@_exported import SignupCore

extension Form {
    /// Runs this form as a program's whole conversation and returns what `submit` returned; on
    /// any other ending it prints why and exits the process with the outcome's code.
    ///
    /// ```swift
    /// let username = await form.runOrExit { form in try await directory.create(form.text(JoinKeys.username)) }
    /// print("Welcome, \(VisibleText.of(username))")
    /// ```
    ///
    /// It does what the long form (``TerminalRunner``, `Wizard`) does: a person at a terminal
    /// when standard input and standard error are terminals, a script otherwise; line editing, masked
    /// secrets, review, the signal guard (``TerminalGuard``) and the terminal restored on every
    /// path; NO_COLOR and plain mode; the translation of `options`; a `FieldError` thrown by
    /// `submit` back on its field. It never returns otherwise: the outcome's errors go to the conversation
    /// (``Conversation/showErrors(of:)``, and a script hears why a submit was unavailable), then
    /// the process exits with ``SignupCore/WizardOutcome/exitStatus``: 65 invalid, 66 input ended
    /// early (or no terminal could be opened), 1 declined, 130 cancelled, 69 unavailable.
    ///
    /// `confirmsDiscard`, `presets`, `afterAnswer` and `reviewValue` are the wizard's (`Wizard`'s
    /// parameters of those names, with the same defaults): false for `confirmsDiscard` ends the
    /// conversation at Ctrl-C without asking *Discard your answers?*; `reviewValue` shows a field
    /// otherwise in the review (a password's strength instead of "set").
    ///
    /// A submit that throws `SubmissionFailure.fields([...])` puts each of its errors back on its
    /// field at once (a person is asked those fields again, a script hears every error), as a
    /// single thrown `FieldError` does for one field.
    ///
    /// The wizard lives inside the call, so no `inout` variable of `main.swift` is ever passed to
    /// an `async` function (a top-level `var wizard` is a main-actor global Swift 6 refuses there).
    public func runOrExit<Success: Sendable>(
        _ options: RunnerOptions = RunnerOptions(programName: RunnerOptions.thisProgram),
        texts: WizardTexts = WizardTexts(),
        confirmsDiscard: Bool = true,
        presets: [FieldPreset] = [],
        afterAnswer: @escaping Wizard<Success>.AfterAnswer = { _, _ in [] },
        reviewValue: @escaping Wizard<Success>.ReviewValue = { _, _ in nil },
        isolation: isolated (any Actor)? = #isolation,
        submit: (Form) async throws -> Success
    ) async -> Success {
        await runOrExit(
            options, texts: texts, confirmsDiscard: confirmsDiscard, presets: presets, afterAnswer: afterAnswer,
            reviewValue: reviewValue, checking: [], isolation: isolation, check: { _, _ in [] }, submit: submit)
    }

    /// Runs this form as ``runOrExit(_:texts:confirmsDiscard:presets:afterAnswer:reviewValue:isolation:submit:)`` does, and
    /// checks each field of `checkedFields` with `check` right after its answer passes its rules
    /// (an availability lookup): a person hears the errors it returns at once and is asked again.
    ///
    /// ```swift
    /// let id = await form.runOrExit(checking: [JoinKeys.username]) { field, form in
    ///     await directory.isTaken(form.text(JoinKeys.username)) ? [FieldError(field: field, code: "username.taken", message: "That name is taken")] : []
    /// } submit: { form in
    ///     try await directory.create(form.text(JoinKeys.username))
    /// }
    /// ```
    public func runOrExit<Success: Sendable>(
        _ options: RunnerOptions = RunnerOptions(programName: RunnerOptions.thisProgram),
        texts: WizardTexts = WizardTexts(),
        confirmsDiscard: Bool = true,
        presets: [FieldPreset] = [],
        afterAnswer: @escaping Wizard<Success>.AfterAnswer = { _, _ in [] },
        reviewValue: @escaping Wizard<Success>.ReviewValue = { _, _ in nil },
        checking checkedFields: [any FieldReference],
        isolation: isolated (any Actor)? = #isolation,
        check: (_ field: String, _ form: Form) async -> [FieldError],
        submit: (Form) async throws -> Success
    ) async -> Success {
        let runner: TerminalRunner
        do {
            runner = try TerminalRunner(options)
        } catch {
            Conversation(style: .plain, quiet: false, fd: options.output, translation: options.translation)
                .error(Translation.english("cannot start line editing: {reason}", ["reason": "\(error)"]))
            exit(66)  // EX_NOINPUT: there is no terminal to read the answers from
        }
        var wizard = Wizard<Success>(
            form: self, mode: runner.mode, texts: texts, confirmsDiscard: confirmsDiscard, checkedFields: checkedFields,
            presets: presets, afterAnswer: afterAnswer, reviewValue: reviewValue)
        let outcome = await runner.run(&wizard, isolation: isolation, check: check, submit: submit)
        runner.close()
        if case .succeeded(let value) = outcome { return value }
        runner.conversation.showErrors(of: outcome)
        if case .unavailable(let reason) = outcome, runner.mode == .script { runner.conversation.error(texts.unavailable(reason)) }
        exit(outcome.exitStatus)
    }
}

extension WizardOutcome {
    /// The exit status a program gives this outcome, after sysexits(3): 0 succeeded, 65
    /// (`EX_DATAERR`) invalid, 66 (`EX_NOINPUT`) input ended before the form was complete, 1
    /// declined, 130 (128 + SIGINT) cancelled, 69 (`EX_UNAVAILABLE`) unavailable.
    public var exitStatus: Int32 {
        switch self {
        case .succeeded: 0
        case .invalid: 65
        case .incomplete: 66
        case .declined: 1
        case .cancelled: 130
        case .unavailable: 69
        }
    }
}

extension RunnerOptions {
    /// The name this process was started by, without its folder: the default program name.
    public static var thisProgram: String {
        let path = CommandLine.arguments.first ?? ""
        return path.split(separator: "/").last.map(String.init) ?? "wizard"
    }
}
