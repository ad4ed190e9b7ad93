import Foundation
import GRDB

/// The accounts database: one SQLite file in WAL mode, shared safely by many processes.
///
/// Every method is synchronous and may wait up to ``busyTimeout`` for another
/// writer to finish. Errors are ``StoreError`` values whose reasons name the
/// path and never contain a password or a hash.
public final class AccountStore: Sendable {
    /// How long a connection waits for another program's lock before giving up.
    public static let busyTimeout: TimeInterval = 5

    /// The database file's path, as given.
    public let path: String

    private let queue: DatabaseQueue
    private let isReadOnly: Bool

    /// Opens the database at `path`, creating it (and its folders) when missing.
    ///
    /// Missing folders are created with mode 0700 and the file with mode 0600;
    /// SQLite gives the `-wal` and `-shm` files the database file's mode. A
    /// zero-byte file is treated as a new database. Pending migrations run.
    public init(path: String) throws(StoreError) {
        self.path = path
        isReadOnly = false
        try FileSystem.createFolders(FileSystem.parent(of: path))
        try FileSystem.createDatabaseFile(path)
        queue = try Self.openQueue(path: path, forWriting: true)
        do {
            if try queue.read(Migrations.contents) == .foreign { throw StoreError.notSignupDatabase(path) }
            try Migrations.migrate(queue)
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    private init(readonlyPath path: String, immutable: Bool = false) throws(StoreError) {
        self.path = path
        isReadOnly = true
        queue = immutable ? try Self.openImmutable(path: path) : try Self.openQueue(path: path, forWriting: false)
    }

    /// Opens an existing database read-only, or returns nil when there is none yet.
    ///
    /// Nothing is created: neither folders nor the file. A missing or zero-byte
    /// file, or an SQLite database with none of our tables yet, counts as "none yet".
    /// ``create(email:passwordHash:at:)`` on the result throws.
    public static func openExisting(path: String) throws(StoreError) -> AccountStore? {
        switch FileSystem.entry(at: path) {
        case .missing, .emptyFile:
            return nil
        case .other:
            throw .unavailable(reason: "cannot open \(path): it is not a file")
        case .nonEmptyFile:
            break
        }
        let store: AccountStore
        let contents: Migrations.Contents
        do {
            (store, contents) = try readContents(path: path, immutable: false)
        } catch {
            guard !FileSystem.isWritable(path) else { throw error }
            // Nothing may change this file or its folder (immutable, read-only mount), so WAL's
            // side files cannot be made: read it as the unchanging file it is.
            (store, contents) = try readContents(path: path, immutable: true)
        }
        switch contents {
        case .empty: return nil
        case .foreign: throw StoreError.notSignupDatabase(path)
        case .signup: return store
        }
    }

    /// Stores a new account and returns it with its id.
    ///
    /// The email is stored trimmed and in NFC, as entered otherwise; its
    /// ``key(forEmail:)`` must be unique, else this throws ``StoreError/emailTaken``.
    /// `passwordHash` must already be a hash (see ``PasswordHasher``).
    public func create(email: String, passwordHash: String, at date: Date = Date()) throws(StoreError) -> Account {
        guard !isReadOnly else {
            throw .unavailable(reason: "the database \(path) is read-only (opened for reading)")
        }
        var record = AccountRecord(
            id: nil,
            email: Self.normalized(email),
            emailKey: Self.key(forEmail: email),
            passwordHash: passwordHash,
            createdAt: Self.timestamp(date)
        )
        try access { try queue.writeWithoutTransaction { db in
            try db.inTransaction(.immediate) {
                try record.insert(db)
                return .commit
            }
        } }
        guard let id = record.id else {
            throw .unavailable(reason: "the database \(path) did not return the new account's id")
        }
        return Account(id: id, email: record.email, createdAt: record.createdAt)
    }

    /// Whether an account with this email key already exists.
    public func isTaken(email: String) throws(StoreError) -> Bool {
        let key = Self.key(forEmail: email)
        return try access { try queue.read { db in
            try AccountRecord.filter(AccountRecord.Columns.emailKey == key).isEmpty(db) == false
        } }
    }

    /// All accounts, ordered by id. Hashes never leave the store this way.
    public func accounts() throws(StoreError) -> [Account] {
        try access { try queue.read { db in
            try AccountRow.fetchAll(
                db,
                AccountRecord.select(AccountRow.columns).order(AccountRecord.Columns.id)
            ).map(\.account)
        } }
    }

    /// The stored PHC hash for this email's key, or nil when there is no such account.
    public func passwordHash(forEmail email: String) throws(StoreError) -> String? {
        let key = Self.key(forEmail: email)
        return try access { try queue.read { db in
            try String.fetchOne(
                db,
                AccountRecord
                    .select(AccountRecord.Columns.passwordHash)
                    .filter(AccountRecord.Columns.emailKey == key)
            )
        } }
    }

    /// The unique key of an email: trimmed, NFC, lowercased.
    public static func key(forEmail email: String) -> String {
        normalized(email).lowercased().precomposedStringWithCanonicalMapping
    }

    // MARK: - Helpers

    static func normalized(_ email: String) -> String {
        email.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!))
    }

    /// Opens a connection; `forWriting` also switches the database to WAL mode.
    ///
    /// Readers are not `SQLITE_OPEN_READONLY` connections on purpose: such a
    /// connection creates the `-wal` and `-shm` files of a WAL database but
    /// cannot remove them when it closes, so `signup list` would leave files
    /// behind. GRDB's `read` runs under `PRAGMA query_only`, and the reader
    /// store refuses `create` itself.
    private static func openQueue(path: String, forWriting: Bool) throws(StoreError) -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.label = "AccountStore"
        if forWriting {
            // GRDB's `.wal` setting also writes a throw-away table on every open,
            // which fails on a read-only file before `create` can say why.
            configuration.prepareDatabase { db in
                // On a read-only file this stays in its current mode; writes then
                // fail with SQLITE_READONLY, which `create` reports.
                _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
        }
        do {
            return try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    private static func readContents(path: String, immutable: Bool) throws(StoreError) -> (AccountStore, Migrations.Contents) {
        let store = try AccountStore(readonlyPath: path, immutable: immutable)
        do {
            return (store, try store.queue.read(Migrations.contents))
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// A read-only connection through SQLite's `immutable=1` URI: no locks, no `-wal` or `-shm`.
    private static func openImmutable(path: String) throws(StoreError) -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "AccountStore"
        let uri = URL(fileURLWithPath: path).absoluteString + "?immutable=1"
        do {
            return try DatabaseQueue(path: uri, configuration: configuration)
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    private func access<T>(_ body: () throws -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch {
            throw StoreError.from(error, path: path)
        }
    }
}
