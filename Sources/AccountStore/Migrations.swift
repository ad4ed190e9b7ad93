import GRDB

/// Schema changes, in order. Never edit a registered migration: add a new one.
enum Migrations {
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-accounts") { db in
            try db.create(table: "account") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("email", .text).notNull()
                table.column("email_key", .text).notNull().unique()
                table.column("password_hash", .text).notNull()
                table.column("created_at", .text).notNull()
            }
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
        var attempt = 0
        while true {
            do {
                try migrator.migrate(writer)
                return
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
        /// Our first migration has run.
        case signup
        /// Another program's tables: leave them alone.
        case foreign
    }

    /// Classifies `db`. A migration commits its tables and its bookkeeping row
    /// together, so a database being created by another process reads as
    /// `empty` or `signup`, never `foreign`.
    static func contents(_ db: Database) throws -> Contents {
        let tables = Set(try String.fetchAll(db, sql: """
            SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
            """))
        if tables.contains("grdb_migrations"), try migrator.appliedIdentifiers(db).contains("v1-accounts") {
            return .signup
        }
        return tables.subtracting(["grdb_migrations"]).isEmpty ? .empty : .foreign
    }
}
