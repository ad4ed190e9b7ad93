import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SignupCore

/// The accounts in a PostgreSQL database: the same `account` table, the same named
/// migrations and the same promises as the SQLite ``AccountStore``.
///
/// Email keys come from ``AccountStore/key(forEmail:)``, computed here in Swift, so both
/// backends key an email the same way. Every libpq error becomes a ``StoreError`` whose
/// reason is libpq's or the server's primary message (never its DETAIL, HINT or CONTEXT, which
/// can quote a row; a data exception, whose message can quote a value, in signup's own words).
public final class PostgresStore: AccountBackend {
    /// Where this store connects, for messages.
    public let location: PostgresLocation
    private let connection: PGConnection
    /// Whether `v3-account-state` has run (a reader of an older database sees every account as active).
    private var hasStates = true
    /// Whether the keys on disk may be an earlier rule's (`v2-email-key-casefold`,
    /// `v5-email-key-idna` or `v7-email-key-mailbox` still to run): a reader, which does not migrate, then compares today's
    /// key of every row.
    private var hasOldKeys = false
    /// Whether the session's bounds (``sessionBounds``) are set: a store's first look sets them in its round trip.
    private var isConfigured = false

    /// The migrations this program knows, in order; the SQLite store's names, so both backends agree.
    static let migrationNames = [
        "v1-accounts", "v2-email-key-casefold", Migrations.accountState, Migrations.accountOrigin, Migrations.idnaKeys, Migrations.mailSent,
        Migrations.mailboxKeys, Migrations.limitCounts,
    ]
    /// `pg_advisory_xact_lock` key under which migrations run: "signup" in ASCII.
    static let migrationLock = "115471698949488"

    /// Connects and applies pending migrations (once, even when many processes start together).
    public init(_ location: PostgresLocation) throws(StoreError) {
        self.location = location
        connection = try Self.connect(location, configured: false)
        try migrate()
    }

    private init(_ location: PostgresLocation, connection: PGConnection) {
        self.location = location
        self.connection = connection
    }

    /// Connects without writing anything, or returns nil when the database holds no accounts table yet.
    public static func openExisting(_ location: PostgresLocation) throws(StoreError) -> PostgresStore? {
        let connection = try connect(location, configured: false)
        let store = PostgresStore(location, connection: connection)
        let applied = try store.appliedMigrations()
        store.hasStates = applied.contains(Migrations.accountState)
        store.hasOldKeys = !Migrations.keyMigrations.allSatisfy(applied.contains)
        return applied.contains("v1-accounts") ? store : nil
    }

    /// An existing store, made ready for writing on the same connection (pending migrations
    /// applied), or nil when the database holds no accounts table yet: one connection for the
    /// command, as for SQLite, instead of a reader's and then a writer's.
    static func openExistingForWriting(_ location: PostgresLocation) throws(StoreError) -> PostgresStore? {
        guard let store = try openExisting(location) else { return nil }
        try store.migrate()
        store.hasStates = true
        store.hasOldKeys = false
        return store
    }

    /// Refuses, without writing, a database with no account table yet where `create` could not
    /// make one: a server in recovery, a read-only database or session, or a role that may not
    /// create in its schema. (With a table, ``rehearseCreate(email:passwordHash:)`` inserts and rolls back.)
    static func checkWritable(_ location: PostgresLocation) throws(StoreError) {
        let connection = try connect(location)
        let row: [String?]?
        do {
            row = try connection.execute("""
                SELECT pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on',
                       CASE WHEN to_regclass('account') IS NULL
                            THEN coalesce(has_schema_privilege(current_schema(), 'CREATE'), false)
                            ELSE has_table_privilege('account', 'INSERT') END
                """, []).first
        } catch {
            throw storeError(error, location: location)
        }
        if row?[0] != "f" { throw .unavailable(reason: "\(location) is read-only: the account would not be stored", problem: .readOnly) }
        if row?[1] != "t" { throw .unavailable(reason: "\(location): this role may not store accounts there (no INSERT on account, or no CREATE in its schema)", problem: .noPermission) }
    }

    // MARK: - AccountBackend

    /// Stores a new account (see ``AccountBackend/create(email:passwordHash:at:whenLocked:)``).
    public func create(
        email: String, passwordHash: PasswordHash, at date: Date, state: AccountState, whenLocked: () -> Void
    ) throws(StoreError) -> Account {
        try insert(email: email, passwordHash: passwordHash, at: date, state: state, publicSignup: nil, whenLocked: whenLocked)
    }

    /// Stores a public sign-up's account, pending, if `limits` allow one more from `origin`
    /// (``AccountBackend/createPending(email:passwordHash:at:origin:limits:whenLocked:)``).
    /// Public sign-ups take one advisory lock for their count and insert, so two are never both
    /// counted under the limit.
    public func createPending(
        email: String, passwordHash: PasswordHash, at date: Date, origin: String, limits: SignupLimits, whenLocked: () -> Void
    ) throws(StoreError) -> Account {
        try insert(email: email, passwordHash: passwordHash, at: date, state: .pending, publicSignup: (origin, limits), whenLocked: whenLocked)
    }

    /// Records a public session's mail if `limits` leave room (``AccountBackend/recordMail(origin:purpose:toEmail:at:limits:)``),
    /// under the public sign-ups' lock.
    public func recordMail(origin: String, purpose: LimitPurpose, toEmail email: String, at date: Date, limits: SignupLimits) throws(StoreError) -> LimitRefusal? {
        let key = try AccountStore.checkedKey(forEmail: email)
        let (since, accountSince, oldest) = AccountStore.windows(limits, at: date)
        var refusal: LimitRefusal?
        var withheld: LimitRefusal?
        try underPublicLock { () throws(PGFailure) in
            try connection.execute("DELETE FROM mail_sent WHERE sent_at < $1", [oldest])
            let counts = try connection.execute("""
                SELECT count(*) FILTER (WHERE origin = $1 AND sent_at >= $3), count(*) FILTER (WHERE sent_at >= $3),
                       count(*) FILTER (WHERE email_key = $4 AND sent_at >= $5)
                FROM mail_sent WHERE purpose = $2
                """, [origin, purpose.rawValue, since, key, accountSince])
            let count = { (column: Int) in Int(counts.first?[column] ?? "") ?? 0 }
            refusal = limits.mailRefusal(fromOrigin: count(0), fromAll: count(1), purpose: purpose)
            guard refusal == nil else { return }
            withheld = limits.accountMailRefusal(toAccount: count(2), purpose: purpose)
            try connection.execute("INSERT INTO mail_sent (origin, sent_at, purpose, email_key) VALUES ($1, $2, $3, $4)",
                                   [origin, AccountStore.timestamp(date), purpose.rawValue, withheld == nil ? key : nil])
        }
        if let refusal { throw .limitReached(refusal) }
        return withheld
    }

    /// Counts a code checked for an account if its bound leaves room (``AccountBackend/admitCode(forEmail:purpose:at:limits:)``),
    /// under the public sign-ups' lock.
    public func admitCode(forEmail email: String, purpose: LimitPurpose, at date: Date, limits: SignupLimits) throws(StoreError) -> LimitRefusal? {
        let key = try AccountStore.checkedKey(forEmail: email)
        let (_, accountSince, _) = AccountStore.windows(limits, at: date)
        var refusal: LimitRefusal?
        try underPublicLock { () throws(PGFailure) in
            try connection.execute("DELETE FROM code_checked WHERE checked_at < $1", [accountSince])
            let counts = try connection.execute("SELECT count(*) FROM code_checked WHERE email_key = $1 AND purpose = $2", [key, purpose.rawValue])
            refusal = limits.codeRefusal(forAccount: Int(counts.first?[0] ?? "") ?? 0, purpose: purpose)
            guard refusal == nil else { return }
            try connection.execute("INSERT INTO code_checked (email_key, purpose, checked_at) VALUES ($1, $2, $3)",
                                   [key, purpose.rawValue, AccountStore.timestamp(date)])
        }
        return refusal
    }

    /// Runs `body` in a transaction that holds the public sign-ups' lock, committed when it returns.
    private func underPublicLock(_ body: () throws(PGFailure) -> Void) throws(StoreError) {
        do {
            try connection.execute("BEGIN")
            try connection.execute("SELECT pg_advisory_xact_lock($1::bigint)", [String(Self.publicSignupLock)])
            try body()
            try connection.execute("COMMIT")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw storeError(error)
        }
    }

    /// The lock public sign-ups take for their count and insert ("signup-p" in ASCII).
    static let publicSignupLock: Int64 = 0x7369_676e_7570_2d70

    private func insert(
        email: String, passwordHash: PasswordHash, at date: Date, state: AccountState,
        publicSignup: (origin: String, limits: SignupLimits)?, whenLocked: () -> Void
    ) throws(StoreError) -> Account {
        let email = AccountStore.normalized(email)
        let key = try AccountStore.checkedKey(forEmail: email)
        let createdAt = AccountStore.timestamp(date)
        var inserted: [[String?]] = []
        var refusal: LimitRefusal?
        do {
            try connection.execute("BEGIN")
            if let (origin, limits) = publicSignup {
                try connection.execute("SELECT pg_advisory_xact_lock($1::bigint)", [String(Self.publicSignupLock)])
                let since = AccountStore.timestamp(date.addingTimeInterval(-Double(limits.windowSeconds)))
                let counts = try connection.execute("""
                    SELECT count(*) FILTER (WHERE origin = $1), count(*) FROM account WHERE origin IS NOT NULL AND created_at >= $2
                    """, [origin, since])
                refusal = limits.refusal(fromOrigin: Int(counts.first?[0] ?? "") ?? 0, fromAll: Int(counts.first?[1] ?? "") ?? 0)
            }
            // The session's start time names this server process, so that after a lost COMMIT
            // a new connection can end exactly this session before it looks for the row. (The
            // function under pg_stat_activity, for this process alone: the view joins catalogs that
            // a new session would load only for this.)
            if refusal == nil { inserted = try connection.execute("""
                INSERT INTO account (email, email_key, password_hash, created_at, state, origin) VALUES ($1, $2, $3, $4, $5, $6)
                RETURNING id, (SELECT backend_start::text FROM pg_stat_get_activity(pg_backend_pid()))
                """, [email, key, passwordHash.phc, createdAt, state.rawValue, publicSignup?.origin]) }
        } catch {
            _ = try? connection.execute("ROLLBACK")
            if error.isUniqueViolation { throw .emailTaken }
            if error.kind == .connectionLost {
                throw .unavailable(reason: "the connection to \(location) was lost before the account was stored; it was not created (libpq: \(error.reason))", problem: .unreachable)
            }
            throw storeError(error)
        }
        if let refusal {
            _ = try? connection.execute("ROLLBACK")
            throw .limitReached(refusal)
        }
        guard let idText = inserted.first?[0], let id = Int64(idText) else {
            _ = try? connection.execute("ROLLBACK")
            throw .unavailable(reason: "\(location) did not return the new account's id")
        }
        let session = (pid: connection.backendPID, start: inserted.first?[1])
        whenLocked()
        do {
            try connection.execute("COMMIT")
        } catch {
            guard error.kind == .connectionLost else { throw storeError(error) }
            return try resolveLostCommit(email: email, key: key, passwordHash: passwordHash, session: session, lost: error)
        }
        return Account(id: id, email: email, createdAt: createdAt, state: state)
    }

    /// Runs one statement on the row of `email`'s key (its key is the last parameter) and returns
    /// the first column of what it returned, or throws ``StoreError/noAccount`` when no row matched.
    /// One statement is one transaction. A connection lost before the answer leaves it unknown
    /// whether the change was made: the message says so.
    @discardableResult
    private func changeRow(_ sql: String, _ parameters: [String?], email: String, whenLocked: () -> Void = {}) throws(StoreError) -> String? {
        let rows: [[String?]]
        let key = try AccountStore.checkedKey(forEmail: email)
        do {
            try connection.execute("BEGIN")
            rows = try connection.execute(sql, parameters + [key])
            whenLocked()
            try connection.execute("COMMIT")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            if error.kind == .connectionLost {
                throw .unavailable(reason: "the connection to \(location) was lost: the change MAY have been made; check with signup list (libpq: \(error.reason))", problem: .unreachable)
            }
            throw storeError(error)
        }
        guard let row = rows.first else { throw .noAccount }
        return row[0]
    }

    /// Replaces the account's hash (``AccountBackend/changePassword(email:to:at:whenLocked:)``).
    ///
    /// PostgreSQL keeps the old row version until VACUUM reclaims it: see SECURITY.md.
    public func changePassword(email: String, to passwordHash: PasswordHash, at date: Date, whenLocked: () -> Void) throws(StoreError) {
        try changeRow("UPDATE account SET password_hash = $1, password_changed_at = $2 WHERE email_key = $3 RETURNING id",
                      [passwordHash.phc, AccountStore.timestamp(date)], email: email, whenLocked: whenLocked)
    }

    /// Sets the account's state (``AccountBackend/setState(_:email:whenLocked:)``).
    public func setState(_ state: AccountState, email: String, whenLocked: () -> Void) throws(StoreError) -> AccountState {
        // The row is locked by the subquery, so the state returned is the one this update replaced.
        let before = try changeRow("""
            UPDATE account SET state = $1 FROM (SELECT id, state AS before FROM account WHERE email_key = $2 FOR UPDATE) AS old
            WHERE account.id = old.id RETURNING old.before
            """, [state.rawValue], email: email, whenLocked: whenLocked)
        return AccountState(stored: before ?? "")
    }

    /// Removes the account (``AccountBackend/delete(email:whenLocked:)``).
    public func delete(email: String, whenLocked: () -> Void) throws(StoreError) {
        try changeRow("DELETE FROM account WHERE email_key = $1 RETURNING id", [], email: email, whenLocked: whenLocked)
    }

    /// Replaces a verified hash (``AccountBackend/rehash(email:verified:to:)``).
    public func rehash(email: String, verified: String, to passwordHash: PasswordHash) throws(StoreError) -> Bool {
        do throws(StoreError) {
            try changeRow("UPDATE account SET password_hash = $1 WHERE password_hash = $2 AND email_key = $3 RETURNING id",
                          [passwordHash.phc, verified], email: email)
            return true
        } catch .noAccount {
            return false
        }
    }

    /// Counts the hashes a verify would make again (``AccountBackend/countHashes(weakerThan:)``).
    public func countHashes(weakerThan costs: PasswordPolicy.Argon2Costs) throws(StoreError) -> Int {
        var count = 0
        try run { () throws(PGFailure) in
            try connection.stream("SELECT password_hash FROM account", []) { row in
                if let hash = row[0], PasswordHasher.needsRehash(hash, for: costs) { count += 1 }
                return true
            }
        }
        return count
    }

    /// Stores many accounts in one transaction (``AccountBackend/insertBatch(_:update:at:)``).
    public func insertBatch(_ rows: [NewAccount], update: Bool, at date: Date) throws(StoreError) -> [BatchOutcome] {
        let now = AccountStore.timestamp(date)
        var outcomes: [BatchOutcome] = []
        var keys: [String] = []
        for row in rows { keys.append(try AccountStore.checkedKey(forEmail: row.email)) }
        do {
            try connection.execute("BEGIN")
            for (row, key) in zip(rows, keys) {
                let inserted = try connection.execute("""
                    INSERT INTO account (email, email_key, password_hash, created_at, state, password_changed_at, origin)
                    VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (email_key) DO NOTHING RETURNING id
                    """, [AccountStore.normalized(row.email), key, row.passwordHash.phc, row.createdAt ?? now, row.state.rawValue,
                          row.passwordChangedAt, row.origin])
                if let id = inserted.first?[0].flatMap({ Int64($0) }) {
                    outcomes.append(.created(id: id))
                } else if update, let createdAt = row.createdAt {
                    // A whole account (an export's): it replaces the taken one's, as it was.
                    try connection.execute("""
                        UPDATE account SET password_hash = $1, state = $2, created_at = $3, password_changed_at = $4, origin = $5
                        WHERE email_key = $6
                        """, [row.passwordHash.phc, row.state.rawValue, createdAt, row.passwordChangedAt, row.origin, key])
                    outcomes.append(.updated)
                } else if update {
                    try connection.execute("UPDATE account SET password_hash = $1, password_changed_at = $2 WHERE email_key = $3",
                                           [row.passwordHash.phc, now, key])
                    outcomes.append(.updated)
                } else {
                    outcomes.append(.taken)
                }
            }
            try connection.execute("COMMIT")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            if error.kind == .connectionLost {
                throw .unavailable(reason: "the connection to \(location) was lost while storing a batch: it MAY have been stored; run the import again to finish it (libpq: \(error.reason))", problem: .unreachable)
            }
            throw storeError(error)
        }
        return outcomes
    }

    /// The insert of ``create(email:passwordHash:at:whenLocked:)`` in a transaction that is rolled
    /// back (``AccountBackend/rehearseCreate(email:passwordHash:)``): privileges, column grants,
    /// row-level security, deferred constraints and a read-only server answer as they would for the real one.
    public func rehearseCreate(email: String, passwordHash: PasswordHash) throws(StoreError) {
        let email = AccountStore.normalized(email)
        let key = try AccountStore.checkedKey(forEmail: email)
        do {
            try connection.execute("BEGIN")
            try connection.execute(
                "INSERT INTO account (email, email_key, password_hash, created_at) VALUES ($1, $2, $3, $4)",
                [email, key, passwordHash.phc, AccountStore.timestamp(Date())])
            // Deferred constraints and triggers run at COMMIT: run them now, then roll back.
            try connection.execute("SET CONSTRAINTS ALL IMMEDIATE")
            try connection.execute("ROLLBACK")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            if error.isUniqueViolation { throw .emailTaken }
            throw storeError(error)
        }
    }

    /// Whether an account with this email exists.
    public func isTaken(email: String) throws(StoreError) -> Bool {
        let key = try AccountStore.checkedKey(forEmail: email)
        return try run { () throws(PGFailure) in
            try !connection.execute("SELECT 1 FROM account WHERE email_key = $1", [key]).isEmpty
        }
    }

    /// The account's email as stored (``AccountBackend/storedEmail(forEmail:)``).
    public func storedEmail(forEmail email: String) throws(StoreError) -> String? {
        let key = try AccountStore.checkedKey(forEmail: email)
        if hasOldKeys {
            // The keys on disk are an earlier rule's: today's key of every email is compared.
            let rows = try run { () throws(PGFailure) in try connection.execute("SELECT email FROM account", []) }
            for row in rows {
                if let stored = row[0], try AccountStore.checkedKey(forEmail: stored) == key { return stored }
            }
            return nil
        }
        return try run { () throws(PGFailure) in
            try connection.execute("SELECT email FROM account WHERE email_key = $1", [key]).first?[0] ?? nil
        }
    }

    /// What a password for this email is checked against (``AccountBackend/verificationTarget(forEmail:)``).
    public func verificationTarget(forEmail email: String) throws(StoreError) -> VerificationTarget {
        let key = try AccountStore.checkedKey(forEmail: email)
        let row: [String?]?
        if hasOldKeys {
            // The whole table is read, so the time does not tell a known email from an unknown one.
            let state = hasStates ? "state" : "'active'"
            let rows = try run { () throws(PGFailure) in try connection.execute("SELECT password_hash, \(state), email FROM account", []) }
            var found: [String?]?
            for candidate in rows where found == nil {
                if try AccountStore.checkedKey(forEmail: candidate[2] ?? "") == key { found = candidate }
            }
            row = found
        } else {
            row = nil
        }
        return try run { () throws(PGFailure) in
            let state = hasStates ? "state" : "'active'"
            let row = hasOldKeys ? row : try connection.execute("SELECT password_hash, \(state) FROM account WHERE email_key = $1", [key]).first
            // The newest account's hash, looked up for a known email too: both take the same queries.
            let decoy = try connection.execute("SELECT password_hash FROM account ORDER BY id DESC LIMIT 1", []).first?[0] ?? nil
            guard let found = row?[0] else { return .noAccount(decoy: decoy) }
            return .account(hash: found, state: AccountState(stored: row?[1] ?? ""))
        }
    }

    /// Calls `body` with each account in id order until it returns false.
    public func streamAccounts(inState wanted: AccountState?, _ body: (Account) -> Bool) throws(StoreError) {
        var malformed = false
        let state = hasStates ? "state" : "'active'"
        // Filtered on the state as AccountState(stored:) reads it below (NULL as ""): byte for
        // byte, whatever collation or type the column was given since.
        let stored = hasStates ? "COALESCE(CAST(state AS TEXT), '') COLLATE \"C\"" : "'active'"
        let changed = hasStates ? "password_changed_at" : "NULL"
        try run { () throws(PGFailure) in
            try connection.stream("""
                SELECT id, email, created_at, \(state), \(changed) FROM account
                WHERE $1::text IS NULL OR \(AccountRow.inState(stored, "$1")) ORDER BY id
                """, [wanted?.rawValue]) { row in
                guard let id = row[0].flatMap({ Int64($0) }), let email = row[1], let createdAt = row[2] else {
                    malformed = true
                    return false
                }
                return body(Account(id: id, email: email, createdAt: createdAt, state: AccountState(stored: row[3] ?? ""), passwordChangedAt: row[4]))
            }
        }
        if malformed { throw .unavailable(reason: "\(location) holds an account row with a missing value") }
    }

    /// Every account whole, in id order (``AccountBackend/streamWholeAccounts(_:)``).
    public func streamWholeAccounts(_ body: (ExportedAccount) -> Bool) throws(StoreError) {
        var malformed = false
        try run { () throws(PGFailure) in
            try connection.stream("""
                SELECT email, password_hash, COALESCE(CAST(state AS TEXT), ''), origin, created_at, password_changed_at
                FROM account ORDER BY id
                """, []) { row in
                guard let email = row[0], let hash = row[1], let createdAt = row[4] else {
                    malformed = true
                    return false
                }
                return body(ExportedAccount(email: email, passwordHash: hash, state: AccountState(stored: row[2] ?? ""), origin: row[3],
                                            createdAt: createdAt, passwordChangedAt: row[5]))
            }
        }
        if malformed { throw .unavailable(reason: "\(location) holds an account row with a missing value") }
    }

    // MARK: - The ambiguous commit

    /// The connection broke after COMMIT was sent: the server may or may not have committed.
    /// On a new connection, end the old session (so it cannot commit later), then look for this
    /// run's row: its hash, with its random salt, is unique. Report what is true.
    private func resolveLostCommit(
        email: String, key: String, passwordHash: PasswordHash, session: (pid: Int32, start: String?), lost: PGFailure
    ) throws(StoreError) -> Account {
        var lastFailure = lost
        for attempt in 0..<3 {
            if attempt > 0 { sleep(1) }
            let rows: [[String?]]
            do throws(PGFailure) {
                let fresh = try PGConnection(conninfo: location.conninfo)
                try Self.configureSession(fresh)
                if let start = session.start {
                    try Self.endSession(pid: session.pid, start: start, on: fresh)
                }
                rows = try fresh.execute(
                    "SELECT id, email, created_at FROM account WHERE email_key = $1 AND password_hash = $2",
                    [key, passwordHash.phc]
                )
            } catch {
                lastFailure = error
                continue
            }
            if let row = rows.first, let id = row[0].flatMap({ Int64($0) }), let stored = row[1], let createdAt = row[2] {
                return Account(id: id, email: stored, createdAt: createdAt)
            }
            throw .unavailable(reason: "the connection to \(location) was lost while committing (libpq: \(lost.reason)); "
                + "checked on a new connection: the account was NOT created", problem: .unreachable)
        }
        throw .unavailable(reason: "the connection to \(location) was lost while committing (libpq: \(lost.reason)), "
            + "and the server could not be asked again (libpq: \(lastFailure.reason)): the account MAY have been created; "
            + "check with signup verify or signup list", problem: .unreachable)
    }

    /// Ends the session `pid` started at `start` and waits (up to 15 s) until it is gone.
    private static func endSession(pid: Int32, start: String, on connection: PGConnection) throws(PGFailure) {
        let parameters: [String?] = [String(pid), start]
        let match = "FROM pg_stat_activity WHERE pid = $1::int AND backend_start::text = $2"
        _ = try? connection.execute("SELECT pg_terminate_backend(pid) \(match)", parameters)
        for _ in 0..<150 {
            // pg_stat_activity is a snapshot per transaction: each query here is its own.
            if try connection.execute("SELECT 1 \(match)", parameters).isEmpty { return }
            usleep(100_000)
        }
        throw PGFailure(.connectionLost, "the old session (process \(pid)) did not end within 15 s")
    }

    // MARK: - Connecting and migrating

    /// Connects; with `configured` false the caller sends ``sessionBounds`` first itself, in its
    /// first round trip (``appliedMigrations()``), before any statement that could wait.
    private static func connect(_ location: PostgresLocation, configured: Bool = true) throws(StoreError) -> PGConnection {
        do {
            let connection = try PGConnection(conninfo: location.conninfo)
            if configured { try configureSession(connection) }
            return connection
        } catch {
            if error.kind == .connect {
                throw .unavailable(reason: "cannot connect to \(location): \(error.reason)", problem: .unreachable)
            }
            throw storeError(error, location: location)
        }
    }

    /// Bounds every statement and lock wait, unless the server, the role or `PGOPTIONS` already did.
    private static func configureSession(_ connection: PGConnection) throws(PGFailure) {
        try connection.execute(sessionBounds)
    }

    /// The statement of ``configureSession(_:)``.
    static let sessionBounds = """
        SELECT CASE WHEN current_setting('statement_timeout') = '0' THEN set_config('statement_timeout', '30s', false) END,
               CASE WHEN current_setting('lock_timeout') = '0' THEN set_config('lock_timeout', '10s', false) END
        """

    /// What is there: whether the migrations table and the account table exist, and the account
    /// table's kind and whether it has (or had) triggers or rules, or row security enabled. Only
    /// when one of those flags is set are the triggers, rules and row security looked at in
    /// detail (``accountTableDetails``): most databases need no more catalogs than `pg_class`,
    /// which a new server process must otherwise load for every connection.
    static let look = """
        SELECT to_regclass('grdb_migrations') IS NOT NULL, a.oid IS NOT NULL, c.relkind::text,
               c.relhastriggers OR c.relhasrules OR c.relrowsecurity
        FROM (SELECT to_regclass('account') oid) a LEFT JOIN pg_class c ON c.oid = a.oid
        """

    /// The account table's triggers and rules other than its constraints' and a view's own, and
    /// whether row security applies to this role. Internal triggers (foreign keys, deferrable
    /// unique keys) are the constraints' own; `_RETURN` is a view's, refused as a view is.
    static let accountTableDetails = """
        SELECT (SELECT string_agg(tgname::text, ', ' ORDER BY tgname) FROM pg_trigger
                WHERE tgrelid = to_regclass('account') AND NOT tgisinternal),
               (SELECT string_agg(rulename::text, ', ' ORDER BY rulename) FROM pg_rewrite
                WHERE ev_class = to_regclass('account') AND rulename <> '_RETURN'),
               CASE WHEN to_regclass('account') IS NOT NULL THEN row_security_active(to_regclass('account')) END
        """

    /// The applied migrations; a migration this program does not know, an `account` table that
    /// no migration of ours made, or one with a trigger or a rule, is refused before anything is written.
    private func appliedMigrations() throws(StoreError) -> [String] {
        try run { () throws(PGFailure) in
            // One round trip, outside a transaction, when the database is signup's: the session's bounds
            // (on a new connection), what is there and the applied migrations, in one Query message.
            // Without a migrations table the message fails as a whole (and sets nothing): then the
            // bounds and the look alone.
            let first = isConfigured ? "" : Self.sessionBounds + ";\n"
            var found: [String?] = []
            var listed: [String]?
            if connection.isIdle {
                do throws(PGFailure) {
                    let results = try connection.executeAll(first + Self.look + ";\nSELECT identifier FROM grdb_migrations")
                    found = results.dropLast().last?.first ?? []
                    listed = results.last?.compactMap { $0[0] } ?? []
                } catch where error.kind == .server(sqlstate: "42P01") {
                    // undefined_table: no migrations table yet.
                }
            }
            if listed == nil { found = try connection.executeAll(first + Self.look).last?.first ?? [] }
            isConfigured = true
            let hasMigrations = found.first == "t"
            let hasAccount = found.count > 1 && found[1] == "t"
            var applied = listed ?? []
            if listed == nil && hasMigrations { applied = try connection.execute("SELECT identifier FROM grdb_migrations", []).compactMap { $0[0] } }
            if let unknown = applied.first(where: { !Self.migrationNames.contains($0) }) {
                throw PGFailure(.server(sqlstate: "signup"), "\(location) was made by a newer version of signup (migration \(unknown)): left untouched")
            }
            guard hasAccount else { return applied }
            if !applied.contains("v1-accounts") {
                throw PGFailure(.server(sqlstate: "signup"), "\(location) has an account table that signup did not create: left untouched")
            }
            let details = found.count > 3 && found[3] == "t" ? try connection.execute(Self.accountTableDetails, []).first ?? [] : []
            try Self.checkAccountTable(kind: found.count > 2 ? found[2] : nil, triggers: details.first ?? nil,
                                       rules: details.count > 1 ? details[1] : nil, rowSecurity: details.count > 2 && details[2] == "t",
                                       location: location)
            return applied
        }
    }

    /// Refuses an account relation that is not a plain table, or that has a trigger or a rule signup
    /// did not make: either can undo, drop or change what signup writes (an update that never
    /// happens, a deleted row put back, a hash replaced) while signup reports it done. As for SQLite.
    /// Row security that applies to this role is refused too: rows its policies hide make a disable,
    /// a password change or a delete answer "no account" while the account stays as it was.
    private static func checkAccountTable(
        kind: String?, triggers: String?, rules: String?, rowSecurity: Bool, location: PostgresLocation
    ) throws(PGFailure) {
        let refusal = "\(location) cannot be used: its account table"
        let consequence = "which could undo or change what signup writes; it was left untouched"
        if kind != "r" {
            throw PGFailure(.server(sqlstate: "signup"), "\(refusal) is not a plain table (a view, a partitioned or a foreign table), \(consequence)")
        }
        if let triggers {
            throw PGFailure(.server(sqlstate: "signup"), "\(refusal) has a trigger signup did not make (\(VisibleText.of(triggers))), \(consequence)")
        }
        if let rules {
            throw PGFailure(.server(sqlstate: "signup"), "\(refusal) has a rule (\(VisibleText.of(rules))) that rewrites what signup writes, \(consequence)")
        }
        if rowSecurity {
            throw PGFailure(.server(sqlstate: "signup"), "\(refusal) has row security that applies to this role: its policies could hide "
                + "rows from signup, \(consequence)")
        }
    }

    /// How long a process waits for another's migration before it gives up (exit 74).
    static let migrationWait: Int64 = 60_000

    /// Applies the pending migrations, once however many processes start together.
    ///
    /// The one that gets the migration lock migrates; the others do not queue for the lock (each
    /// would hold it in turn only to find the work done, and under load the last of 30 waited
    /// past `lock_timeout`): they try it, and between tries look whether the migrations have
    /// appeared, for up to ``migrationWait`` milliseconds. No lock wait, so `lock_timeout` does
    /// not end a wait behind a migration that is making progress.
    private func migrate() throws(StoreError) {
        let known = Self.migrationNames
        // Already up to date: nothing is written, so a read-only server can still be used for reading.
        guard try Set(appliedMigrations()) != Set(known) else { return }
        let deadline = PGConnection.monotonicMilliseconds() + Self.migrationWait
        var pause: UInt32 = 20_000  // microseconds, doubled up to a quarter of a second: a long migration is not polled hard
        while true {
            if try migrateIfLockIsFree() { return }
            // Another process holds the lock: done when its migrations have committed.
            if try Set(appliedMigrations()) == Set(known) { return }
            if PGConnection.monotonicMilliseconds() > deadline {
                throw .unavailable(reason: "another program has been migrating \(location) for \(Self.migrationWait / 1000) s "
                    + "(it holds signup's migration lock); nothing was written: try again when it has finished")
            }
            usleep(pause)
            pause = min(pause * 2, 250_000)
        }
    }

    /// Takes the migration lock if it is free and applies what is still pending; false, with
    /// nothing done, when another session holds it.
    private func migrateIfLockIsFree() throws(StoreError) -> Bool {
        let known = Self.migrationNames
        do throws(StoreError) {
            let locked = try run { () throws(PGFailure) in
                try connection.execute("BEGIN")
                return try connection.execute("SELECT pg_try_advisory_xact_lock($1::bigint)", [Self.migrationLock]).first?[0] == "t"
            }
            guard locked else {
                _ = try? connection.execute("ROLLBACK")
                return false
            }
            _ = try run { () throws(PGFailure) in
                try connection.execute("CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            }
            // Another process may have migrated since this one looked.
            let applied = try appliedMigrations()
            try run { () throws(PGFailure) in
                for name in known where !applied.contains(name) {
                    try apply(name)
                    try connection.execute("INSERT INTO grdb_migrations (identifier) VALUES ($1)", [name])
                }
                try connection.execute("COMMIT")
            }
            return true
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
    }

    private func apply(_ migration: String) throws(PGFailure) {
        switch migration {
        case "v1-accounts":
            try connection.execute("""
                CREATE TABLE account (
                    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                    email TEXT NOT NULL,
                    email_key TEXT NOT NULL UNIQUE,
                    password_hash TEXT NOT NULL,
                    created_at TEXT NOT NULL)
                """)
        case "v2-email-key-casefold", Migrations.idnaKeys, Migrations.mailboxKeys:
            try recomputeKeys(migration)
        case Migrations.accountState:
            for statement in Migrations.accountStateColumns { try connection.execute(statement) }
        case Migrations.accountOrigin:
            for statement in Migrations.accountOriginColumns { try connection.execute(statement) }
        case Migrations.mailSent:
            for statement in Migrations.mailSentTable { try connection.execute(statement) }
        case Migrations.limitCounts:
            for statement in Migrations.limitCountTables { try connection.execute(statement) }
        default:
            throw PGFailure(.server(sqlstate: "signup"), "unknown migration \(migration)")
        }
    }

    /// Recomputes every `email_key` with ``AccountStore/key(forEmail:)`` (`v2-email-key-casefold`,
    /// `v5-email-key-idna` for domains in their IDNA Unicode form, `v7-email-key-mailbox` for
    /// letter case only); accounts that would share a
    /// key are refused, naming the first two and counting the rest, and nothing changes.
    private func recomputeKeys(_ migration: String) throws(PGFailure) {
        let rows = try connection.execute("SELECT id, email, email_key FROM account ORDER BY id FOR UPDATE", [])
        var owner: [String: (id: String, email: String)] = [:]
        var changed: [(id: String, key: String)] = []
        var clash: (first: (id: String, email: String), second: (id: String, email: String))?
        var sharing = 0
        for row in rows {
            guard let id = row[0], let email = row[1] else { continue }
            let key: String
            do { key = try AccountStore.checkedKey(forEmail: email) } catch { throw PGFailure(.server(sqlstate: "signup"), error.description) }
            if let first = owner[key] {
                sharing += 1
                if clash == nil { clash = (first, (id, email)) }
                continue
            }
            owner[key] = (id, email)
            if row[2] != key { changed.append((id, key)) }
        }
        if let clash {
            throw PGFailure(.server(sqlstate: "signup"), "migration \(migration): accounts \(clash.first.id) "
                + "(\(VisibleText.of(clash.first.email))) and \(clash.second.id) (\(VisibleText.of(clash.second.email))) would have "
                + "the same email key"
                + (sharing > 1 ? ", and \(sharing - 1) more account\(sharing == 2 ? "" : "s") would share a key with an earlier one" : "")
                + "; nothing was changed. Remove or rename one of each pair with psql (signup cannot open the database until "
                + "then), then run signup again")
        }
        // Two passes, so that no intermediate state breaks the unique key.
        for row in changed { try connection.execute("UPDATE account SET email_key = '#migrating#' || id WHERE id = $1::bigint", [row.id]) }
        for row in changed { try connection.execute("UPDATE account SET email_key = $2 WHERE id = $1::bigint", [row.id, row.key]) }
    }

    // MARK: - Errors

    private func run<T>(_ body: () throws(PGFailure) -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch {
            throw storeError(error)
        }
    }

    private func storeError(_ failure: PGFailure) -> StoreError {
        Self.storeError(failure, location: location)
    }

    /// The kind of a server's error, by its SQLSTATE (class 53: insufficient resources; 42501:
    /// insufficient privilege; 55P03: lock not available).
    private static func problem(of state: String) -> StoreProblem {
        switch state {
        case "53100": .diskFull
        case "42501": .noPermission
        case "55P03": .locked
        case "57P01", "57P02", "57P03": .unreachable
        default: .other
        }
    }

    private static func storeError(_ failure: PGFailure, location: PostgresLocation) -> StoreError {
        switch failure.kind {
        case .libraryMissing:
            return .unavailable(reason: StoreLocation.postgresUnavailable + failure.reason, problem: .postgresMissing)
        case .connect:
            return .unavailable(reason: "cannot connect to \(location): \(failure.reason)", problem: .unreachable)
        case .connectionLost:
            return .unavailable(reason: "the connection to \(location) was lost: \(failure.reason)", problem: .unreachable)
        case .server(sqlstate: "signup"):
            return .unavailable(reason: failure.reason)
        case .server(sqlstate: "25006"):
            return .unavailable(reason: "\(location) is read-only: \(failure.reason)", problem: .readOnly)
        case .server(let state) where state.hasPrefix("22"):
            // A data exception's message can quote the value it refused (`invalid input syntax for
            // type uuid: "$argon2id$…"`, the bytes of an email): said in signup's words instead.
            return .unavailable(reason: "\(location) refused a value of the account: a column's type or length, or the "
                + "database's encoding, cannot hold it (SQLSTATE \(state); the server's message is not shown: it may quote the value)")
        case .server(let state):
            return .unavailable(reason: "\(location): \(failure.reason) (SQLSTATE \(state))", problem: problem(of: state))
        }
    }
}
