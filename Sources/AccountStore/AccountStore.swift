import FoundationEssentials  // Date and TimeInterval; nothing else of Foundation
import SignupCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
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

    /// This store's share of the process's one connection to the file (``DatabaseFile``).
    private let connection: DatabaseFile.Lease
    let isReadOnly: Bool
    /// Whether the keys on disk still predate `v2-email-key-casefold` (a reader never migrates).
    private let hasOldKeys: Bool
    /// Whether `v3-account-state` has run (a reader of an older file sees every account as active).
    private let hasStates: Bool

    var db: SQLiteConnection { connection.file.db }
    /// The process's connection to the file (Backup.swift copies through it).
    var file: DatabaseFile { connection.file }

    /// Opens the database at `path`, creating it (and its folders) when missing.
    public convenience init(path: String) throws(StoreError) {
        try self.init(at: DatabasePath(path))
    }

    /// Opens the database at `path`, creating it (and its folders) when missing.
    ///
    /// The path is checked first (`FileSystem.resolve(_:creatingFolders:)`): no
    /// symbolic link at the path, nothing another user could have planted. Missing
    /// folders are created with mode 0700 and the file with mode 0600; SQLite gives
    /// the `-wal` and `-shm` files the database file's mode, and an existing file
    /// keeps its own. A zero-byte file is treated as a new database. Before anything
    /// is written the file is read and refused if it is another program's, newer,
    /// or lacks its unique key; then it is switched to WAL and pending migrations run.
    ///
    /// A process has one connection to a database file, whatever path names it: a second store
    /// of the same file shares it, and the file's own checks ran when it first opened
    /// (`DatabaseFile`, CONTRIBUTING.md "One door to the database file").
    public init(at path: DatabasePath) throws(StoreError) {
        self.path = path
        isReadOnly = false
        connection = try DatabaseFile.forWriting(path)
        do {
            hasOldKeys = false
            hasStates = true
            // Migrations run first, in the file's own journal mode: in a transaction a damaged
            // file refuses is rolled back, so it keeps its bytes (the WAL switch rewrites the
            // header and cannot be undone). A file that migrated is then given its journal mode.
            try db.access {
                try Migrations.migrate(db)
                try Self.chooseJournal(db, sharedForReading: connection.file.isSharedForReading)
            }
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// Puts the file in the journal mode its readers need.
    ///
    /// A file only its owner may read is kept in WAL: readers never wait for writers. A file its
    /// group or others may read (a mail server's auth worker in its group) is kept in the rollback
    /// journal (`DELETE`): WAL cannot be read without its `-wal` and `-shm`, which such a reader
    /// may not create, and every other program that closes the file last (the `sqlite3` shell's
    /// `.backup`, Python, PHP) deletes them. In the rollback journal the file alone is the
    /// database: whoever closed it last, the reader reads it. Readers and writers then take turns
    /// (a writer waits up to ``busyTimeout``; so does signup's reader).
    ///
    /// Leaving WAL needs every other connection closed: while one is open (a mail server's) the
    /// file stays in WAL, its side files kept, and a later run switches it.
    static func chooseJournal(_ db: SQLiteConnection, sharedForReading: Bool) throws {
        let wanted = sharedForReading ? "delete" : "wal"
        guard try db.text("PRAGMA journal_mode") != wanted else { return }
        // On a read-only file this stays in its current mode; writes then
        // fail with SQLITE_READONLY, which `create` reports.
        // The switch needs the file's exclusive lock, which SQLite takes without its busy
        // handler: another program's write lock on a file it put in a rollback journal
        // refused the writer at once, where a writer waits its turn.
        guard sharedForReading else {
            try db.retryingWhileBusy(for: Self.busyTimeout) { _ = try db.text("PRAGMA journal_mode = WAL") }
            return
        }
        // Leaving WAL removes the -wal and -shm only when they are not kept.
        try db.keepSideFiles(false)
        do {
            try db.retryingWhileBusy(for: 0.2) { _ = try db.text("PRAGMA journal_mode = DELETE") }
        } catch let error as SQLiteError where error.isBusy {
            try db.keepSideFiles(true)
        }
    }

    private init(reading path: DatabasePath, connection: DatabaseFile.Lease, hasOldKeys: Bool, hasStates: Bool) {
        self.path = path
        isReadOnly = true
        self.connection = connection
        self.hasOldKeys = hasOldKeys
        self.hasStates = hasStates
    }

    /// Opens an existing database read-only, or returns nil when there is none yet.
    public static func openExisting(path: String) throws(StoreError) -> AccountStore? {
        try openExisting(at: DatabasePath(path))
    }

    /// Opens an existing database read-only, or returns nil when there is none yet.
    ///
    /// Nothing is created or changed: no folder, no file, no migration. A missing or zero-byte
    /// file, or an SQLite database with none of our tables yet, counts as "none yet". The same
    /// checks as for writing apply (path, another program's, newer, unique key). On a medium
    /// nothing may change (a read-only mount, an immutable file) the file is read as it is,
    /// unless a non-empty `-wal` beside it holds changes that cannot be read there: then it is
    /// refused rather than read stale. ``create(email:passwordHash:at:)`` on the result throws.
    /// A file this process already has open is read through that connection (`DatabaseFile`).
    public static func openExisting(at path: DatabasePath) throws(StoreError) -> AccountStore? {
        guard let (connection, contents) = try DatabaseFile.existing(path) else { return nil }
        switch contents {
        case .empty: return nil
        case .signup(let oldKeys, let states):
            return AccountStore(reading: path, connection: connection, hasOldKeys: oldKeys, hasStates: states)
        }
    }

    /// Stores a new account and returns it with its id.
    ///
    /// The email is stored trimmed and in NFC, as entered otherwise; its
    /// ``key(forEmail:)`` must be unique, else this throws ``StoreError/emailTaken``.
    /// `passwordHash` is a ``PasswordHash`` (from ``PasswordHasher/hash(_:costs:)`` or
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
            if let refusal = limits.refusal(fromOrigin: Int(fromOrigin), fromAll: Int(fromAll)) { throw StoreError.limitReached(refusal) }
        }
    }

    /// Records a public session's mail if `limits` leave room (``AccountBackend/recordMail(origin:purpose:toEmail:at:limits:)``):
    /// the counts, the insert and the removal of rows past both windows are one immediate transaction.
    public func recordMail(origin: String, purpose: LimitPurpose, toEmail email: String, at date: Date, limits: SignupLimits) throws(StoreError) -> LimitRefusal? {
        try checkWritable()
        let key = try Self.checkedKey(forEmail: email)
        let (since, accountSince, oldest) = Self.windows(limits, at: date)
        return try writing { db in
            try db.execute("DELETE FROM mail_sent WHERE sent_at < ?", [.text(oldest)])
            let fromOrigin = try db.integer("SELECT count(*) FROM mail_sent WHERE origin = ? AND purpose = ? AND sent_at >= ?",
                                            [.text(origin), .text(purpose.rawValue), .text(since)]) ?? 0
            let fromAll = try db.integer("SELECT count(*) FROM mail_sent WHERE purpose = ? AND sent_at >= ?", [.text(purpose.rawValue), .text(since)]) ?? 0
            if let refusal = limits.mailRefusal(fromOrigin: Int(fromOrigin), fromAll: Int(fromAll), purpose: purpose) {
                throw StoreError.limitReached(refusal)
            }
            let toAccount = try db.integer("SELECT count(*) FROM mail_sent WHERE email_key = ? AND purpose = ? AND sent_at >= ?",
                                           [.text(key), .text(purpose.rawValue), .text(accountSince)]) ?? 0
            let withheld = limits.accountMailRefusal(toAccount: Int(toAccount), purpose: purpose)
            try db.execute("INSERT INTO mail_sent (origin, sent_at, purpose, email_key) VALUES (?, ?, ?, ?)",
                           [.text(origin), .text(Self.timestamp(date)), .text(purpose.rawValue), withheld == nil ? .text(key) : .null])
            return withheld
        }
    }

    /// Counts a code checked for an account if its bound leaves room (``AccountBackend/admitCode(forEmail:purpose:at:limits:)``):
    /// the count, the insert and the removal of rows past the account window are one immediate transaction.
    public func admitCode(forEmail email: String, purpose: LimitPurpose, at date: Date, limits: SignupLimits) throws(StoreError) -> LimitRefusal? {
        try checkWritable()
        let key = try Self.checkedKey(forEmail: email)
        let (_, accountSince, _) = Self.windows(limits, at: date)
        return try writing { db in
            try db.execute("DELETE FROM code_checked WHERE checked_at < ?", [.text(accountSince)])
            let checked = try db.integer("SELECT count(*) FROM code_checked WHERE email_key = ? AND purpose = ?",
                                         [.text(key), .text(purpose.rawValue)]) ?? 0
            if let refusal = limits.codeRefusal(forAccount: Int(checked), purpose: purpose) { return refusal }
            try db.execute("INSERT INTO code_checked (email_key, purpose, checked_at) VALUES (?, ?, ?)",
                           [.text(key), .text(purpose.rawValue), .text(Self.timestamp(date))])
            return nil
        }
    }

    /// The starts of `limits`' windows that end at `date`, as stored timestamps: the one of the
    /// counts per client and overall, the one of the counts per account, and the older of the two.
    static func windows(_ limits: SignupLimits, at date: Date) -> (client: String, account: String, oldest: String) {
        let client = date.addingTimeInterval(-Double(limits.windowSeconds))
        let account = date.addingTimeInterval(-Double(limits.accountWindowSeconds))
        return (timestamp(client), timestamp(account), timestamp(min(client, account)))
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
        let key = try Self.checkedKey(forEmail: email)
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
            try db.execute(sql, arguments + [.text(try Self.checkedKey(forEmail: email))])
        }
        if changed == 0 { throw .noAccount }
    }

    /// Replaces the account's hash (``AccountBackend/changePassword(email:to:at:whenLocked:)``).
    public func changePassword(email: String, to passwordHash: PasswordHash, at date: Date, whenLocked: () -> Void) throws(StoreError) {
        try changeRow("UPDATE account SET password_hash = ?, password_changed_at = ? WHERE email_key = ?",
                      [.text(passwordHash.phc), .text(Self.timestamp(date))], email: email, whenLocked: whenLocked, removesHashes: true)
    }

    /// Sets the account's state (``AccountBackend/setState(_:email:whenLocked:)``).
    public func setState(_ state: AccountState, email: String, whenLocked: () -> Void) throws(StoreError) -> AccountState {
        try checkWritable()
        let key = try Self.checkedKey(forEmail: email)
        let before: String? = try writing(whenLocked: whenLocked) { db in
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
                INSERT INTO account (email, email_key, password_hash, created_at, state, password_changed_at, origin) \
                VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (email_key) DO NOTHING
                """) { insert in
                var outcomes: [BatchOutcome] = []
                outcomes.reserveCapacity(rows.count)
                for row in rows {
                    let key = try Self.checkedKey(forEmail: row.email)
                    try insert.bind([.text(Self.normalized(row.email)), .text(key), .text(row.passwordHash.phc), .text(row.createdAt ?? now),
                                     .text(row.state.rawValue), SQLiteValue(row.passwordChangedAt), SQLiteValue(row.origin)])
                    try insert.run()
                    if db.changes == 1 {
                        outcomes.append(.created(id: db.lastInsertedRowID))
                    } else if !update {
                        outcomes.append(.taken)
                    } else if let createdAt = row.createdAt {
                        // A whole account (an export's): it replaces the taken one's, as it was.
                        try db.execute("""
                            UPDATE account SET password_hash = ?, state = ?, created_at = ?, password_changed_at = ?, origin = ? \
                            WHERE email_key = ?
                            """, [.text(row.passwordHash.phc), .text(row.state.rawValue), .text(createdAt), SQLiteValue(row.passwordChangedAt),
                                  SQLiteValue(row.origin), .text(key)])
                        outcomes.append(.updated)
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

    /// The account's email as stored (``AccountBackend/storedEmail(forEmail:)``).
    public func storedEmail(forEmail email: String) throws(StoreError) -> String? {
        let key = try Self.checkedKey(forEmail: email)
        return try reading { db in
            if hasOldKeys {
                // The keys on disk are an earlier rule's: today's key of every email is compared.
                var found: String?
                try db.withStatement("SELECT \(SafeColumn.text("email")) FROM account") { rows in
                    while try rows.step() {
                        if found == nil, try Self.checkedKey(forEmail: rows.text(0)) == key { found = rows.text(0) }
                    }
                }
                return found
            }
            return try db.text("SELECT \(SafeColumn.text("email")) FROM account WHERE email_key = ?", [.text(key)])
        }
    }

    /// Calls `body` with each account in id order, one row in memory at a time, until it returns false.
    ///
    /// Hashes never leave the store this way. Memory does not grow with the number of accounts.
    ///
    /// Rows are read one at a time with SQLite's column functions (BENCHMARKS.md). Text
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

    /// Every account whole, in id order (``AccountBackend/streamWholeAccounts(_:)``).
    public func streamWholeAccounts(_ body: (ExportedAccount) -> Bool) throws(StoreError) {
        try reading { db in
            try db.withStatement("""
                SELECT \(SafeColumn.text("email")), \(SafeColumn.hash), \(SafeColumn.text("state")), CAST(origin AS TEXT), \
                \(SafeColumn.text("created_at")), CAST(password_changed_at AS TEXT) FROM account ORDER BY id
                """) { rows in
                while try rows.step() {
                    let account = ExportedAccount(
                        email: rows.text(0), passwordHash: rows.text(1), state: AccountState(stored: rows.text(2)),
                        origin: rows.optionalText(3), createdAt: rows.text(4), passwordChangedAt: rows.optionalText(5))
                    if !body(account) { return }
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
        let key = try Self.checkedKey(forEmail: email)
        return try reading { db in
            var found: String?
            var state = "active"
            let stateColumn = hasStates ? SafeColumn.text("state") : "'active'"
            if hasOldKeys {
                // The keys on disk are an earlier rule's (v1's, or v4's before domains went through IDNA):
                // compare today's key of every email (a reader does not migrate). The whole table is
                // read either way, so the time does not tell a known email from an unknown one.
                try db.withStatement("""
                    SELECT \(SafeColumn.text("email")) AS email, \(SafeColumn.hash) AS password_hash, \(stateColumn) FROM account
                    """) { rows in
                    while try rows.step() {
                        if found == nil, try Self.checkedKey(forEmail: rows.text(0)) == key {
                            found = rows.text(1)
                            state = rows.text(2)
                        }
                    }
                }
            } else {
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

    /// `date` in UTC to the second, as `Date.ISO8601FormatStyle(timeZone: .gmt)` writes it
    /// (`2026-11-29T01:02:03Z`), by the C library: the format style builds a Gregorian calendar
    /// first, 2.5 million instructions in a sign-up that is otherwise mostly its hash. A date
    /// before 1900 or after 9999 (a window start of an absurd length) is written as the first or
    /// last second of that range, which compares with every stored timestamp as it did.
    static func timestamp(_ date: Date) -> String {
        let bounded = min(max(date.timeIntervalSince1970, -2_208_988_800), 253_402_300_799)  // 1900-01-01 to 9999-12-31
        var seconds = time_t(bounded.rounded(.down))
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return "1900-01-01T00:00:00Z" }
        var text: [UInt8] = []
        text.reserveCapacity(20)
        func digits(_ value: Int32, _ count: Int, then separator: Character) {
            var divisor: Int32 = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
            text.append(UInt8(ascii: separator.unicodeScalars.first!))
        }
        digits(parts.tm_year + 1900, 4, then: "-")
        digits(parts.tm_mon + 1, 2, then: "-")
        digits(parts.tm_mday, 2, then: "T")
        digits(parts.tm_hour, 2, then: ":")
        digits(parts.tm_min, 2, then: ":")
        digits(parts.tm_sec, 2, then: "Z")
        return String(decoding: text, as: UTF8.self)
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
