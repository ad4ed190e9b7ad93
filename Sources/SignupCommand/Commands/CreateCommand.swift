import AccountStore
import ArgumentParser
import FoundationEssentials
import PasswordStrength
import SignupCore
import WizardTerminal

/// The wizard: asks, checks, reviews and creates the account.
struct CreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: About.english("Create an account (the default command)."),
        discussion: About.english("""
            In a script, a password read from standard input (--password-fd 0, /dev/stdin, or a \
            duplicate of standard input) needs --email: otherwise a line meant as the password could \
            be taken for the email and echoed. Without --email this is a usage error (64) that names \
            the options, never the input.
            --public is for a sign-up open to strangers (an SSH forced command: see docs/public-signup.md). \
            Each question must be answered within --idle-timeout seconds (60), the whole session ends after \
            --session-limit seconds (600), one field may be answered 5 times and the session holds 25 answers \
            of any kind; reaching a limit says so on one line, stores nothing and exits 75. Ctrl-Z does \
            nothing. The limits never interrupt the writing of an account.
            --prove-address (and --public, unless public.prove-address = no) mails a 6-digit code to the \
            address through mail.command right after the email, asks for it, and stores the account only once \
            it matches; it is valid for 10 minutes. Exit 75, nothing stored, when the mail cannot be sent, the \
            code expired or 5 wrong codes were typed. With --public an address that has an account is asked for \
            a code all the same, and its owner is mailed a notice instead: the stranger cannot tell.
            """)
    )

    @OptionGroup var options: CreateOptions

    func run() throws {
        try options.run()
    }
}

/// The options of `signup create`, the default command; ``CompletionTree`` offers them at the top level too.
struct CreateOptions: ParsableArguments {
    @Option(help: .english("Answer the email field.", value: Translation.english("address")))
    var email: String?

    @OptionGroup var passwordOptions: PasswordOptions

    @Flag(help: .english("Check everything, hash the password, but store nothing."))
    var dryRun = false

    @Flag(help: .english("A stranger's sign-up (an SSH forced command): time and attempt limits, no job control."))
    var `public` = false

    @Flag(inversion: .prefixedNo, help: .english("Mail a code to the address and ask for it before the account is stored (default: with --public, public.prove-address, else no)."))
    var proveAddress: Bool? = nil

    @Option(help: .english("With --public: seconds to answer one question (default: public.answer-seconds, else 60).", value: Translation.english("seconds")))
    var idleTimeout: Int?

    @Option(help: .english("With --public: seconds for the whole session (default: public.session-seconds, else 600).", value: Translation.english("seconds")))
    var sessionLimit: Int?

    @Option(help: .english("With --public: accounts one client address may create per --limit-window (default: public.per-client, else 3).", valueName: "n"))
    var limitPerClient: Int?

    @Option(help: .english("With --public: accounts all strangers together may create per --limit-window (default: public.overall, else 30).", valueName: "n"))
    var limitOverall: Int?

    @Option(help: .english("With --public: the window of both limits, in seconds (default: public.limit-window, else 3600).", value: Translation.english("seconds")))
    var limitWindow: Int?

    func run() throws {
        let limits = [idleTimeout, sessionLimit, limitPerClient, limitOverall, limitWindow]
        if !`public` && limits.contains(where: { $0 != nil }) {
            throw UsageError(.english("--idle-timeout, --session-limit and the --limit- options go with --public"))
        }
        if limits.contains(where: { ($0 ?? 1) < 1 || ($0 ?? 1) > 1_000_000_000 }) {
            throw UsageError(.english("--idle-timeout, --session-limit and the --limit- options take a whole number from 1 to 1000000000"))
        }
        var run = passwordOptions.run
        run.email = email
        run.dryRun = dryRun
        run.proveAddress = proveAddress
        // Each limit not given comes from the configuration (public.*), else its default.
        run.publicOptions = `public` ? CreateRun.PublicOptions(
            idle: idleTimeout, session: sessionLimit, perClient: limitPerClient, overall: limitOverall, window: limitWindow
        ) : nil
        try run.run()
    }
}

/// How a new password is given and checked, and how the result is shown: `create` and `passwd` alike.
struct PasswordOptions: ParsableArguments {
    @Option(help: .english("Read the password (both fields) from the first line of this file.", value: Translation.english("path")), completion: .file())
    var passwordFile: String?

    @Option(help: .english("Read the password (both fields) from the first line of this file descriptor.", valueName: "n"))
    var passwordFd: Int32?

    @Option(help: About.databaseHelp, completion: .file())
    var db: String?

    @Option(help: About.configHelp, completion: .file())
    var config: String?

    // Optional, not defaulted: `--policy standard --policy-file F` names two policies.
    @Option(help: .english("The password policy: standard, strict or nist (default: signup.conf's policy or policy-file, else standard).", value: Translation.english("name")), completion: .list(["standard", "strict", "nist"]))
    var policy: String?

    @Option(help: .english("A JSON policy file (its format: man signup-policy).", value: Translation.english("path")), completion: .file())
    var policyFile: String?

    @Flag(help: .english("Print the result as one JSON object on standard output."))
    var json = false

    @Flag(help: .english("Write no conversation, only errors and the result."))
    var quiet = false

    @Flag(help: .english("No colour, no escape sequences, no symbols: error lines start with error:."))
    var plain = false

    @Flag(help: .english("Read answers from standard input even at a terminal."))
    var noInteractive = false

    /// The run these options describe, with no email and no dry run.
    var run: CreateRun {
        CreateRun(
            passwordFile: passwordFile, passwordFd: passwordFd, db: db, config: config, policy: policy,
            policyFile: policyFile, json: json, quiet: quiet, plain: plain, noInteractive: noInteractive
        )
    }
}

/// The command tree the shell completions are generated from (`signup --generate-completion-script`):
/// signup's own, with the default command's options at the top level as well, because `signup
/// --db PATH` is `signup create --db PATH`. swift-argument-parser's generators offer a default
/// subcommand's options only after its name; this tree is never run.
struct CompletionTree: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signup",
        version: About.version,
        subcommands: Signup.configuration.subcommands
    )

    @OptionGroup var options: CreateOptions
}

/// What `signup create` does, its options as plain values whose defaults are the options'.
///
/// The everyday command lines of `create` (none at all, `--db PATH`, `--json`...) are read by
/// ``init(everydayArguments:)`` without the argument parser (see `Signup.main`). Every other
/// command line goes through the parser.
struct CreateRun {
    var email: String? = nil
    var passwordFile: String? = nil
    var passwordFd: Int32? = nil
    var db: String? = nil
    /// `--config`: the one configuration file to read, instead of the user's and the system's.
    var config: String? = nil
    /// `--policy`, nil when not given (the standard policy, unless `--policy-file`).
    var policy: String? = nil
    var policyFile: String? = nil
    var json = false
    var quiet = false
    var plain = false
    var noInteractive = false
    var dryRun = false
    /// `signup passwd EMAIL`: the account whose password this run changes, instead of creating one.
    var changing: String? = nil
    /// `signup reset`: a forgotten password, given back once a code mailed to the address matches.
    var resetting = false
    /// `--prove-address`: mail a code and ask for it (with `--public`, the configuration's `public.prove-address` decides when not given).
    var proveAddress: Bool? = nil
    /// The limits of `--public` given as options (nil: the configuration's, else the defaults); nil for an ordinary run.
    var publicOptions: PublicOptions? = nil

    /// `--idle-timeout`, `--session-limit`, `--limit-per-client`, `--limit-overall` and `--limit-window` as given.
    struct PublicOptions {
        var idle: Int?, session: Int?, perClient: Int?, overall: Int?, window: Int?
    }

    /// `--policy`'s default.
    static let standardPolicy = "standard"

    func run() throws {
        let environment = IO.environment()
        if dryRun { AuditLog.silence() }
        if passwordFile != nil && passwordFd != nil {
            throw UsageError(.english("use only one of --password-file and --password-fd"))
        }
        if policyFile != nil && policy != nil {
            throw UsageError(.english("use only one of --policy and --policy-file"))
        }
        // Before this process opens a descriptor of its own that `--password-fd N` could then
        // name: with 3 closed, the signal guard's pipe became descriptor 3 and was read forever.
        if let passwordFd, !PasswordSource.isInherited(passwordFd) {
            throw UsageError(.english("the --password-fd descriptor is not open"))
        }
        let settings = try Settings.load(config: config)
        if resetting && publicOptions != nil { AuditLog.refuseAsReset() }
        let location = try settings.location(given: db).value
        let passwordPolicy = try settings.policy(named: policy, file: policyFile).policy
        let publicSession = publicOptions.map {
            settings.publicSession(idle: $0.idle, session: $0.session, perClient: $0.perClient, overall: $0.overall, window: $0.window)
        }
        // Proof of the address: --prove-address, and public mode unless public.prove-address = no.
        // A public session mails a taken address's owner even without a proof.
        var mailing = changing == nil && (resetting || proveAddress == true || publicSession != nil) ? ProofFlow(settings: settings, isPublic: publicSession != nil) : nil
        mailing?.isReset = resetting
        if let publicSession { mailing?.counted = (PublicSession.clientAddress(), publicSession.limits, location) }
        // A reset always proves the address, whatever public.prove-address says.
        let flow = resetting || (proveAddress ?? (publicSession != nil && settings.proveAddress.value)) ? mailing : nil
        var options = RunnerOptions(programName: "signup", environment: environment)
        options.translation = .signup
        options.plain = plain
        options.quiet = quiet
        if noInteractive { options.interactive = false }
        let interactive = options.interactive ?? (isTerminal(0) && isTerminal(2))
        let conversation = Conversation(
            style: WizardStyle.detect(interactive: interactive, plain: plain, environment: environment), quiet: quiet,
            translation: options.translation
        )
        var report = Report(json: json, dryRun: dryRun, interactive: interactive, conversation: conversation, stdoutIsTerminal: isTerminal(1))
        report.changing = changing != nil || resetting
        // A database path that can never be used (planted, replaceable, a folder) is said at once,
        // not after a person typed every answer and then could only give up at "Try again?".
        do throws(StoreError) {
            try location.checkBeforeAsking()
        } catch {
            var early = report
            early.interactive = false
            throw ExitCode(early.show(.unavailable(reason: error.description)))
        }
        // A password is asked only for an account that exists, in a database that exists.
        if let changing { try Self.checkAccount(SignupForm.normalizeEmail(changing), at: location) }
        // Restores the terminal on signals (echo goes off for secrets in every mode) and lets
        // the store hold signals back while it writes. A SIGINT while a script's line is awaited
        // or the password hashed still says that nothing was saved (and `cancelled` in JSON).
        if publicSession != nil { PublicSession.ignoreJobControl() }
        TerminalGuard.install()
        TerminalGuard.prepareInterruptReport(conversation: report.cancellation.conversation, result: report.cancellation.result)
        // Read with the guard in place: a signal while echo is off for a terminal source restores it.
        let source = try PasswordSource.resolve(
            file: passwordFile.map { RawArguments.value(of: "--password-file", parsed: $0) ?? Array($0.utf8) },
            fd: passwordFd,
            environment: EnvironmentPassword.taken
        )

        var presets: [FieldPreset] = []
        func preset(_ line: LineInput.Line, to fields: [FieldKey<String>]) {
            for field in fields {
                switch line {
                case .text(let text): presets.append(.line(field, text))
                case .unreadable(let problem): presets.append(.unreadable(field, problem))
                case .endOfInput: break
                }
            }
        }
        if let changing {
            presets.append(.line(SignupForm.email, changing))
        } else if let email {
            // The bytes as given: invalid UTF-8 is `email.invalidEncoding`, never repaired.
            preset(LineInput.judge(RawArguments.value(of: "--email", parsed: email) ?? Array(email.utf8)), to: [SignupForm.email])
        }
        if case .preset(let line) = source { preset(line, to: [SignupForm.password, SignupForm.confirm]) }
        // In a script, the lines of standard input are not seen being asked for: with the password
        // among them, a line taken for the email (and echoed as the email is) could be the password.
        if source == .standardInput && !interactive && email == nil {
            throw UsageError(.english("with the password on standard input (--password-fd 0, or a --password-file that is standard input), give the email with --email"))
        }
        // The code is a line of standard input too: the password's line could be taken for it, and echoed.
        if source == .standardInput && flow != nil {
            throw UsageError(.english("with the password on standard input, no code can be asked for the address: give the password with --password-file or --password-fd N"))
        }
        let sharedLine = source == .standardInput ? ConfirmationFromPassword() : nil
        if !interactive && (email == nil || !presets.contains { $0.name == SignupForm.password.name })
            && IO.standardInputIsAFolder {
            throw UsageError(.english("standard input is a folder: give the answers in a file or a pipe"))
        }

        let estimator = StrengthEstimator.zxcvbn
        options.interactive = interactive
        let runner = try TerminalStart.runner(options, json: json, hint: options.translation(Translation.english("Nothing was saved. Run with --no-interactive to answer line by line.")))
        let isSQLite = if case .sqlite = location { true } else { false }
        let form = SignupForm.make(policy: passwordPolicy, strength: estimator)
        if let flow, let email, case .text(let text) = LineInput.judge(RawArguments.value(of: "--email", parsed: email) ?? Array(email.utf8)) {
            // An email given as an option is never answered in the conversation: its code is mailed now,
            // when the rules accept it (else the conversation reports it and mails nothing).
            var probe = form
            probe.answer(SignupForm.email, line: text)
            if probe.errors(for: SignupForm.email).isEmpty {
                let errors = Self.proveEmail(probe.text(SignupForm.email), flow: flow, at: location)
                if !errors.isEmpty {
                    runner.close()
                    if interactive { TerminalGuard.restore() }
                    throw ExitCode(report.show(.invalid(errors)))
                }
            }
        }
        var wizard = SignupForm.wizard(
            form: flow.map { $0.proof.form(around: form) } ?? form, mode: runner.mode,
            strength: estimator, presets: presets,
            texts: resetting ? ResetCommand.texts : changing.map { SignupForm.passwordChangeTexts(email: VisibleText.of(SignupForm.normalizeEmail($0))) } ?? SignupForm.texts,
            // A taken email is said right after the email, before a password is typed for nothing; the
            // store still refuses it at commit, where two runs can race. Not with --public: a stranger
            // would learn which addresses have accounts for one line each, without a hash's cost. Nor
            // on PostgreSQL: a server that is down or stalls would hold the person after the email
            // for its timeouts (10 s to connect, 45 s an answer), and again at the commit.
            // A script hears every error at the end anyway: it is not made to open the store twice.
            // With a proof of the address, the check mails the code (or, in public mode, a taken
            // address's owner a notice: the same conversation follows).
            checkedFields: (interactive && changing == nil && publicSession == nil && isSQLite) || flow != nil ? [SignupForm.email] : []
        )
        let quiet = quiet
        let changing = changing
        let translation = options.translation
        let answer: (Prompt, () -> WizardInput<CreatedAccount>) -> WizardInput<CreatedAccount> = sharedLine?.intercept ?? { $1() }
        let publicSignup = publicSession.map { (origin: PublicSession.clientAddress(), limits: $0.limits) }
        let outcome = runner.run(&wizard, intercept: { prompt, read in
            let input = publicSession.map { session in session.read(prompt) { answer(prompt, read) } } ?? answer(prompt, read)
            if let flow, prompt.question == .field(AddressProof.field.name), case .answer(let text) = input { flow.judge(text) }
            return input
        }, check: { _, form in
            guard let flow else { return Self.takenEmail(in: form, at: location) }
            return Self.proveEmail(form.text(SignupForm.email), flow: flow, at: location)
        }) { form in
            let submission = SignupForm.submission(from: form, strength: estimator)
            if resetting { return ResetCommand.reset(submission, at: location, costs: passwordPolicy.argon2) }
            if let changing {
                // passwd EMAIL changes EMAIL's password only, whatever the review's edit made of the field.
                guard AccountStore.key(forEmail: submission.email) == AccountStore.key(forEmail: SignupForm.normalizeEmail(changing)) else {
                    return .rejected([FieldError(field: SignupForm.email.name, code: "email.notThisAccount", message: Translation.english(
                        "This changes the password of {email} only: enter that address", ["email": VisibleText.of(SignupForm.normalizeEmail(changing))]))])
                }
                return Self.changePassword(submission, at: location, costs: passwordPolicy.argon2)
            }
            return Self.store(submission, at: location, dryRun: dryRun, costs: passwordPolicy.argon2, public: publicSignup, notifier: mailing,
                              waiting: { if !quiet { IO.write(translation($0) + "\n", to: 2) } })
        }
        runner.close()
        if interactive { TerminalGuard.restore() }
        let status = report.show(outcome)
        if publicSession != nil {
            // A stranger who leaves before the end: one line, as a limit would write.
            switch outcome {
            case .cancelled: AuditLog.refuse(.endedEarly(how: "cancelled"))
            case .incomplete: AuditLog.refuse(.endedEarly(how: "input ended"))
            default: break
            }
        }
        if publicSession != nil, case .succeeded = outcome, !dryRun, !resetting {
            // A stranger's account waits for an administrator (signup list --state pending, signup enable).
            IO.write(translation(Translation.english("An administrator must enable the account before you can sign in.")) + "\n", to: 2)
        }
        if changing != nil, case .invalid(let errors) = outcome, errors.contains(SignupForm.emailUnknown) {
            throw ExitCode(ExitStatus.noAccount)
        }
        throw ExitCode(status)
    }


    /// `email.taken` when an account at `location` has the form's email; nothing when none has, or
    /// when the store cannot say now (the commit reports a store that is unavailable).
    private static func takenEmail(in form: Form, at location: StoreLocation) -> [FieldError] {
        do throws(StoreError) {
            guard let store = try location.openExisting(), try store.isTaken(email: form.text(SignupForm.email)) else { return [] }
            return [SignupForm.emailTaken]
        } catch {
            return []
        }
    }

    /// Mails `email` its code; in public mode, when an account has it (whatever its state), its owner
    /// a notice instead, and no code will match: the stranger hears what a free address hears.
    /// Outside public mode a taken address is `email.taken` at once, and nothing is mailed.
    static func proveEmail(_ email: String, flow: ProofFlow, at location: StoreLocation) -> [FieldError] {
        var taken = false
        do throws(StoreError) {
            if !flow.isReset, let store = try location.openExisting() { taken = try store.isTaken(email: email) }
        } catch {
            taken = false  // the commit reports a store that is unavailable
        }
        if flow.isReset {
            // The same conversation whatever the address is: only an active account's gets a code.
            flow.mail(email, notice: ResetCommand.canReset(email, at: location) ? nil : .resetImpossible)
            return []
        }
        if taken && !flow.isPublic { return [SignupForm.emailTaken] }
        flow.mail(email, notice: taken ? .alreadyRegistered : nil)
        return []
    }

    /// Exit 69 when there is no database at `location`, 67 when no account there has `email`.
    private static func checkAccount(_ email: String, at location: StoreLocation) throws {
        let store: (any AccountBackend)?
        let found: Bool
        do throws(StoreError) {
            store = try location.openExisting()
            found = try store?.isTaken(email: email) ?? false
        } catch {
            throw AccountAccess.failure(error)
        }
        guard store != nil else { throw AccountAccess.noDatabase(location) }
        guard found else { throw AccountAccess.failure(.noAccount) }
    }

    /// Hashes the submission's password and makes it the account's, in one transaction.
    static func changePassword(_ submission: Submission, at location: StoreLocation, costs: PasswordPolicy.Argon2Costs,
                               recorded change: (String) -> AuditLog.Change = { .passwordChanged(email: $0) }) -> SubmitResult<CreatedAccount> {
        do throws(StoreError) {
            let hash = try PasswordHasher.hash(submission.password, costs: costs)
            guard let store = try location.openExistingForWriting() else {
                return .unavailable(reason: "there is no account database at \(location.visible) any more")
            }
            do {
                try store.changePassword(email: submission.email, to: hash, at: Date(), whenLocked: TerminalGuard.holdSignals)
            } catch {
                TerminalGuard.releaseSignals()
                throw error
            }
            AuditLog.record(change(submission.email))
            return .succeeded(submission.created(id: 0))
        } catch {
            switch error {
            case .noAccount, .emailTaken: return .rejected([SignupForm.emailUnknown])
            case .unavailable(let reason), .limitReached(let reason): return .unavailable(reason: reason)
            }
        }
    }

    /// Hashes and stores one submission; a dry run rehearses the write (a taken email, a store that would refuse it).
    static func store(_ submission: Submission, at location: StoreLocation, dryRun: Bool, costs: PasswordPolicy.Argon2Costs = .standard,
                      public publicSignup: (origin: String, limits: SignupLimits)? = nil, notifier: ProofFlow? = nil,
                      waiting: @escaping @Sendable (String) -> Void = { _ in }) -> SubmitResult<CreatedAccount> {
        do throws(StoreError) {
            let hash = try PasswordHasher.hash(submission.password, costs: costs)
            if dryRun {
                // Everything but the write: a taken email, and a store that would refuse the write, say so.
                try location.rehearseCreate(email: submission.email, passwordHash: hash)
                return .succeeded(submission.created(id: 0))
            }
            // A write that takes longer than a moment is waiting for another writer's lock: say so.
            let notice = DelayedNotice(after: 1) { waiting(Translation.english("Waiting for the database: another program is writing to it…")) }
            defer { notice.cancel() }
            do {
                // Until only the commit is left (the write lock is ours) a signal cancels: nothing is
                // stored. From then on it must not make the exit code lie: a committed account is
                // reported as created; a signal held back during a write that failed ends the process after it.
                let store = try location.openForWriting()
                // A stranger's account waits for an administrator, within the limits of its origin.
                let account: Account
                if let (origin, limits) = publicSignup {
                    account = try store.createPending(email: submission.email, passwordHash: hash, at: Date(), origin: origin, limits: limits,
                                                      whenLocked: TerminalGuard.holdSignals)
                } else {
                    account = try store.create(email: submission.email, passwordHash: hash, at: Date(), whenLocked: TerminalGuard.holdSignals)
                }
                AuditLog.record(publicSignup == nil ? .created(email: submission.email) : .createdPending(email: submission.email))
                return .succeeded(submission.created(id: account.id))
            } catch {
                TerminalGuard.releaseSignals()
                throw error
            }
        } catch {
            switch error {
            case .emailTaken:
                guard publicSignup != nil else { return .rejected([SignupForm.emailTaken]) }
                AuditLog.refuse(.emailTaken(email: submission.email))
                // A stranger never hears that an address has an account, not even when it was taken
                // after the email was answered (or when no code is asked): its owner is told by mail,
                // and the stranger hears what a new account's maker hears.
                notifier?.notify(submission.email)
                return .succeeded(submission.created(id: 0))
            case .noAccount, .unavailable: return .unavailable(reason: error.description)
            case .limitReached(let reason): PublicSession.end(reason, refusal: .rateLimit(reason: reason))  // a public session's limit: one line, exit 75
            }
        }
    }
}

extension CreateRun {
    /// The run that `words` (the arguments after the program's name) describe when they are only
    /// `create`'s everyday options; nil for anything else, which the argument parser then reads.
    ///
    /// swift-argument-parser reflects over every command's options and builds every command's
    /// help text before it reads one word: 18 of the 25 million instructions of a start-up with
    /// `--db PATH` (BENCHMARKS.md). What is read here: `create` as the first word; `--db`, `--config`,
    /// `--email`, `--password-file`, `--policy` and `--policy-file`, each followed by its value
    /// as a separate word that is not empty and does not start with `-`; `--dry-run`, `--json`,
    /// `--quiet`, `--plain` and `--no-interactive`. Each word at most once. Anything else (a word
    /// given twice, `--db=PATH`, `--help`, `--public`, a value that looks like an option) is left
    /// to the parser, so what it means and how it is refused stay the parser's alone.
    init?(everydayArguments words: ArraySlice<String>) {
        var words = words
        if words.first == "create" { words = words.dropFirst() }
        var run = CreateRun()
        var seen: Set<String> = []
        var index = words.startIndex
        while index < words.endIndex {
            let word = words[index]
            guard seen.insert(word).inserted else { return nil }
            switch word {
            case "--dry-run": run.dryRun = true
            case "--json": run.json = true
            case "--quiet": run.quiet = true
            case "--plain": run.plain = true
            case "--no-interactive": run.noInteractive = true
            case "--db", "--config", "--email", "--password-file", "--policy", "--policy-file":
                index = words.index(after: index)
                guard index < words.endIndex else { return nil }
                let value = words[index]
                guard !value.isEmpty, !value.hasPrefix("-") else { return nil }
                switch word {
                case "--db": run.db = value
                case "--config": run.config = value
                case "--email": run.email = value
                case "--password-file": run.passwordFile = value
                case "--policy": run.policy = value
                default: run.policyFile = value
                }
            default:
                return nil
            }
            index = words.index(after: index)
        }
        self = run
    }
}
