import FoundationEssentials  // Date, TimeInterval and ISO 8601 timestamps; nothing else of Foundation
import SignupCore
#if canImport(Glibc)
import Glibc
#endif

/// The accounts database: one SQLite file in WAL mode, shared safely by many processes.
///
/// Every method is synchronous and may wait up to ``busyTimeout`` for another
/// writer to finish. Errors are ``StoreError`` values whose reasons name the
/// path and never contain a password or a hash.
public final class AccountStore: Sendable {
    /// How long a connection waits for another program's lock before giving up.
    public static let busyTimeout: TimeInterval = 5

    /// The database file's path, as given (made absolute).
    public let path: DatabasePath

    private let connection: Connection
    private let isReadOnly: Bool
    /// Whether the keys on disk still predate `v2-email-key-casefold` (a reader never migrates).
    private let hasOldKeys: Bool
    /// Whether `v3-account-state` has run (a reader of an older file sees every account as active).
    private let hasStates: Bool

    private var db: SQLiteConnection { connection.db }

    /// The SQLite connection, and for a path that is not UTF-8 the descriptor its name goes through.
    private final class Connection: Sendable {
        let db: SQLiteConnection
        let held: SQLiteName.Descriptor?

        init(_ db: SQLiteConnection, held: SQLiteName.Descriptor?) {
            self.db = db
            self.held = held
        }

        deinit {
            // The held descriptor must outlive SQLite's own: closing it first would drop SQLite's locks.
            try? db.close()
        }
    }

    /// Opens the database at `path`, creating it (and its folders) when missing.
    public convenience init(path: String) throws(StoreError) {
        try self.init(at: DatabasePath(path))
    }

    /// Opens the database at `path`, creating it (and its folders) when missing.
    ///
    /// The path is checked first (``FileSystem/resolve(_:creatingFolders:)``): no
    /// symbolic link at the path, nothing another user could have planted. Missing
    /// folders are created with mode 0700 and the file with mode 0600; SQLite gives
    /// the `-wal` and `-shm` files the database file's mode, and an existing file
    /// keeps its own. A zero-byte file is treated as a new database. Before anything
    /// is written the file is read and refused if it is another program's, newer,
    /// or lacks its unique key; then it is switched to WAL and pending migrations run.
    public init(at path: DatabasePath) throws(StoreError) {
        self.path = path
        isReadOnly = false
        var resolved = try FileSystem.resolve(path, creatingFolders: true)
        var attempts = 0
        while try !FileSystem.createDatabaseFile(resolved, path: path) {
            attempts += 1
            guard attempts < 3 else { throw .unavailable(reason: "cannot create \(path): it keeps appearing and vanishing") }
            resolved = try FileSystem.resolve(path, creatingFolders: true)
        }
        let name = try SQLiteName.make(resolved.canonical, writable: true, path: path)
        _ = try Self.inspect(name, path: path, rehearsingWrites: true)  // refuses what is not ours before anything is written
        connection = Connection(try Self.openQueue(name.text, path: path), held: name.descriptor)
        do {
            hasOldKeys = false
            hasStates = true
            // Migrations run first, in the file's own journal mode: in a transaction a damaged
            // file refuses is rolled back, so it keeps its bytes (the WAL switch rewrites the
            // header and cannot be undone). A file that migrated is then switched to WAL.
            try db.access {
                try Migrations.migrate(db)
                if try db.text("PRAGMA journal_mode") != "wal" {
                    // On a read-only file this stays in its current mode; writes then
                    // fail with SQLITE_READONLY, which `create` reports.
                    _ = try db.text("PRAGMA journal_mode = WAL")
                }
            }
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    private init(reading path: DatabasePath, name: SQLiteName, immutable: Bool) throws(StoreError) {
        self.path = path
        isReadOnly = true
        let db = immutable ? try Self.openImmutable(name, path: path) : try Self.openQueue(name.text, path: path)
        connection = Connection(db, held: name.descriptor)
        hasOldKeys = false
        hasStates = true
    }

    private init(reader: AccountStore, hasOldKeys: Bool, hasStates: Bool) {
        path = reader.path
        isReadOnly = true
        connection = reader.connection
        self.hasOldKeys = hasOldKeys
        self.hasStates = hasStates
    }

    /// Opens an existing database read-only, or returns nil when there is none yet.
    public static func openExisting(path: String) throws(StoreError) -> AccountStore? {
        try openExisting(at: DatabasePath(path))
    }

    /// Opens an existing database read-only, or returns nil when there is none yet.
    ///
    /// Nothing is created or changed: no folder, no file, no migration, no `-wal` left
    /// behind. A missing or zero-byte file, or an SQLite database with none of our
    /// tables yet, counts as "none yet". The same checks as for writing apply (path,
    /// another program's, newer, unique key). On a medium nothing may change (a
    /// read-only mount, an immutable file) the file is read as it is, unless a
    /// non-empty `-wal` beside it holds changes that cannot be read there: then it is
    /// refused rather than read stale. ``create(email:passwordHash:at:)`` on the result throws.
    public static func openExisting(at path: DatabasePath) throws(StoreError) -> AccountStore? {
        let resolved = try FileSystem.resolve(path, creatingFolders: false)
        guard resolved.entry == .nonEmptyFile else { return nil }
        let contents: Migrations.Contents
        let store: AccountStore
        do {
            (store, contents) = try readContents(resolved.canonical, path: path, immutable: false)
        } catch {
            guard !FileSystem.isWritable(resolved.canonical) else { throw error }
            if let size = FileSystem.size(of: resolved.canonical + Array("-wal".utf8)), size > 0 {
                throw .unavailable(reason: "the database \(path) cannot be read: it is on a medium that cannot be written "
                    + "and its -wal file holds changes that only a writable medium can apply; it was not read stale")
            }
            // Nothing may change this file or its folder (immutable, read-only mount), so WAL's
            // side files cannot be made: read it as the unchanging file it is.
            (store, contents) = try readContents(resolved.canonical, path: path, immutable: true)
        }
        switch contents {
        case .empty: return nil
        case .signup(let oldKeys, let states):
            return !oldKeys && states ? store : AccountStore(reader: store, hasOldKeys: oldKeys, hasStates: states)
        }
    }

    /// Stores a new account and returns it with its id.
    ///
    /// The email is stored trimmed and in NFC, as entered otherwise; its
    /// ``key(forEmail:)`` must be unique, else this throws ``StoreError/emailTaken``.
    /// `passwordHash` is a ``PasswordHash`` (from ``PasswordHasher/hash(_:)`` or
    /// ``PasswordHash/init(parsing:)``), so only an Argon2id PHC string is ever stored.
    ///
    /// `whenLocked` runs once this process holds the write lock, just before the insert and
    /// the commit: a caller that must not be interrupted while committing (but may be while
    /// waiting for another writer) holds its signals there.
    public func create(
        email: String, passwordHash: PasswordHash, at date: Date = Date(), state: AccountState = .active, whenLocked: () -> Void = {}
    ) throws(StoreError) -> Account {
        try checkWritable()
        return try insert(email: email, passwordHash: passwordHash, at: date, state: state, whenLocked: whenLocked, completion: .commit)
    }

    /// Stores a public sign-up's account, pending, if `limits` allow one more from `origin`
    /// (``AccountBackend/createPending(email:passwordHash:at:origin:limits:whenLocked:)``).
    /// The count and the insert are one immediate transaction: concurrent sign-ups are counted
    /// one after the other, never both under the limit.
    public func createPending(
        email: String, passwordHash: PasswordHash, at date: Date, origin: String, limits: SignupLimits, whenLocked: () -> Void
    ) throws(StoreError) -> Account {
        try checkWritable()
        return try insert(
            email: email, passwordHash: passwordHash, at: date, state: .pending, origin: origin, whenLocked: whenLocked,
            completion: .commit
        ) { db in
            let since = Self.timestamp(date.addingTimeInterval(-Double(limits.windowSeconds)))
            let fromOrigin = try db.integer(
                "SELECT count(*) FROM account WHERE origin = ? AND created_at >= ?", [.text(origin), .text(since)]) ?? 0
            let fromAll = try db.integer(
                "SELECT count(*) FROM account WHERE origin IS NOT NULL AND created_at >= ?", [.text(since)]) ?? 0
            if let refusal = limits.refusal(fromOrigin: Int(fromOrigin), fromAll: Int(fromAll)) { throw refusal }
        }
    }

    private func checkWritable() throws(StoreError) {
        guard !isReadOnly else {
            throw .unavailable(reason: "the database \(path) is read-only (opened for reading)")
        }
    }

    /// The insert of ``create(email:passwordHash:at:whenLocked:)`` in an immediate transaction
    /// that is rolled back (``AccountBackend/rehearseCreate(email:passwordHash:)``). It runs on a
    /// reader too: only the real write is refused there by the reader flag, not by SQLite.
    public func rehearseCreate(email: String, passwordHash: PasswordHash) throws(StoreError) {
        _ = try insert(email: email, passwordHash: passwordHash, at: Date(), state: .active, whenLocked: {}, completion: .rollback)
    }

    /// One insert in an immediate transaction, ended by `completion`: the real one and its rehearsal.
    private func insert(
        email: String, passwordHash: PasswordHash, at date: Date, state: AccountState, origin: String? = nil,
        whenLocked: () -> Void, completion: SQLiteConnection.Completion, precheck: (SQLiteConnection) throws -> Void = { _ in }
    ) throws(StoreError) -> Account {
        let key = Self.key(forEmail: email)
        let email = Self.normalized(email)
        let createdAt = Self.timestamp(date)
        let id: Int64 = try writing(whenLocked: whenLocked, completion: completion) { db in
            try precheck(db)
            // OR ABORT: a conflict clause of the table's own (`UNIQUE ON CONFLICT REPLACE` would
            // delete the account that has the email, `IGNORE` would store nothing) never applies.
            if let origin {
                try db.execute(
                    "INSERT OR ABORT INTO account (email, email_key, password_hash, created_at, state, origin) VALUES (?, ?, ?, ?, ?, ?)",
                    [.text(email), .text(key), .text(passwordHash.phc), .text(createdAt), .text(state.rawValue), .text(origin)])
            } else {
                try db.execute(
                    "INSERT OR ABORT INTO account (email, email_key, password_hash, created_at, state) VALUES (?, ?, ?, ?, ?)",
                    [.text(email), .text(key), .text(passwordHash.phc), .text(createdAt), .text(state.rawValue)])
            }
            // A table with a trigger is refused when opened (Migrations.checkAccountTable); one added
            // since by another program could still drop the row: then the transaction rolls back.
            guard db.changes == 1 else {
                throw StoreError.unavailable(reason: "the database \(path) did not keep the new account (a trigger of its account "
                    + "table dropped it); nothing was stored")
            }
            return db.lastInsertedRowID
        }
        return Account(id: id, email: email, createdAt: createdAt, state: state)
    }

    /// Runs `body` in an immediate transaction ended by `completion` (`whenLocked` once the write
    /// lock is held). With `removesHashes`, the `-wal` is then checkpointed and truncated, so the
    /// old page images it held (an old hash among them) do not outlive the change; when a reader
    /// keeps the checkpoint from finishing, they are overwritten by later writes instead.
    private func writing<T>(
        whenLocked: () -> Void = {}, completion: SQLiteConnection.Completion = .commit, removesHashes: Bool = false,
        _ body: (SQLiteConnection) throws -> T
    ) throws(StoreError) -> T {
        try access { db in
            var result: T?
            try db.inTransaction(.immediate) {
                whenLocked()
                result = try body(db)
                return completion
            }
            if removesHashes && completion == .commit {
                _ = try? db.rows("PRAGMA wal_checkpoint(TRUNCATE)") { _ in () }
            }
            return result!
        }
    }

    /// Runs one statement that changes the row of `email`'s key, or throws ``StoreError/noAccount``.
    private func changeRow(
        _ sql: String, _ arguments: [SQLiteValue], email: String, whenLocked: () -> Void = {}, removesHashes: Bool
    ) throws(StoreError) {
        try checkWritable()
        let changed = try writing(whenLocked: whenLocked, removesHashes: removesHashes) { db in
            try db.execute(sql, arguments + [.text(Self.key(forEmail: email))])
        }
        if changed == 0 { throw .noAccount }
    }

    /// Replaces the account's hash (``AccountBackend/changePassword(email:to:at:whenLocked:)``).
    public func changePassword(email: String, to passwordHash: PasswordHash, at date: Date, whenLocked: () -> Void) throws(StoreError) {
        try changeRow("UPDATE account SET password_hash = ?, password_changed_at = ? WHERE email_key = ?",
                      [.text(passwordHash.phc), .text(Self.timestamp(date))], email: email, whenLocked: whenLocked, removesHashes: true)
    }

    /// Sets the account's state (``AccountBackend/setState(_:email:)``).
    public func setState(_ state: AccountState, email: String) throws(StoreError) -> AccountState {
        try checkWritable()
        let key = Self.key(forEmail: email)
        let before: String? = try writing { db in
            let before = try db.text("SELECT \(SafeColumn.text("state")) FROM account WHERE email_key = ?", [.text(key)])
            if before != nil {
                try db.execute("UPDATE account SET state = ? WHERE email_key = ?", [.text(state.rawValue), .text(key)])
            }
            return before
        }
        guard let before else { throw .noAccount }
        return AccountState(stored: before)
    }

    /// Removes the account (``AccountBackend/delete(email:whenLocked:)``).
    public func delete(email: String, whenLocked: () -> Void) throws(StoreError) {
        try changeRow("DELETE FROM account WHERE email_key = ?", [], email: email, whenLocked: whenLocked, removesHashes: true)
    }

    /// Replaces a verified hash (``AccountBackend/rehash(email:verified:to:)``).
    public func rehash(email: String, verified: String, to passwordHash: PasswordHash) throws(StoreError) -> Bool {
        do throws(StoreError) {
            try changeRow("UPDATE account SET password_hash = ? WHERE password_hash = ? AND email_key = ?",
                          [.text(passwordHash.phc), .text(verified)], email: email, removesHashes: true)
            return true
        } catch .noAccount {
            return false
        }
    }

    /// Counts weaker hashes (``AccountBackend/countHashes(weakerThan:)``).
    public func countHashes(weakerThan costs: PasswordPolicy.Argon2Costs) throws(StoreError) -> Int {
        try reading { db in
            try db.withStatement("SELECT \(SafeColumn.hash) FROM account") { hashes in
                var count = 0
                while try hashes.step() {
                    if PasswordHasher.needsRehash(hashes.text(0), for: costs) { count += 1 }
                }
                return count
            }
        }
    }

    /// Stores many accounts in one transaction (``AccountBackend/insertBatch(_:update:at:)``).
    public func insertBatch(_ rows: [NewAccount], update: Bool, at date: Date) throws(StoreError) -> [BatchOutcome] {
        try checkWritable()
        let now = Self.timestamp(date)
        return try writing(removesHashes: update) { db in
            // One prepared insert for the whole batch, bound again for each row.
            try db.withStatement("""
                INSERT INTO account (email, email_key, password_hash, created_at, state) VALUES (?, ?, ?, ?, ?) \
                ON CONFLICT (email_key) DO NOTHING
                """) { insert in
                var outcomes: [BatchOutcome] = []
                outcomes.reserveCapacity(rows.count)
                for row in rows {
                    let key = Self.key(forEmail: row.email)
                    try insert.bind([.text(Self.normalized(row.email)), .text(key), .text(row.passwordHash.phc), .text(now), .text(row.state.rawValue)])
                    try insert.run()
                    if db.changes == 1 {
                        outcomes.append(.created(id: db.lastInsertedRowID))
                    } else if !update {
                        outcomes.append(.taken)
                    } else {
                        try db.execute("UPDATE account SET password_hash = ?, password_changed_at = ? WHERE email_key = ?",
                                       [.text(row.passwordHash.phc), .text(now), .text(key)])
                        outcomes.append(.updated)
                    }
                }
                return outcomes
            }
        }
    }

    /// Whether an account with this email key already exists.
    public func isTaken(email: String) throws(StoreError) -> Bool {
        try passwordHash(forEmail: email) != nil
    }

    /// Calls `body` with each account in id order, one row in memory at a time, until it returns false.
    ///
    /// Hashes never leave the store this way. Memory does not grow with the number of accounts.
    ///
    /// Rows are read one at a time with SQLite's column functions (BENCHMARKS.md, issue 11). Text
    /// is read by its length, so a NUL inside a stored email is kept (and shown visibly by the
    /// caller), not taken for the email's end.
    public func streamAccounts(inState state: AccountState?, _ body: (Account) -> Bool) throws(StoreError) {
        try reading { db in
            try db.withStatement(AccountRow.select(hasStates: hasStates), [SQLiteValue(state?.rawValue)]) { rows in
                while try rows.step() {
                    let account = Account(
                        id: rows.int64(0),
                        email: rows.text(1),
                        createdAt: rows.text(2),
                        state: AccountState(stored: rows.text(3)),
                        passwordChangedAt: rows.optionalText(4))
                    if !body(account) { return }
                }
            }
        }
    }

    /// ``streamAccounts(inState:_:)`` for a caller that copies the text out without making a
    /// `String` of it (`signup list`, a million rows): each row's email and creation time are
    /// SQLite's own bytes, valid only while `body` runs, and not checked in any way (not UTF-8,
    /// a NUL inside: the caller shows them safely). A state no version of signup writes reads
    /// as `disabled`, as ``AccountState/init(stored:)`` reads it.
    package func streamAccountBytes(
        inState state: AccountState?,
        _ body: (_ id: Int64, _ email: UnsafeBufferPointer<UInt8>, _ createdAt: UnsafeBufferPointer<UInt8>, _ state: AccountState) -> Bool
    ) throws(StoreError) {
        try reading { db in
            try db.withStatement(AccountRow.select(hasStates: hasStates), [SQLiteValue(state?.rawValue)]) { rows in
                while try rows.step() {
                    let state = rows.withBytes(3) { stored in
                        AccountState.allCases.first { $0.rawValue.utf8.elementsEqual(stored) } ?? .disabled
                    }
                    let more = rows.withBytes(1) { email in
                        rows.withBytes(2) { createdAt in body(rows.int64(0), email, createdAt, state) }
                    }
                    if !more { return }
                }
            }
        }
    }

    /// All accounts, ordered by id. Hashes never leave the store this way.
    public func accounts() throws(StoreError) -> [Account] {
        var all: [Account] = []
        try streamAccounts { all.append($0); return true }
        return all
    }

    /// What a password for this email is checked against (``AccountBackend/verificationTarget(forEmail:)``).
    public func verificationTarget(forEmail email: String) throws(StoreError) -> VerificationTarget {
        let key = Self.key(forEmail: email)
        return try reading { db in
            var found: String?
            var state = "active"
            if hasOldKeys {
                // The keys on disk are v1's: compare today's key of every email (a reader does not migrate).
                // The whole table is read either way, so the time does not tell a known email from an unknown one.
                try db.withStatement("""
                    SELECT \(SafeColumn.text("email")) AS email, \(SafeColumn.hash) AS password_hash FROM account
                    """) { rows in
                    while try rows.step() {
                        if found == nil, Self.key(forEmail: rows.text(0)) == key { found = rows.text(1) }
                    }
                }
            } else {
                let stateColumn = hasStates ? SafeColumn.text("state") : "'active'"
                let row = try db.rows("SELECT \(SafeColumn.hash), \(stateColumn) FROM account WHERE email_key = ?", [.text(key)]) {
                    (hash: $0.text(0), state: $0.text(1))
                }.first
                found = row?.hash
                state = row?.state ?? state
            }
            // Looked up for a known email too: both take the same queries.
            let decoy = try Self.decoy(db)
            return found.map { .account(hash: $0, state: AccountState(stored: state)) } ?? .noAccount(decoy: decoy)
        }
    }

    /// The newest account's stored hash (``AccountBackend/verificationTarget(forEmail:)``), or nil in an empty table.
    private static func decoy(_ db: SQLiteConnection) throws -> String? {
        try db.text("SELECT \(SafeColumn.hash) FROM account ORDER BY id DESC LIMIT 1")
    }

    // MARK: - Helpers

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
    }

    /// Opens a read-write connection; it changes nothing by itself.
    ///
    /// Readers are not `SQLITE_OPEN_READONLY` connections on purpose: such a
    /// connection creates the `-wal` and `-shm` files of a WAL database but
    /// cannot remove them when it closes, so `signup list` would leave files
    /// behind. A read (``SQLiteConnection/read(_:)``) runs under `PRAGMA query_only`,
    /// and the reader store refuses `create` itself.
    private static func openQueue(_ name: String, path: DatabasePath) throws(StoreError) -> SQLiteConnection {
        do {
            return try SQLiteConnection(name, mode: .readWrite, busyTimeout: busyTimeout, settings: [
                // A setting of this connection only: nothing is written.
                "PRAGMA synchronous = NORMAL",
                // Freed bytes are zeroed: a changed or deleted hash does not linger in free pages.
                "PRAGMA secure_delete = ON",
            ])
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    private static func readContents(_ file: [UInt8], path: DatabasePath, immutable: Bool) throws(StoreError) -> (AccountStore, Migrations.Contents) {
        let name = try SQLiteName.make(file, writable: false, path: path)
        if immutable {
            let store = try AccountStore(reading: path, name: name, immutable: true)
            return (store, try store.reading { db in try Migrations.contents(db, path: path) })
        }
        let contents = try inspect(name, path: path)
        return (try AccountStore(reading: path, name: name, immutable: false), contents)
    }

    /// What the file holds, read on a connection of its own that writes nothing, not even when it closes.
    ///
    /// Runs before any other connection opens: a connection reads the file as it opens, and
    /// the last connection to close checkpoints a non-empty `-wal` into the file. When
    /// such a `-wal` is there (a crash left it), the file is read through a read-only
    /// connection, which never checkpoints, so a file that is then refused keeps its bytes.
    /// Otherwise a read-write connection is used: a read-only one would leave `-wal` and
    /// `-shm` behind.
    ///
    /// A read-only connection makes a `-shm` beside the file when there is none. A non-empty
    /// `-wal` with no `-shm` means no connection is open (a crash left it), so nothing can
    /// change the two files meanwhile: they are read from a private copy, and nothing at all
    /// is added beside a file that is then refused.
    ///
    /// With `rehearsingWrites`, what the writer is about to do (migrations, the WAL switch) is
    /// first done to that private copy: the writer's connection replays and removes a crash-left
    /// `-wal`, so whatever would fail must fail on the copy.
    private static func inspect(_ name: SQLiteName, path: DatabasePath, rehearsingWrites: Bool = false) throws(StoreError) -> Migrations.Contents {
        if FileSystem.isCutShort(name.file) {
            throw .unavailable(reason: "the database \(path) is damaged: it is not a whole number of pages")
        }
        let readOnly = (FileSystem.size(of: name.file + Array("-wal".utf8)) ?? 0) > 0
        var target = name.text
        if readOnly, FileSystem.size(of: name.file + Array("-shm".utf8)) == nil,
           let copy = FileSystem.privateCopy(of: name.file) {
            target = copy
        }
        defer { if target != name.text { FileSystem.removePrivateCopy(FileSystem.parentText(of: target)) } }
        do {
            let reader = try SQLiteConnection(target, mode: readOnly ? .readOnly : .readWrite, busyTimeout: busyTimeout)
            let contents = try reader.read {
                // A crash left this -wal: the writer that opens next replays it into the file and
                // removes it, which a damaged file found later could not undo. Check the whole
                // file first, on the copy, in this rare case only (a live -wal has its -shm).
                if target != name.text, try reader.text("PRAGMA quick_check(1)") != "ok" {
                    throw StoreError.unavailable(reason: "the database \(path) is damaged")
                }
                return try Migrations.contents(reader, path: path)
            }
            try reader.close()
            if rehearsingWrites && target != name.text {
                let rehearsal = try openQueue(target, path: path)
                defer { try? rehearsal.close() }
                try Migrations.migrate(rehearsal)
                _ = try rehearsal.text("PRAGMA journal_mode = WAL")
            }
            return contents
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// A read-only connection through SQLite's `immutable=1` URI: no locks, no `-wal` or `-shm`.
    ///
    /// The one place a URI is made, from an absolute path whose every byte but the
    /// unreserved ones is percent-encoded, so no byte of the path can act as URI syntax.
    private static func openImmutable(_ name: SQLiteName, path: DatabasePath) throws(StoreError) -> SQLiteConnection {
        do {
            return try SQLiteConnection(
                "file:" + SQLiteName.percentEncoded(name.file) + "?immutable=1", mode: .readOnlyURI, busyTimeout: nil)
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// Runs `body` on the connection (one caller at a time), mapping what it throws to a ``StoreError``.
    private func access<T>(_ body: (SQLiteConnection) throws -> T) throws(StoreError) -> T {
        do {
            return try db.access { try body(db) }
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// Runs `body` in a read transaction that cannot write (``SQLiteConnection/read(_:)``).
    private func reading<T>(_ body: (SQLiteConnection) throws -> T) throws(StoreError) -> T {
        try access { db in try db.read { try body(db) } }
    }
}

/// The name SQLite is given for a checked, absolute database path.
///
/// A path whose bytes are not UTF-8 is not given to SQLite as those bytes (as earlier releases,
/// whose SQLite layer took a `String`, could not): it is opened here (`O_NOFOLLOW`) and SQLite is
/// given `/proc/self/fd/N`. SQLite resolves that link to the file's real name, bytes and all,
/// and names `-wal` and `-shm` from it. The descriptor stays open as long as the store.
struct SQLiteName {
    /// Closes its descriptor when the last store using it goes.
    final class Descriptor: Sendable {
        let fd: Int32
        init(_ fd: Int32) { self.fd = fd }
        deinit { _ = Glibc.close(fd) }
    }

    var text: String
    var file: [UInt8]
    var descriptor: Descriptor?

    static func make(_ file: [UInt8], writable: Bool, path: DatabasePath) throws(StoreError) -> SQLiteName {
        if let text = String(validating: file, as: UTF8.self) { return SQLiteName(text: text, file: file) }
        let fd = file.withCString { open($0, (writable ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_CLOEXEC) }
        guard fd >= 0 else { throw .unavailable(reason: "cannot open \(path): \(FileSystem.describe(errno))") }
        return SQLiteName(text: "/proc/self/fd/\(fd)", file: file, descriptor: Descriptor(fd))
    }

    static func percentEncoded(_ bytes: [UInt8]) -> String {
        var out = ""
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return out
    }
}
