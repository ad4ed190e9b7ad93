import AccountStore
import ArgumentParser
import Foundation
import SignupCore
import Terminal

/// The wizard: asks, checks, reviews and creates the account.
struct CreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create an account (the default command)."
    )

    @Option(help: ArgumentHelp("Answer the email field.", valueName: "address"))
    var email: String?

    @Option(help: ArgumentHelp("Read the password (both fields) from the first line of this file.", valueName: "path"), completion: .file())
    var passwordFile: String?

    @Option(help: ArgumentHelp("Read the password (both fields) from the first line of this file descriptor.", valueName: "n"))
    var passwordFd: Int32?

    @Option(help: About.databaseHelp, completion: .file())
    var db: String?

    @Option(help: ArgumentHelp("The password policy: standard, strict or nist.", valueName: "name"), completion: .list(["standard", "strict", "nist"]))
    var policy: String = "standard"

    @Option(help: ArgumentHelp("A JSON policy file (see the README).", valueName: "path"), completion: .file())
    var policyFile: String?

    @Flag(help: "Print the result as one JSON object on standard output.")
    var json = false

    @Flag(help: "Write no conversation, only errors and the result.")
    var quiet = false

    @Flag(help: "ASCII only, no colour.")
    var plain = false

    @Flag(help: "Read answers from standard input even at a terminal.")
    var noInteractive = false

    @Flag(help: "Check everything, hash the password, but store nothing.")
    var dryRun = false

    func validate() throws {
        if passwordFile != nil && passwordFd != nil {
            throw ValidationError("use only one of --password-file and --password-fd")
        }
        if let passwordFd, passwordFd < 0 || !IO.isOpen(passwordFd) {
            throw ValidationError("--password-fd \(passwordFd) is not an open file descriptor")
        }
        if policyFile != nil && policy != "standard" {
            throw ValidationError("use only one of --policy and --policy-file")
        }
    }

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let location = try StoreOption.location(given: db)
        let passwordPolicy = try loadPolicy()
        let interactive = !noInteractive && isTerminal(0) && isTerminal(2)
        let conversation = Conversation(
            style: Style.detect(interactive: interactive, plain: plain, environment: environment),
            quiet: quiet
        )
        let stdin = LineInput(fd: 0)
        let report = Report(json: json, dryRun: dryRun, interactive: interactive, conversation: conversation, stdoutIsTerminal: isTerminal(1))
        // Restores the terminal on signals (echo goes off for secrets in every mode) and lets
        // the store hold signals back while it writes. A SIGINT while a script's line is awaited
        // or the password hashed still says that nothing was saved (and `cancelled` in JSON).
        TerminalGuard.install()
        TerminalGuard.prepareInterruptReport(conversation: report.cancellation.conversation, result: report.cancellation.result)

        var presets: [String: String] = [:]
        var unreadable: [String: InputProblem] = [:]
        if let email { presets[SignupForm.email] = email }
        switch try readPasswordPreset(environment: environment, stdin: stdin) {
        case .text(let password):
            presets[SignupForm.password] = password
            presets[SignupForm.confirm] = password
        case .unreadable(let problem):
            unreadable[SignupForm.password] = problem
            unreadable[SignupForm.confirm] = problem
        case .endOfInput:
            // An empty source is an empty answer: the password is required.
            presets[SignupForm.password] = ""
            presets[SignupForm.confirm] = ""
        case nil:
            break
        }

        let estimator = StrengthEstimator.zxcvbn
        let form = SignupForm.make(policy: passwordPolicy, strength: estimator)
        var wizard = SignupWizard(
            form: form, mode: interactive ? .interactive : .script, strength: estimator,
            presets: presets, unreadablePresets: unreadable
        )
        let quiet = quiet
        let submit = { (submission: Submission) in
            Self.store(submission, at: location, dryRun: dryRun, waiting: { if !quiet { IO.write($0 + "\n", to: 2) } })
        }

        let outcome: Outcome
        if interactive {
            // NO_COLOR, TERM=dumb and --plain mean no escape sequences at all, libedit's included.
            let session = TerminalSession(programName: "signup", escapeSequences: conversation.style.color)
            var talk = conversation
            talk.output = session.write
            let runner = WizardRunner(
                ask: { TerminalAnswers.read($0, discardTypeAhead: $1, from: session) }, submit: submit, conversation: talk)
            outcome = runner.run(&wizard)
            session.close()
            TerminalGuard.restore()
        } else {
            let answers = ScriptAnswers(input: stdin, conversation: conversation)
            let runner = WizardRunner(ask: answers.read, submit: submit, conversation: conversation)
            outcome = runner.run(&wizard)
        }
        let status = report.show(outcome)
        throw ExitCode(status)
    }

    private func loadPolicy() throws -> PasswordPolicy {
        guard let policyFile else {
            guard let policy = PasswordPolicy.builtIn[policy] else {
                throw ValidationError("unknown policy \"\(policy)\": use standard, strict or nist, or --policy-file")
            }
            return policy
        }
        return try PolicyLoader.load(path: policyFile)
    }

    /// The password from --password-file, --password-fd or SIGNUP_PASSWORD, read once.
    private func readPasswordPreset(environment: [String: String], stdin: LineInput) throws -> LineInput.Line? {
        if let passwordFile {
            let fd = open(passwordFile, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw ValidationError("--password-file \(passwordFile): \(IO.lastErrorText())")
            }
            defer { close(fd) }
            return LineInput(fd: fd).next()
        }
        if let passwordFd {
            let input = passwordFd == 0 ? stdin : LineInput(fd: passwordFd)
            return withEchoOff(passwordFd) { input.next() }
        }
        if let password = environment["SIGNUP_PASSWORD"] {
            IO.unsetEnvironment("SIGNUP_PASSWORD")
            return password.utf8.count > LineInput.limit ? .unreadable(.tooLong(limit: LineInput.limit)) : .text(password)
        }
        return nil
    }

    /// Hashes and stores one submission; a dry run checks the email against an existing database only.
    static func store(_ submission: Submission, at location: StoreLocation, dryRun: Bool,
                      waiting: @escaping @Sendable (String) -> Void = { _ in }) -> SubmitResult {
        do throws(StoreError) {
            let hash = try PasswordHasher.hash(submission.password)
            if dryRun {
                let taken = try location.openExisting()?.isTaken(email: submission.email) ?? false
                return taken ? .emailTaken : .created(id: 0)
            }
            // A write that takes longer than a moment is waiting for another writer's lock: say so.
            let notice = DispatchWorkItem { waiting("Waiting for the database: another program is writing to it…") }
            DispatchQueue.global().asyncAfter(deadline: .now() + 1, execute: notice)
            defer { notice.cancel() }
            do {
                // Until only the commit is left (the write lock is ours) a signal cancels: nothing is
                // stored. From then on it must not make the exit code lie: a committed account is
                // reported as created; a signal held back during a write that failed ends the process after it.
                let account = try location.openForWriting().create(
                    email: submission.email, passwordHash: hash, at: Date(), whenLocked: TerminalGuard.holdSignals)
                return .created(id: account.id)
            } catch {
                TerminalGuard.releaseSignals()
                throw error
            }
        } catch {
            switch error {
            case .emailTaken: return .emailTaken
            case .unavailable(let reason): return .unavailable(reason: reason)
            }
        }
    }
}
