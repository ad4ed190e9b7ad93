import AccountStore
import ArgumentParser
import SignupCore
import WizardTerminal

/// `signup backup DEST`: a consistent copy of an SQLite database, taken while it is in use.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: About.english("Copy the account database into one file, consistently, while it is in use."),
        discussion: About.english("""
            The copy is taken with SQLite's online backup: sign-ups, the administrator and a mail \
            server go on meanwhile, and the copy holds every account as it was at one moment. It is one \
            file (no -wal or -shm), with the database's owner and group when run by root, and its mode \
            without write access for others; it is written under a temporary name and renamed to DEST \
            once whole, replacing an older DEST. signup restore puts it back. For PostgreSQL, use \
            pg_dump or signup export.
            Exit codes: 0 copied, 64 usage (a PostgreSQL database), 69 there is no database at that \
            place, 74 storage failure.
            """)
    )

    @Argument(help: .english("The file to write the copy to.", value: Translation.english("file")), completion: .file())
    var destination: String

    @Option(help: About.databaseHelp, completion: .file())
    var db: String?

    @Option(help: About.configHelp, completion: .file())
    var config: String?

    func run() throws {
        let location = try Settings.load(config: config).location(given: db).value
        guard case .sqlite = location else {
            throw UsageError(.english("signup backup copies an SQLite database; for PostgreSQL use pg_dump or signup export"))
        }
        // Ctrl-C, SIGTERM or a hang-up waits for the copy to end, whole and renamed or removed:
        // a copy cut short would stay beside the destination, holding every password hash.
        TerminalGuard.install()
        TerminalGuard.holdSignals()
        let store: AccountStore?
        do throws(StoreError) {
            store = try location.openExisting() as? AccountStore
            try store?.backUp(to: DatabasePath(destination))
        } catch {
            throw AccountAccess.failure(error)
        }
        if store == nil { throw AccountAccess.noDatabase(location) }
    }
}

/// `signup restore SOURCE`: every account of a backup, back in the database.
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: About.english("Replace the account database's contents with a backup's."),
        discussion: About.english("""
            The database file stays where it is, with its owner, group and mode, and its accounts are \
            replaced in one transaction: a mail server reading it meanwhile sees the old accounts or \
            the restored ones, never a mix, and need not be stopped. Every account added since the \
            backup is gone. At a terminal it asks "Replace every account of PLACE? \
            [y/N]"; a script must say --yes.
            Exit codes: 0 restored, 1 declined at the question, 64 usage, 69 there is no database at \
            that place, 74 storage failure (the backup is not a signup database, or is a newer \
            version's), 130 cancelled.
            """)
    )

    @Argument(help: .english("The backup to restore from.", value: Translation.english("file")), completion: .file())
    var source: String

    @Option(help: About.databaseHelp, completion: .file())
    var db: String?

    @Option(help: About.configHelp, completion: .file())
    var config: String?

    @Flag(help: .english("Restore without asking (required when not at a terminal)."))
    var yes = false

    func run() throws {
        let location = try Settings.load(config: config).location(given: db).value
        guard case .sqlite = location else {
            throw UsageError(.english("signup restore writes an SQLite database; for PostgreSQL use pg_restore or signup import"))
        }
        if !yes && !(isTerminal(0) && isTerminal(2)) {
            throw UsageError(.english("signup restore asks before replacing the accounts, and there is no terminal to ask at: add --yes"))
        }
        TerminalGuard.install()
        if !yes {
            guard try Self.confirm(location) else {
                IO.write(Self.nothingRestored, to: 2)
                throw ExitCode(ExitStatus.declined)
            }
        }
        // Ctrl-C, SIGTERM or a hang-up waits for the restore's transaction to end: a process
        // that died inside it would leave a hot journal, which a mail server reading as another
        // user cannot roll back, and every login would fail until signup ran again.
        TerminalGuard.holdSignals()
        let store: AccountStore?
        do throws(StoreError) {
            store = try location.openExistingForWriting() as? AccountStore
            try store?.restore(from: DatabasePath(source))
        } catch {
            throw AccountAccess.failure(error)
        }
        if store == nil { throw AccountAccess.noDatabase(location) }
        IO.write(Translation.signup(Translation.english("Restored {place}", ["place": location.visible])) + "\n", to: 1)
    }

    /// What a run that restored nothing says.
    static var nothingRestored: String { Translation.signup(Translation.english("Nothing was restored.")) + "\n" }

    /// Asks `Replace every account of PLACE? [y/N]` at the terminal; Ctrl-C or Ctrl-D there exits 130.
    private static func confirm(_ location: StoreLocation) throws -> Bool {
        try AccountAccess.confirm(Translation.english("Replace every account of {place}? [y/N] ", ["place": location.visible]),
                                  nothingDone: Self.nothingRestored,
                                  hint: Translation.signup(Translation.english("Nothing was restored. Add --yes to restore without asking.")))
    }
}
