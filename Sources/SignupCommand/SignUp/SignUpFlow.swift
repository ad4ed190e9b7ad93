import AccountStore
import ArgumentParser
import CSystem
import FoundationEssentials
import PasswordStrength
import SignupCore
import WizardTerminal

/// Runs a ``SignUpPlan`` over one ``CommandEnvironment``: reads the settings, opens the
/// conversation, asks, checks, mails a code when the plan proves the address, stores, and
/// reports. Every way it ends is an error the entry point turns into the exit status
/// (`ExitCode`, `UsageError`, `ConfigError`).
struct SignUpFlow {
    let plan: SignUpPlan
    /// The variables, streams, clock, audit sink, mail command and runner it works with.
    let environment: CommandEnvironment

    /// What the run works with once the settings are read: nothing has been asked or written yet.
    private struct Setting {
        /// The flow's environment, its audit sink set for this plan (silent for a dry run).
        let environment: CommandEnvironment
        let location: StoreLocation
        let policy: PasswordPolicy
        let session: PublicSession?
        /// The mails of the run: a proof's code, a stranger's notice; nil when it mails nothing.
        let mailing: ProofFlow?
        /// `mailing` when the address must be proven before anything is stored.
        let proof: ProofFlow?
        var options: RunnerOptions
        let interactive: Bool
        var report: Report
    }

    func run() throws {
        try plan.validate()
        var setting = try prepare()
        try checkStore(setting)
        // Restores the terminal on signals (echo goes off for secrets in every mode) and lets
        // the store hold signals back while it writes. A SIGINT while a script's line is awaited
        // or the password hashed still says that nothing was saved (and `cancelled` in JSON).
        setting.environment.guardSignals(setting.session != nil, setting.report.cancellation)
        // Read with the guard in place: a signal while echo is off for a terminal source restores it.
        let source = try PasswordSource.resolve(
            file: plan.passwordFile.map { RawArguments.value(of: "--password-file", parsed: $0) ?? Array($0.utf8) },
            fd: plan.passwordFd,
            environment: environment.passwordVariable
        )
        let presets = try presets(for: source, interactive: setting.interactive, proving: setting.proof != nil)
        setting.options.interactive = setting.interactive
        let runner = try TerminalStart.runner(setting.options, json: plan.json,
                                              hint: setting.options.translation(Translation.english("Nothing was saved. Run with --no-interactive to answer line by line.")),
                                              make: environment.runner)
        let form = SignupForm.make(policy: setting.policy, strength: .command)
        try proveGivenEmail(of: form, setting, runner: runner)
        let outcome = converse(form: form, presets: presets, sharedLine: source == .standardInput ? ConfirmationFromPassword() : nil,
                               setting, runner: runner)
        runner.close()
        if setting.interactive { TerminalGuard.restore() }
        try finish(outcome, setting)
    }

    /// The settings, the store's place, the policy, the public session and the mails of the run.
    private func prepare() throws -> Setting {
        var environment = environment
        // A dry run logs nothing, not even a refusal.
        environment.audit.silenced = plan.dryRun
        // Before this process opens a descriptor of its own that `--password-fd N` could then
        // name: with 3 closed, the signal guard's pipe became descriptor 3 and was read forever.
        if let passwordFd = plan.passwordFd, !PasswordSource.isInherited(passwordFd) {
            throw UsageError(.english("the --password-fd descriptor is not open"))
        }
        let settings = try Settings.load(config: plan.config, variable: environment.variable)
        environment.audit.refusingReset = plan.isReset && plan.isPublic
        environment.audit.losesQuietly = plan.isPublic
        environment.audit.namesClient = plan.isPublic
        let location = try settings.location(given: plan.db).value
        let policy = try settings.policy(named: plan.policy, file: plan.policyFile).policy
        let session = plan.publicOptions.map {
            settings.publicSession(idle: $0.idle, session: $0.session, perClient: $0.perClient, overall: $0.overall, window: $0.window)
        }
        if let session {
            session.audit = environment.audit
            (session.armDeadline, session.disarmDeadline) = (environment.armDeadline, environment.disarmDeadline)
        }
        var mailing = plan.mails ? ProofFlow(settings: settings, isPublic: session != nil, environment: environment) : nil
        mailing?.isReset = plan.isReset
        if let session { mailing?.counted = (environment.clientOrigin(), session.limits, location) }
        var options = RunnerOptions(programName: "signup", environment: environment.variables)
        options.translation = .signup
        options.plain = plan.plain
        options.quiet = plan.quiet
        if plan.noInteractive { options.interactive = false }
        let interactive = options.interactive ?? (environment.isTerminal(0) && environment.isTerminal(2))
        var conversation = Conversation(
            style: WizardStyle.detect(interactive: interactive, plain: plan.plain, environment: environment.variables), quiet: plan.quiet,
            translation: options.translation
        )
        conversation.output = { [environment] in environment.write($0, 2) }
        var report = Report(json: plan.json, dryRun: plan.dryRun, interactive: interactive, conversation: conversation,
                            stdoutIsTerminal: environment.isTerminal(1))
        report.changing = plan.purpose != .create
        report.output = { [environment] in environment.write($0, 1) }
        report.outputFailure = environment.outputFailure
        return Setting(environment: environment, location: location, policy: policy, session: session, mailing: mailing,
                       proof: plan.provesAddress(configured: settings.proveAddress.value) ? mailing : nil,
                       options: options, interactive: interactive, report: report)
    }

    /// A database path that can never be used (planted, replaceable, a folder) is said at once,
    /// not after a person typed every answer and then could only give up at "Try again?"; and a
    /// password is asked only for an account that exists, in a database that exists.
    private func checkStore(_ setting: Setting) throws {
        do throws(StoreError) {
            try setting.location.checkBeforeAsking()
        } catch {
            var early = setting.report
            early.interactive = false
            throw ExitCode(early.show(.unavailable(reason: error.description)))
        }
        if let changing = plan.changing {
            try Self.checkAccount(SignupForm.normalizeEmail(changing), at: setting.location) { [environment] in environment.write($0, 2) }
        }
    }

    /// The answers given before the conversation (`--email`, the account of `passwd`, a password
    /// source), or the usage error of a combination that could echo a password.
    private func presets(for source: PasswordSource, interactive: Bool, proving: Bool) throws -> [FieldPreset] {
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
        if let changing = plan.changing {
            presets.append(.line(SignupForm.email, changing))
        } else if let email = plan.email {
            // The bytes as given: invalid UTF-8 is `email.invalidEncoding`, never repaired.
            preset(LineInput.judge(RawArguments.value(of: "--email", parsed: email) ?? Array(email.utf8)), to: [SignupForm.email])
        }
        if case .preset(let line) = source { preset(line, to: [SignupForm.password, SignupForm.confirm]) }
        // In a script, the lines of standard input are not seen being asked for: with the password
        // among them, a line taken for the email (and echoed as the email is) could be the password.
        if source == .standardInput && !interactive && plan.email == nil {
            throw UsageError(.english("with the password on standard input (--password-fd 0, or a --password-file that is standard input), give the email with --email"))
        }
        // The code is a line of standard input too: the password's line could be taken for it, and echoed.
        if source == .standardInput && proving {
            throw UsageError(.english("with the password on standard input, no code can be asked for the address: give the password with --password-file or --password-fd N"))
        }
        if !interactive && (plan.email == nil || !presets.contains { $0.name == SignupForm.password.name })
            && environment.standardInputIsAFolder() {
            throw UsageError(.english("standard input is a folder: give the answers in a file or a pipe"))
        }
        return presets
    }

    /// An email given as an option is never answered in the conversation: its code is mailed now,
    /// when the rules accept it (else the conversation reports it and mails nothing).
    private func proveGivenEmail(of form: Form, _ setting: Setting, runner: TerminalRunner) throws {
        guard let proof = setting.proof, let email = plan.email,
              case .text(let text) = LineInput.judge(RawArguments.value(of: "--email", parsed: email) ?? Array(email.utf8)) else { return }
        var probe = form
        probe.answer(SignupForm.email, line: text)
        guard probe.errors(for: SignupForm.email).isEmpty else { return }
        let errors = Self.proveEmail(probe.text(SignupForm.email), flow: proof, at: setting.location)
        guard !errors.isEmpty else { return }
        runner.close()
        if setting.interactive { TerminalGuard.restore() }
        throw ExitCode(setting.report.show(.invalid(errors)))
    }

    /// Asks, checks and submits, within a stranger's limits, with the mailed code's field when the
    /// address is proven.
    private func converse(form: Form, presets: [FieldPreset], sharedLine: ConfirmationFromPassword?, _ setting: Setting,
                          runner: TerminalRunner) -> WizardOutcome<CreatedAccount> {
        let isSQLite = if case .sqlite = setting.location { true } else { false }
        let estimator = StrengthEstimator.command
        var wizard = SignupForm.wizard(
            form: setting.proof.map { $0.proof.form(around: form) } ?? form, mode: runner.mode,
            strength: estimator, presets: presets, texts: plan.texts,
            checkedFields: plan.checkedFields(interactive: setting.interactive, isSQLite: isSQLite, provingAddress: setting.proof != nil)
        )
        let (plan, location, proof, session) = (plan, setting.location, setting.proof, setting.session)
        let costs = setting.policy.argon2
        let translation = setting.options.translation
        let answer: (Prompt, () -> WizardInput<CreatedAccount>) -> WizardInput<CreatedAccount> = sharedLine?.intercept ?? { $1() }
        let environment = setting.environment
        let publicSignup = session.map { (origin: environment.clientOrigin(), limits: $0.limits) }
        let mailing = setting.mailing
        return runner.run(&wizard, intercept: { prompt, read in
            let input = session.map { session in session.read(prompt) { answer(prompt, read) } } ?? answer(prompt, read)
            if let proof, prompt.question == .field(AddressProof.field.name), case .answer(let text) = input { proof.judge(text) }
            return input
        }, check: { _, form in
            guard let proof else { return Self.takenEmail(in: form, at: location) }
            return Self.proveEmail(form.text(SignupForm.email), flow: proof, at: location)
        }) { form in
            let submission = SignupForm.submission(from: form, strength: estimator)
            switch plan.purpose {
            case .reset:
                return ResetCommand.reset(submission, at: location, costs: costs, environment: environment)
            case .changePassword(let changing):
                // passwd EMAIL changes EMAIL's password only, whatever the review's edit made of the field.
                guard AccountStore.key(forEmail: submission.email) == AccountStore.key(forEmail: SignupForm.normalizeEmail(changing)) else {
                    return .rejected([FieldError(field: SignupForm.email.name, code: "email.notThisAccount", message: Translation.english(
                        "This changes the password of {email} only: enter that address", ["email": VisibleText.of(SignupForm.normalizeEmail(changing))]))])
                }
                return Self.changePassword(submission, at: location, costs: costs, environment: environment)
            case .create:
                return Self.store(submission, at: location, dryRun: plan.dryRun, costs: costs, public: publicSignup, notifier: mailing,
                                  environment: environment, waiting: { if !plan.quiet { environment.write(translation($0) + "\n", 2) } })
            }
        }
    }

    /// Shows the outcome and ends with its status.
    private func finish(_ outcome: WizardOutcome<CreatedAccount>, _ setting: Setting) throws -> Never {
        let status = setting.report.show(outcome)
        if setting.session != nil {
            // A stranger who leaves before the end: one line, as a limit would write.
            switch outcome {
            case .cancelled: setting.environment.audit.refuse(.endedEarly(how: "cancelled"))
            case .incomplete: setting.environment.audit.refuse(.endedEarly(how: "input ended"))
            default: break
            }
            if case .succeeded = outcome, !plan.dryRun, plan.purpose == .create {
                // A stranger's account waits for an administrator (signup list --state pending, signup enable).
                setting.environment.write(setting.options.translation(Translation.english("An administrator must enable the account before you can sign in.")) + "\n", 2)
            }
        }
        if plan.changing != nil, case .invalid(let errors) = outcome, errors.contains(SignupForm.emailUnknown) {
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
    /// Outside public mode a taken address is `email.taken` at once, and nothing is mailed. Mail
    /// about an account goes to its email as stored, never to the spelling typed.
    static func proveEmail(_ email: String, flow: ProofFlow, at location: StoreLocation) -> [FieldError] {
        let stored = ProofFlow.storedEmail(email, at: location)
        if flow.isReset {
            // The same conversation whatever the address is: only an active account's gets a code.
            // Asked for every address, so that the time does not tell which have an account.
            let resettable = ResetCommand.canReset(email, at: location)
            flow.mail(stored ?? email, notice: resettable && stored != nil ? nil : .resetImpossible)
            return []
        }
        if stored != nil && !flow.isPublic { return [SignupForm.emailTaken] }
        flow.mail(stored ?? email, notice: stored != nil ? .alreadyRegistered : nil)
        return []
    }

    /// Exit 69 when there is no database at `location`, 67 when no account there has `email`; `write` says which.
    private static func checkAccount(_ email: String, at location: StoreLocation, write: (String) -> Void) throws {
        let store: (any AccountBackend)?
        let found: Bool
        do throws(StoreError) {
            store = try location.openExisting()
            found = try store?.isTaken(email: email) ?? false
        } catch {
            throw AccountAccess.failure(error, write: write)
        }
        guard store != nil else { throw AccountAccess.noDatabase(location, write: write) }
        guard found else { throw AccountAccess.failure(.noAccount, write: write) }
    }

    /// Hashes the submission's password and makes it the account's, in one transaction.
    static func changePassword(_ submission: Submission, at location: StoreLocation, costs: PasswordPolicy.Argon2Costs, environment: CommandEnvironment,
                               recorded change: (String) -> AuditLog.Change = { .passwordChanged(email: $0) }) -> SubmitResult<CreatedAccount> {
        do throws(StoreError) {
            let hash = try PasswordHasher.hash(submission.password, costs: costs)
            guard let store = try location.openExistingForWriting() else {
                return .unavailable(reason: "there is no account database at \(location.visible) any more")
            }
            do {
                try store.changePassword(email: submission.email, to: hash, at: environment.now(), whenLocked: TerminalGuard.holdSignals)
            } catch {
                TerminalGuard.releaseSignals()
                throw error
            }
            environment.audit.record(change(submission.email))
            return .succeeded(submission.created(id: 0))
        } catch {
            switch error {
            case .noAccount, .emailTaken: return .rejected([SignupForm.emailUnknown])
            case .unavailable(let reason, _): return .unavailable(reason: reason)
            case .limitReached(let refusal): return .unavailable(reason: refusal.message)
            }
        }
    }

    /// Hashes and stores one submission; a dry run rehearses the write (a taken email, a store that would refuse it).
    static func store(_ submission: Submission, at location: StoreLocation, dryRun: Bool, costs: PasswordPolicy.Argon2Costs = .standard,
                      public publicSignup: (origin: String, limits: SignupLimits)? = nil, notifier: ProofFlow? = nil, environment: CommandEnvironment,
                      waiting: @escaping @Sendable (String) -> Void = { _ in }) -> SubmitResult<CreatedAccount> {
        do throws(StoreError) {
            _ = signup_release_clean_file_pages()  // the hash's memory adds to less: CSystem/shim.h
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
                    account = try store.createPending(email: submission.email, passwordHash: hash, at: environment.now(), origin: origin, limits: limits,
                                                      whenLocked: TerminalGuard.holdSignals)
                } else {
                    account = try store.create(email: submission.email, passwordHash: hash, at: environment.now(), whenLocked: TerminalGuard.holdSignals)
                }
                // The write is over: nothing waits for the database any more, whatever the audit log's line waits for.
                notice.cancel()
                environment.audit.record(publicSignup == nil ? .created(email: submission.email) : .createdPending(email: submission.email))
                return .succeeded(submission.created(id: account.id))
            } catch {
                TerminalGuard.releaseSignals()
                throw error
            }
        } catch {
            switch error {
            case .emailTaken:
                guard publicSignup != nil else { return .rejected([SignupForm.emailTaken]) }
                // The account as stored names the line and gets the mail, whatever spelling was typed.
                let owner = ProofFlow.storedEmail(submission.email, at: location) ?? submission.email
                environment.audit.refuse(.emailTaken(email: owner))
                // A stranger never hears that an address has an account, not even when it was taken
                // after the email was answered (or when no code is asked): its owner is told by mail,
                // and the stranger hears what a new account's maker hears.
                notifier?.notify(owner)
                return .succeeded(submission.created(id: 0))
            case .noAccount, .unavailable: return .unavailable(reason: error.description)
            case .limitReached(let refusal): PublicSession.end(refusal.message, refusal: .rateLimit(refusal), audit: environment.audit)  // a public session's limit: one line, exit 75
            }
        }
    }
}
