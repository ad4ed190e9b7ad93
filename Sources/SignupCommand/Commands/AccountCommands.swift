import AccountStore
import ArgumentParser
import SignupCore
import WizardTerminal

/// What the commands that change one account share: the store that must already exist, and
/// one message and exit code for each way the account cannot be reached.
enum AccountAccess {
    /// The existing store at `location`, opened for writing (migrated), or exit 69 saying there is
    /// none: a command that changes an account never creates a database.
    static func existingStore(at location: StoreLocation) throws -> any AccountBackend {
        let store: (any AccountBackend)?
        do throws(StoreError) {
            store = try location.openExistingForWriting()
        } catch {
            throw failure(error)
        }
        guard let store else { throw noDatabase(location) }
        return store
    }

    /// Exit 69: there is no database at `location`, said through `write` (standard error).
    static func noDatabase(_ location: StoreLocation, write: (String) -> Void = { IO.write($0, to: 2) }) -> ExitCode {
        write("error: " + Translation.signup(Translation.english("there is no account database at {place}; nothing was created", ["place": location.visible])) + "\n")
        return ExitCode(ExitStatus.noDatabase)
    }

    /// The message (through `write`, to standard error) and exit code of a store's refusal: 67
    /// for an unknown email, 74 otherwise.
    static func failure(_ error: StoreError, write: (String) -> Void = { IO.write($0, to: 2) }) -> ExitCode {
        switch error {
        case .noAccount:
            // The email is not repeated: whatever was typed there may be a secret in the wrong place.
            write("error: " + Translation.signup(Translation.english("no account has this email address")) + "\n")
            return ExitCode(ExitStatus.noAccount)
        case .emailTaken, .unavailable, .limitReached:
            write("error: \(VisibleText.of(error.description))\n")
            return ExitCode(ExitStatus.storage)
        }
    }

    /// The email as the store keys it: trimmed and NFC, as a sign-up stores it.
    /// Asks the yes-or-no `question` (English; shown in the reader's language) at the terminal:
    /// only y or yes (or the language's own letters) says yes. Ctrl-C or Ctrl-D there writes
    /// `nothingDone` and exits 130; `hint` is what a run without a terminal is told.
    static func confirm(_ question: String, nothingDone: String, hint: String) throws -> Bool {
        TerminalGuard.prepareInterruptReport(conversation: nothingDone, result: "")
        let session = try TerminalStart.session(hint: hint)
        session.discardTypeAhead()
        let keys = AnswerKeys(english: question, shown: Translation.signup(question))
        let read = session.readLine(prompt: keys.shown, remember: false)
        session.close()
        switch read {
        case .line(let answer):
            return ["y", "yes"].contains(keys.englishAnswer(for: answer).trimmingBlanks().lowercased())
        case .unreadable:
            return false
        case .interrupted, .endOfInput:
            IO.write(nothingDone, to: 2)
            throw ExitCode(ExitStatus.cancelled)
        }
    }

    static func normalized(_ email: String) -> String {
        SignupForm.normalizeEmail(email)
    }

    /// The text of the exit codes every such command shares, for its `discussion`.
    static let exitCodes = Translation.english("64 usage, 67 no account has this email, 69 there is no database at that place (nothing is created), 74 storage failure")
}

/// The arguments of every command about one account: its email and `--db`.
struct AccountTarget: ParsableArguments {
    @Argument(help: .english("The account's email address.", value: Translation.english("email")))
    var email: String

    @Option(help: About.databaseHelp, completion: .file())
    var db: String?

    @Option(help: About.configHelp, completion: .file())
    var config: String?

    /// The settings of this run (`--config`, `SIGNUP_CONFIG`, the user's and the system's file).
    func settings() throws(ConfigError) -> Settings {
        try Settings.load(config: config)
    }

    /// The database: `--db`, `SIGNUP_DB`, the configuration's `database`, or the default.
    func location() throws -> StoreLocation {
        try settings().location(given: db).value
    }
}

/// `signup disable EMAIL` and `signup enable EMAIL`: the state that says whether an account may sign in.
protocol StateCommand: ParsableCommand {
    var target: AccountTarget { get }
    static var state: AccountState { get }
    /// The result line: `Disabled EMAIL`.
    static func done(_ email: String) -> String
    /// The result line when nothing changed: `EMAIL was already disabled`.
    static func already(_ email: String) -> String
}

extension StateCommand {
    func run() throws {
        let location = try target.location()
        let store = try AccountAccess.existingStore(at: location)
        let email = AccountAccess.normalized(target.email)
        let before: AccountState
        // Signals are held from the write lock to the result line, as for delete and passwd: a
        // SIGTERM that came after the commit ended the run with 143 and the change made.
        TerminalGuard.install()
        do throws(StoreError) {
            before = try store.setState(Self.state, email: email, whenLocked: TerminalGuard.holdSignals)
        } catch {
            TerminalGuard.releaseSignals()
            throw AccountAccess.failure(error)
        }
        if before != Self.state { AuditLog.record(Self.state == .disabled ? .disabled(email: email) : .enabled(email: email)) }
        let shown = VisibleText.of(email)
        IO.write(Translation.signup(before == Self.state ? Self.already(shown) : Self.done(shown)) + "\n", to: 1)
        if let failure = IO.outputFailure {
            IO.write("error: " + Translation.signup(Translation.english("cannot write to standard output: {reason}", ["reason": "\(failure)"])) + "\n", to: 2)
            throw ExitCode(ExitStatus.unwritable)
        }
    }
}

/// `signup disable EMAIL`.
struct DisableCommand: StateCommand {
    static let configuration = CommandConfiguration(
        commandName: "disable",
        abstract: About.english("Disable an account: it keeps its row and password but cannot sign in."),
        discussion: About.english("""
            signup verify then answers "This account is disabled" (exit 77) whether or not the password \
            matches, and a consumer whose query asks for state = 'active' (the Dovecot recipe) refuses it. \
            signup enable undoes it. Disabling a disabled account changes nothing and succeeds.
            Exit codes: 0 disabled, {codes}.
            """, translated: ["codes": AccountAccess.exitCodes])
    )
    static let state = AccountState.disabled
    static func done(_ email: String) -> String { Translation.english("Disabled {email}", ["email": email]) }
    static func already(_ email: String) -> String { Translation.english("{email} was already disabled", ["email": email]) }

    @OptionGroup var target: AccountTarget
}

/// `signup enable EMAIL`.
struct EnableCommand: StateCommand {
    static let configuration = CommandConfiguration(
        commandName: "enable",
        abstract: About.english("Enable a disabled or pending account: it may sign in again."),
        discussion: About.english("""
            A pending account (waiting for an administrator's approval; list them with \
            signup list --state pending) is approved this way. Enabling an active account changes \
            nothing and succeeds.
            Exit codes: 0 enabled, {codes}.
            """, translated: ["codes": AccountAccess.exitCodes])
    )
    static let state = AccountState.active
    static func done(_ email: String) -> String { Translation.english("Enabled {email}", ["email": email]) }
    static func already(_ email: String) -> String { Translation.english("{email} was already enabled", ["email": email]) }

    @OptionGroup var target: AccountTarget
}

/// `signup delete EMAIL [--yes]`: the row and its hash are gone for good.
struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: About.english("Delete an account: its row and password hash are gone for good."),
        discussion: About.english("""
            At a terminal it asks "Delete EMAIL? [y/N]"; only y or yes deletes. A script must say --yes. \
            On SQLite the freed bytes are zeroed (secure_delete) and the -wal is checkpointed, so the \
            old hash does not linger in the file.
            Exit codes: 0 deleted, 1 declined at the question, {codes}, 130 cancelled \
            (Ctrl-C or Ctrl-D at the question). Without --yes and without a terminal: 64.
            """, translated: ["codes": AccountAccess.exitCodes])
    )

    @OptionGroup var target: AccountTarget

    @Flag(help: .english("Delete without asking (required when not at a terminal)."))
    var yes = false

    func run() throws {
        let location = try target.location()
        let atTerminal = isTerminal(0) && isTerminal(2)
        if !yes && !atTerminal {
            throw UsageError(.english("signup delete asks before deleting, and there is no terminal to ask at: add --yes"))
        }
        TerminalGuard.install()
        let store = try AccountAccess.existingStore(at: location)
        let email = AccountAccess.normalized(target.email)
        do throws(StoreError) {
            // Asked only about an account that exists: a question about a typo would be answered for nothing.
            guard try store.isTaken(email: email) else { throw .noAccount }
        } catch {
            throw AccountAccess.failure(error)
        }
        if !yes {
            guard try Self.confirm(email) else {
                IO.write(Self.nothingDeleted, to: 2)
                throw ExitCode(ExitStatus.declined)
            }
        }
        do throws(StoreError) {
            try store.delete(email: email, whenLocked: TerminalGuard.holdSignals)
        } catch {
            TerminalGuard.releaseSignals()
            throw AccountAccess.failure(error)
        }
        AuditLog.record(.deleted(email: email))
        IO.write(Translation.signup(Translation.english("Deleted {email}", ["email": VisibleText.of(email)])) + "\n", to: 1)
        if let failure = IO.outputFailure {
            IO.write("error: " + Translation.signup(Translation.english("cannot write to standard output: {reason}", ["reason": "\(failure)"])) + "\n", to: 2)
            throw ExitCode(ExitStatus.unwritable)
        }
    }

    /// What a run that deleted nothing says.
    static var nothingDeleted: String { Translation.signup(Translation.english("Nothing was deleted.")) + "\n" }

    /// Asks `Delete EMAIL? [y/N]` at the terminal; Ctrl-C or Ctrl-D there exits 130.
    private static func confirm(_ email: String) throws -> Bool {
        try AccountAccess.confirm(Translation.english("Delete {email}? [y/N] ", ["email": VisibleText.of(email)]), nothingDone: Self.nothingDeleted,
                                  hint: Translation.signup(Translation.english("Nothing was deleted. Add --yes to delete without asking.")))
    }
}
