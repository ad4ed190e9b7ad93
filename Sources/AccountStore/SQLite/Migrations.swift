import CSQLite
import SignupCore

/// Schema changes, in order. Never edit a registered migration: add a new one.
enum Migrations {
    static let accountsTable = "v1-accounts"
    static let caseFoldedKeys = "v2-email-key-casefold"
    static let accountState = "v3-account-state"
    static let accountOrigin = "v4-account-origin"
    static let idnaKeys = "v5-email-key-idna"
    static let mailSent = "v6-mail-sent"
    static let mailboxKeys = "v7-email-key-mailbox"
    static let limitCounts = "v8-limit-counts"
    static let known: Set<String> = [accountsTable, caseFoldedKeys, accountState, accountOrigin, idnaKeys, mailSent, mailboxKeys, limitCounts]
    /// The migrations that recompute every key with ``AccountStore/key(forEmail:)``: until all
    /// have run, the keys on disk may not be today's.
    static let keyMigrations = [caseFoldedKeys, idnaKeys, mailboxKeys]
    /// What `v3-account-state` adds, in both backends' SQL: an account's state (only `active` signs
    /// in) and when its password last changed (NULL until it does).
    static let accountStateColumns = [
        "ALTER TABLE account ADD COLUMN state TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'disabled', 'pending'))",
        "ALTER TABLE account ADD COLUMN password_changed_at TEXT",
    ]

    /// What `v4-account-origin` adds, in both backends' SQL: where a public sign-up came from (the
    /// client's address; NULL for every other account), and the index the sign-up limits count with.
    static let accountOriginColumns = [
        "ALTER TABLE account ADD COLUMN origin TEXT",
        "CREATE INDEX account_origin_created_at ON account (origin, created_at)",
    ]

    /// What `v6-mail-sent` adds, in both backends' SQL: one row for each mail a public session
    /// had sent (the client's address and when), which the limits of mails count; rows older than
    /// the window are deleted as new ones come.
    static let mailSentTable = [
        "CREATE TABLE mail_sent (origin TEXT NOT NULL, sent_at TEXT NOT NULL)",
        "CREATE INDEX mail_sent_origin_sent_at ON mail_sent (origin, sent_at)",
    ]

    /// What `v8-limit-counts` adds, in both backends' SQL: the purpose each mail was spent on (a
    /// sign-up or a reset: separate budgets; every earlier row was a sign-up's or shared) and the
    /// key of the account it went to (NULL when the account's own bound kept it from being sent),
    /// and one row for each code checked for an account, which the bounds per account count.
    static let limitCountTables = [
        "ALTER TABLE mail_sent ADD COLUMN purpose TEXT NOT NULL DEFAULT 'sign-up'",
        "ALTER TABLE mail_sent ADD COLUMN email_key TEXT",
        "CREATE INDEX mail_sent_email_key ON mail_sent (email_key, purpose, sent_at)",
        "CREATE TABLE code_checked (email_key TEXT NOT NULL, purpose TEXT NOT NULL, checked_at TEXT NOT NULL)",
        "CREATE INDEX code_checked_email_key ON code_checked (email_key, purpose, checked_at)",
    ]

    /// The table that records which migrations have run, one row each (`identifier`). Its name
    /// and shape are the ones every earlier release gave it (the `grdb_` prefix is theirs), so a
    /// database an earlier release made opens unchanged and continues from there.
    static let appliedTable = "grdb_migrations"

    /// Every migration, in order: its name and what it does, in the migration's transaction.
    static let ordered: [(identifier: String, run: @Sendable (SQLiteConnection) throws -> Void)] = [
        // The exact statement earlier releases ran for this table: a new file has the schema an
        // earlier release's had, byte for byte (`EarlierReleaseTests`).
        (accountsTable, { db in
            try db.execute("""
                CREATE TABLE "account" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "email" TEXT NOT NULL, \
                "email_key" TEXT NOT NULL UNIQUE, "password_hash" TEXT NOT NULL, "created_at" TEXT NOT NULL)
                """)
        }),
        // v1 lowercased letter by letter: `ΟΔΥΣΣΕΑΣ` and `οδυσσεας` were two keys. Every key is
        // computed again in Swift by `AccountStore.key(forEmail:)`; two accounts that would share
        // one key stop the migration (nothing is merged, nothing dropped, nothing written).
        (caseFoldedKeys, { db in try recomputeKeys(db) }),
        (accountState, { db in
            for statement in accountStateColumns { try db.execute(statement) }
        }),
        (accountOrigin, { db in
            for statement in accountOriginColumns { try db.execute(statement) }
        }),
        // Keys before this one kept a domain as it was typed: `a@bücher.de` and
        // `a@xn--bcher-kva.de` were two accounts of one mailbox. Every key is computed again, the
        // domain in its Unicode form under IDNA; two accounts that would share one key stop it
        // the same way.
        (idnaKeys, { db in try recomputeKeys(db) }),
        (mailSent, { db in
            for statement in mailSentTable { try db.execute(statement) }
        }),
        // Keys before this one folded case fully, which joins different mailboxes: `straße.de`
        // and `strasse.de` (two domains, two owners) were one key, so were `οδυσσεας` and
        // `οδυσσεασ`. Every key is computed again with letter case and IDNA only. This splits
        // keys and never joins two, but a clash still stops it the same way.
        (mailboxKeys, { db in try recomputeKeys(db) }),
        (limitCounts, { db in
            for statement in limitCountTables { try db.execute(statement) }
        }),
    ]

    /// Computes every key again in Swift with ``AccountStore/key(forEmail:)`` and writes those
    /// that changed; two accounts that would share one key stop it (nothing is merged, nothing
    /// dropped, nothing written).
    private static func recomputeKeys(_ db: SQLiteConnection) throws {
        if let clash = try keyClash(db) { throw clash }
        let rows = try db.rows("""
            SELECT \(SafeColumn.id) AS id, \(SafeColumn.text("email")) AS email, \(SafeColumn.text("email_key")) AS email_key
            FROM account
            """) { (id: $0.int64(0), email: $0.text(1), key: $0.text(2)) }
        var changed: [(id: Int64, key: String)] = []
        for row in rows {
            let key = try AccountStore.checkedKey(forEmail: row.email)
            if key != row.key { changed.append((row.id, key)) }
        }
        // Two passes, so that no row takes a key another row has not left yet.
        for (id, _) in changed {
            try db.execute("UPDATE account SET email_key = ? WHERE id = ?", [.text("\u{1}migrating \(id)"), .integer(id)])
        }
        for (id, key) in changed {
            try db.execute("UPDATE account SET email_key = ? WHERE id = ?", [.text(key), .integer(id)])
        }
    }

    /// The recorded migrations, known or not; none when the table is not there yet.
    ///
    /// Whether the table is there is asked first. Asked after a failed read of it, the answer could
    /// be a table another process had created in between: when several processes opened a new
    /// file together, one of them failed with "no such table" (SQLite error 1). Found missing
    /// here and created a moment later is harmless: the migrations read this again once they
    /// hold the write lock.
    static func applied(_ db: SQLiteConnection) throws -> Set<String> {
        let tables = try db.integer("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(appliedTable)])
        guard tables == 1 else { return [] }
        return Set(try db.texts("SELECT identifier FROM \(appliedTable)"))
    }

    /// Whether every migration this program knows has run.
    static func hasCompletedMigrations(_ db: SQLiteConnection) throws -> Bool {
        let applied = try applied(db)
        return ordered.allSatisfy { applied.contains($0.identifier) }
    }

    /// Brings `db` up to date, tolerating another connection doing the same
    /// thing at the same moment.
    ///
    /// Each migration runs in its own immediate transaction with its bookkeeping row, and the
    /// applied migrations are read again once the write lock is held: when two processes open a
    /// new database together, the slower one finds the faster one's migrations done and skips
    /// them. Any other failure is tried again (up to three times) unless the migrations are then
    /// found complete.
    static func migrate(_ db: SQLiteConnection) throws {
        // A damaged file must keep its bytes: a migration that commits before the damage shows
        // (in a later write) would have changed it. So before the first write of an upgrade, the
        // whole file is checked once; a file already up to date is not scanned on every open.
        if try db.read({ try hasCompletedMigrations(db) }) { return }
        let verdict = try db.read { try db.texts("PRAGMA quick_check") }
        if verdict != ["ok"] { throw SQLiteError(code: SQLITE_CORRUPT, message: "quick_check") }
        var attempt = 0
        while true {
            do {
                try runMigrations(db)
                return
            } catch let error as StoreError {
                throw error
            } catch {
                attempt += 1
                if try db.read({ try hasCompletedMigrations(db) }) { return }
                if attempt >= 3 { throw error }
            }
        }
    }

    /// Runs each migration not yet recorded, in order, each in one immediate transaction with the
    /// row that records it (and the table of those rows, on a new file).
    ///
    /// Foreign keys are off while a migration runs and checked before it commits, as SQLite's
    /// documentation of ALTER TABLE asks (and earlier releases did).
    private static func runMigrations(_ db: SQLiteConnection) throws {
        let recorded = try db.read { try applied(db) }
        for migration in ordered where !recorded.contains(migration.identifier) {
            try db.execute("PRAGMA foreign_keys = OFF")
            defer { _ = try? db.execute("PRAGMA foreign_keys = ON") }
            try db.inTransaction(.immediate) {
                try db.execute("CREATE TABLE IF NOT EXISTS \(appliedTable) (identifier TEXT NOT NULL PRIMARY KEY)")
                // Another connection may have run it since `recorded` was read: the lock is held now.
                if try applied(db).contains(migration.identifier) { return .commit }
                try migration.run(db)
                try db.execute("INSERT INTO \(appliedTable) (identifier) VALUES (?)", [.text(migration.identifier)])
                if try !db.texts("PRAGMA foreign_key_check").isEmpty {
                    throw SQLiteError(code: CSQLITE_CONSTRAINT_FOREIGNKEY, message: "FOREIGN KEY constraint failed")
                }
                return .commit
            }
        }
    }

    /// What an existing file holds, before anything is written to it.
    enum Contents: Equatable {
        /// No tables, or only the (empty) table of applied migrations: a new database.
        case empty
        /// Ours; `oldKeys` while a key migration (`Migrations.keyMigrations`) is still to run, `states` once
        /// `v3-account-state` has run.
        case signup(oldKeys: Bool, states: Bool)
    }

    /// Classifies `db` and refuses what must not be used: another program's
    /// tables, a migration this program does not know, an account table without its
    /// columns or its unique key, keys that a pending migration would make clash.
    ///
    /// It only reads. A migration commits its tables and its bookkeeping row
    /// together, so a database being created by another process reads as
    /// `empty` or `signup`, never as another program's.
    static func contents(_ db: SQLiteConnection, path: DatabasePath) throws -> Contents {
        let tables = Set(try db.texts("""
            SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
            """))
        let applied = tables.contains(appliedTable)
            ? Set(try db.texts("SELECT identifier FROM \(appliedTable)")) : []
        guard applied.contains(accountsTable) else {
            if tables.subtracting([appliedTable]).isEmpty && applied.isEmpty { return .empty }
            throw StoreError.notSignupDatabase(path)
        }
        let unknown = applied.subtracting(known)
        if !unknown.isEmpty {
            let names = unknown.sorted().map { "\"\(VisibleText.of($0))\"" }.joined(separator: ", ")
            throw StoreError.unavailable(reason: "the database \(path) was made by a newer version of signup "
                + "(it has the migration\(unknown.count == 1 ? "" : "s") \(names), which this version does not know); it was left untouched")
        }
        let states = applied.contains(accountState)
        try checkAccountTable(db, path: path, states: states, origin: applied.contains(accountOrigin))
        if keyMigrations.allSatisfy(applied.contains) { return .signup(oldKeys: false, states: states) }
        if let clash = try keyClash(db, path: path) { throw clash }
        return .signup(oldKeys: true, states: states)
    }

    /// Refuses an account table without our columns or without its unique key on `email_key`, or
    /// with a trigger: one can undo, drop or change what signup writes (an update that never
    /// happens, a deleted row put back, a hash replaced) while signup reports it done.
    private static func checkAccountTable(_ db: SQLiteConnection, path: DatabasePath, states: Bool, origin: Bool) throws {
        let triggers = try db.texts("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'account' ORDER BY name")
        guard triggers.isEmpty else {
            throw StoreError.unavailable(reason: "the database \(path) cannot be used: its account table has a trigger signup did not "
                + "make (\(triggers.map(VisibleText.of).joined(separator: ", "))), which could undo or change what signup writes")
        }
        let columns = Set(try db.texts("SELECT name FROM pragma_table_info('account')"))
        let expected = ["id", "email", "email_key", "password_hash", "created_at"] + (states ? ["state", "password_changed_at"] : [])
            + (origin ? ["origin"] : [])
        let missing = expected.filter { !columns.contains($0) }
        guard missing.isEmpty else {
            throw StoreError.unavailable(reason: "the database \(path) cannot be used: its account table lacks the column "
                + missing.joined(separator: ", "))
        }
        let uniqueIndexes = try db.texts("SELECT name FROM pragma_index_list('account') WHERE \"unique\" = 1 AND partial = 0")
        for index in uniqueIndexes {
            if try db.texts("SELECT name FROM pragma_index_info(?)", [.text(index)]) == ["email_key"] { return }
        }
        throw StoreError.unavailable(reason: "the database \(path) cannot be used: its account table has no unique key on "
            + "email_key, so two accounts could share one email")
    }

    /// The first two accounts whose emails have one key under ``AccountStore/key(forEmail:)``, as a refusal.
    static func keyClash(_ db: SQLiteConnection, path: DatabasePath? = nil) throws -> StoreError? {
        var seen: [String: (id: Int64, email: String)] = [:]
        var clash: (first: (id: Int64, email: String), second: (id: Int64, email: String))?
        var sharing = 0
        let sql = "SELECT \(SafeColumn.id) AS id, \(SafeColumn.text("email")) AS email FROM account ORDER BY account.id"
        try db.withStatement(sql) { rows in
            while try rows.step() {
                let id = rows.int64(0)
                let email = rows.text(1)
                let key = try AccountStore.checkedKey(forEmail: email)
                if let first = seen[key] {
                    // Every account after the first of its key: how many must go or change.
                    sharing += 1
                    if clash == nil { clash = (first, (id, email)) }
                } else {
                    seen[key] = (id, email)
                }
            }
        }
        guard let clash else { return nil }
        return .unavailable(reason: "the database\(path.map { " \($0)" } ?? "") cannot be upgraded to its new email keys (letter case "
            + "lowered, domains in their IDNA Unicode form): accounts \(clash.first.id) (\(VisibleText.of(clash.first.email))) and "
            + "\(clash.second.id) (\(VisibleText.of(clash.second.email))) would have the same key"
            + (sharing > 1 ? ", and \(sharing - 1) more account\(sharing == 2 ? "" : "s") would share a key with an earlier one" : "")
            + "; nothing was changed. Remove or rename one of each pair with sqlite3 (signup cannot open the database until then), "
            + "then run signup again")
    }
}
