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

    @Option(help: ArgumentHelp("Read the password (both fields) from the first line of this file.", valueName: "path"))
    var passwordFile: String?

    @Option(help: ArgumentHelp("Read the password (both fields) from the first line of this file descriptor.", valueName: "n"))
    var passwordFd: Int32?

    @Option(help: ArgumentHelp("The account database (default: $SIGNUP_DB, else $XDG_DATA_HOME/signup/accounts.sqlite).", valueName: "path"))
    var db: String?

    @Option(help: ArgumentHelp("The password policy: standard, strict or nist.", valueName: "name"))
    var policy: String = "standard"

    @Option(help: ArgumentHelp("A JSON policy file (see the README).", valueName: "path"))
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

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        if passwordFile != nil && passwordFd != nil {
            throw UsageError("use only one of --password-file and --password-fd")
        }
        if policyFile != nil && policy != "standard" {
            throw UsageError("use only one of --policy and --policy-file")
        }
        // Before this process opens a descriptor of its own that `--password-fd N` could then
        // name: with 3 closed, the signal guard's pipe became descriptor 3 and was read forever.
        if let passwordFd, !PasswordSource.isInherited(passwordFd) {
            throw UsageError("the --password-fd descriptor is not open")
        }
        let passwordPolicy = try loadPolicy()
        let interactive = !noInteractive && isTerminal(0) && isTerminal(2)
        let conversation = Conversation(
            style: Style.detect(interactive: interactive, plain: plain, environment: environment),
            quiet: quiet
        )
        // Restores the terminal on signals (echo goes off for secrets in every mode) and lets
        // the store hold signals back while it writes.
        TerminalGuard.install()
        // Read with the guard in place: a signal while echo is off for a terminal source restores it.
        let source = try PasswordSource.resolve(
            file: passwordFile.map { RawArguments.value(of: "--password-file", parsed: $0) ?? Array($0.utf8) },
            fd: passwordFd,
            environment: EnvironmentPassword.taken
        )

        var presets: [String: String] = [:]
        var unreadable: [String: InputProblem] = [:]
        func preset(_ line: LineInput.Line, to fields: [String]) {
            for field in fields {
                switch line {
                case .text(let text): presets[field] = text
                case .unreadable(let problem): unreadable[field] = problem
                case .endOfInput: break
                }
            }
        }
        if let email {
            // The bytes as given: invalid UTF-8 is `email.invalidEncoding`, never repaired.
            preset(LineInput.judge(RawArguments.value(of: "--email", parsed: email) ?? Array(email.utf8)), to: [SignupForm.email])
        }
        if case .preset(let line) = source { preset(line, to: [SignupForm.password, SignupForm.confirm]) }
        let sharedLine = source == .standardInput ? ConfirmationFromPassword() : nil

        let estimator = StrengthEstimator.zxcvbn
        let form = SignupForm.make(policy: passwordPolicy, strength: estimator)
        var wizard = SignupWizard(
            form: form, mode: interactive ? .interactive : .script, strength: estimator,
            presets: presets, unreadablePresets: unreadable
        )
        let storePath = db ?? AccountStore.defaultPath(environment: environment)
        let submit = { (submission: Submission) in Self.store(submission, at: storePath, dryRun: dryRun) }

        let outcome: Outcome
        if interactive {
            // NO_COLOR, TERM=dumb and --plain mean no escape sequences at all, libedit's included.
            let session = TerminalSession(programName: "signup", escapeSequences: conversation.style.color)
            var talk = conversation
            talk.output = session.write
            let ask: (Prompt) -> WizardInput = { TerminalAnswers.read($0, from: session) }
            let runner = WizardRunner(ask: sharedLine?.wrap(ask) ?? ask, submit: submit, conversation: talk)
            outcome = runner.run(&wizard)
            session.close()
            TerminalGuard.restore()
        } else {
            let answers = ScriptAnswers(input: LineInput(fd: 0), conversation: conversation)
            let runner = WizardRunner(ask: sharedLine?.wrap(answers.read) ?? answers.read, submit: submit, conversation: conversation)
            outcome = runner.run(&wizard)
        }
        let status = Report(json: json, dryRun: dryRun, interactive: interactive, conversation: conversation, stdoutIsTerminal: isTerminal(1)).show(outcome)
        throw ExitCode(status)
    }

    private func loadPolicy() throws(UsageError) -> PasswordPolicy {
        guard let policyFile else {
            guard let policy = PasswordPolicy.builtIn[policy] else {
                throw UsageError("unknown --policy name: use standard, strict or nist, or --policy-file")
            }
            return policy
        }
        return try PolicyLoader.load(path: RawArguments.value(of: "--policy-file", parsed: policyFile) ?? Array(policyFile.utf8))
    }

    /// Hashes and stores one submission; a dry run checks the email against an existing database only.
    static func store(_ submission: Submission, at path: String, dryRun: Bool) -> SubmitResult {
        do throws(StoreError) {
            let hash = try PasswordHasher.hash(submission.password)
            if dryRun {
                let taken = try AccountStore.openExisting(path: path)?.isTaken(email: submission.email) ?? false
                return taken ? .emailTaken : .created(id: 0)
            }
            // From here a signal must not make the exit code lie: a committed account is reported
            // as created; a signal held back during a write that failed ends the process after it.
            TerminalGuard.holdSignals()
            do {
                let account = try AccountStore(path: path).create(email: submission.email, passwordHash: hash)
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
