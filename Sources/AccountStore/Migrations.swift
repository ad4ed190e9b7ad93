import GRDB
import SignupCore

/// Schema changes, in order. Never edit a registered migration: add a new one.
enum Migrations {
    static let accountsTable = "v1-accounts"
    static let caseFoldedKeys = "v2-email-key-casefold"
    static let accountState = "v3-account-state"
    static let accountOrigin = "v4-account-origin"
    static let known: Set<String> = [accountsTable, caseFoldedKeys, accountState, accountOrigin]
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

    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration(accountsTable) { db in
            try db.create(table: "account") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("email", .text).notNull()
                table.column("email_key", .text).notNull().unique()
                table.column("password_hash", .text).notNull()
                table.column("created_at", .text).notNull()
            }
        }
        // v1 lowercased letter by letter: `ΟΔΥΣΣΕΑΣ` and `οδυσσεας` were two keys. Every key is
        // computed again in Swift by `AccountStore.key(forEmail:)`; two accounts that would share
        // one key stop the migration (nothing is merged, nothing dropped, nothing written).
        migrator.registerMigration(caseFoldedKeys) { db in
            if let clash = try keyClash(db) { throw clash }
            let rows = try Row.fetchAll(db, sql: """
                SELECT \(SafeColumn.id) AS id, \(SafeColumn.text("email")) AS email, \(SafeColumn.text("email_key")) AS email_key
                FROM account
                """)
            var changed: [(id: Int64, key: String)] = []
            for row in rows {
                let key = AccountStore.key(forEmail: row["email"])
                if key != row["email_key"] as String { changed.append((row["id"], key)) }
            }
            // Two passes, so that no row takes a key another row has not left yet.
            for (id, _) in changed {
                try db.execute(sql: "UPDATE account SET email_key = ? WHERE id = ?", arguments: ["\u{1}migrating \(id)", id])
            }
            for (id, key) in changed {
                try db.execute(sql: "UPDATE account SET email_key = ? WHERE id = ?", arguments: [key, id])
            }
        }
        migrator.registerMigration(accountState) { db in
            for statement in accountStateColumns { try db.execute(sql: statement) }
        }
        migrator.registerMigration(accountOrigin) { db in
            for statement in accountOriginColumns { try db.execute(sql: statement) }
        }
        return migrator
    }()

    /// Brings `writer` up to date, tolerating another connection doing the same
    /// thing at the same moment.
    ///
    /// GRDB reads the applied migrations before it takes the write lock, so when
    /// two processes open a new database together the slower one fails with
    /// "table already exists" after the faster one committed. That is success.
    static func migrate(_ writer: any DatabaseWriter) throws {
        // A damaged file must keep its bytes: a migration that commits before the damage shows
        // (in a later write) would have changed it. So before the first write of an upgrade, the
        // whole file is checked once; a file already up to date is not scanned on every open.
        if try !writer.read(migrator.hasCompletedMigrations) {
            let verdict = try writer.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
            if verdict != ["ok"] { throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "quick_check") }
        }
        var attempt = 0
        while true {
            do {
                try migrator.migrate(writer)
                return
            } catch let error as StoreError {
                throw error
            } catch {
                attempt += 1
                if try writer.read(migrator.hasCompletedMigrations) { return }
                if attempt >= 3 { throw error }
            }
        }
    }

    /// What an existing file holds, before anything is written to it.
    enum Contents: Equatable {
        /// No tables, or only GRDB's bookkeeping: a new database.
        case empty
        /// Ours; `oldKeys` while `v2-email-key-casefold` is still to run, `states` once
        /// `v3-account-state` has run.
        case signup(oldKeys: Bool, states: Bool)
    }

    /// Classifies `db` and refuses what must not be used (SPEC 8): another program's
    /// tables, a migration this program does not know, an account table without its
    /// columns or its unique key, keys that a pending migration would make clash.
    ///
    /// It only reads. A migration commits its tables and its bookkeeping row
    /// together, so a database being created by another process reads as
    /// `empty` or `signup`, never as another program's.
    static func contents(_ db: Database, path: DatabasePath) throws -> Contents {
        let tables = Set(try String.fetchAll(db, sql: """
            SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
            """))
        let applied = tables.contains("grdb_migrations")
            ? Set(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")) : []
        guard applied.contains(accountsTable) else {
            if tables.subtracting(["grdb_migrations"]).isEmpty && applied.isEmpty { return .empty }
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
        if applied.contains(caseFoldedKeys) { return .signup(oldKeys: false, states: states) }
        if let clash = try keyClash(db, path: path) { throw clash }
        return .signup(oldKeys: true, states: states)
    }

    /// Refuses an account table without our columns or without its unique key on `email_key`.
    private static func checkAccountTable(_ db: Database, path: DatabasePath, states: Bool, origin: Bool) throws {
        let columns = Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('account')"))
        let expected = ["id", "email", "email_key", "password_hash", "created_at"] + (states ? ["state", "password_changed_at"] : [])
            + (origin ? ["origin"] : [])
        let missing = expected.filter { !columns.contains($0) }
        guard missing.isEmpty else {
            throw StoreError.unavailable(reason: "the database \(path) cannot be used: its account table lacks the column "
                + missing.joined(separator: ", "))
        }
        let uniqueIndexes = try String.fetchAll(db, sql: "SELECT name FROM pragma_index_list('account') WHERE \"unique\" = 1 AND partial = 0")
        for index in uniqueIndexes {
            if try String.fetchAll(db, sql: "SELECT name FROM pragma_index_info(?)", arguments: [index]) == ["email_key"] { return }
        }
        throw StoreError.unavailable(reason: "the database \(path) cannot be used: its account table has no unique key on "
            + "email_key, so two accounts could share one email")
    }

    /// The first two accounts whose emails have one key under ``AccountStore/key(forEmail:)``, as a refusal.
    static func keyClash(_ db: Database, path: DatabasePath? = nil) throws -> StoreError? {
        var seen: [String: (id: Int64, email: String)] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT \(SafeColumn.id) AS id, \(SafeColumn.text("email")) AS email FROM account ORDER BY account.id")
        while let row = try rows.next() {
            let id: Int64 = row["id"]
            let email: String = row["email"]
            let key = AccountStore.key(forEmail: email)
            if let first = seen[key] {
                return .unavailable(reason: "the database\(path.map { " \($0)" } ?? "") cannot be upgraded to case-folded email keys: accounts "
                    + "\(first.id) (\(VisibleText.of(first.email))) and \(id) (\(VisibleText.of(email))) would have the same "
                    + "key; nothing was changed. Remove or rename one of them with sqlite3, then run signup again")
            }
            seen[key] = (id, email)
        }
        return nil
    }
}
