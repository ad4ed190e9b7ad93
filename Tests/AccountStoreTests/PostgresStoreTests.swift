import AccountStore
import Foundation
import Testing

@Suite("Store location")
struct StoreLocationTests {
    @Test("URLs and libpq keyword strings select PostgreSQL; everything else is an SQLite path", arguments: [
        ("postgresql://db1/accounts", true), ("postgres://db1:5433/accounts?sslmode=verify-full", true),
        ("host=db1 dbname=accounts", true), ("  service=signup", true), ("dbname = accounts", true),
        ("/srv/signup/accounts.sqlite", false), ("accounts.sqlite", false), ("./host=db1", false),
        ("/tmp/a=b", false), ("postgresql:/not-a-url", false), ("Host=db1", false), ("", false),
    ])
    func classification(text: String, isPostgres: Bool) throws {
        guard !text.isEmpty else {
            #expect(throws: StoreError.self) { try StoreLocation(text, fromCommandLine: true) }  // an empty path names nothing
            return
        }
        let location = try StoreLocation(text, fromCommandLine: true)
        let asFile = StoreLocation.sqlite(try DatabasePath(text))
        if case .postgres = location { #expect(isPostgres) } else { #expect(!isPostgres && location == asFile) }
    }

    @Test("a password in --db is refused and not repeated; in SIGNUP_DB it is accepted", arguments: [
        "postgresql://alice:Hunter2-Secret@db1/accounts", "host=db1 password=Hunter2-Secret dbname=accounts",
        "host=db1 password='Hunter2-Secret'", "postgresql://db1/accounts?password=Hunter2-Secret",
        "postgresql://db1/accounts?sslpassword=Hunter2-Secret", "postgresql://alice:Hunter2%2DSecret@db1",
    ])
    func passwordOnCommandLine(text: String) throws {
        let error = #expect(throws: StoreError.unavailable(reason: StoreLocation.passwordOnCommandLine)) { try StoreLocation(text, fromCommandLine: true) }
        #expect(error?.description.contains("Hunter2") == false)
        let location = try StoreLocation(text, fromCommandLine: false)
        #expect(!location.description.contains("Hunter2"))
        if case .postgres = location {} else { Issue.record("not PostgreSQL: \(location)") }
    }

    // Outside review: an uppercase scheme was taken for a file path, whose folder name then held the password.
    @Test("an uppercase scheme is PostgreSQL's, never a file path", arguments: ["POSTGRESQL://alice:Hunter2-Secret@db1/x", "Postgres://db1/x"])
    func uppercaseScheme(text: String) {
        let error = #expect(throws: StoreError.self) { try StoreLocation(text, fromCommandLine: true) }
        #expect(error?.description.contains("Hunter2") == false)
        #expect(error?.description.contains("PostgreSQL") == true)
    }

    @Test("a malformed connection string is refused with libpq's reason, without the text it quoted")
    func malformed() {
        let error = #expect(throws: StoreError.self) {
            try StoreLocation("postgresql://alice:Hunter2-Secret@db1/x?%zz=1", fromCommandLine: false)
        }
        #expect(error?.description.contains("percent-encoded") == true)
        #expect(error?.description.contains("Hunter2") == false)
        let typo = #expect(throws: StoreError.self) { try StoreLocation("host=db1 dbnmae=x", fromCommandLine: true) }
        #expect(typo?.description.contains("an option libpq does not know") == true)
    }

    /// The parser's errors carry no text of the string at all: a bare word (lowercase, so it
    /// looked like a keyword), an unknown option's name and a URI parameter's name were quoted.
    @Test(arguments: [
        "host=db1 correcthorsebatterystaple",
        "host=db1 correcthorsebatterystaple=1",
        "host=db1 dbname='correcthorsebatterystaple",
        "postgresql://db1/x?correcthorsebatterystaple=1",
        "postgresql://db1/x?correcthorsebatterystaple",
    ])
    func noTextOfAMalformedStringIsShown(text: String) {
        for fromCommandLine in [true, false] {
            let error = #expect(throws: StoreError.self) { try StoreLocation(text, fromCommandLine: fromCommandLine) }
            #expect(error?.description.contains("not a valid PostgreSQL connection string") == true, "\(String(describing: error))")
            #expect(error?.description.contains("correcthorse") == false, "\(String(describing: error))")
        }
    }

    /// A port that is not digits is no port: the location's description does not show it.
    @Test func aPortThatIsNotDigitsIsNotShown() throws {
        let location = try StoreLocation("host=db1 port=correcthorsebatterystaple dbname=x", fromCommandLine: true)
        #expect(!location.visible.contains("correcthorse"))
        #expect(location.visible.contains("host=db1"))
        #expect(try StoreLocation("host=db1 port=5433 dbname=x", fromCommandLine: true).visible.contains("port=5433"))
    }
}

@Suite("PostgreSQL store", .enabled(if: TestPostgres.isAvailable, TestPostgres.skipNote))
struct PostgresStoreTests {
    @Test("the same table and named migrations as SQLite, recorded in grdb_migrations")
    func schema() throws {
        try Backend.postgres.withFreshLocation { location throws in
            _ = try location.openForWriting()
            let database = try #require(location.databaseName)
            #expect(try TestPostgres.psql("SELECT identifier FROM grdb_migrations ORDER BY identifier", database: database)
                == ["v1-accounts", "v2-email-key-casefold", "v3-account-state", "v4-account-origin", "v5-email-key-idna", "v6-mail-sent", "v7-email-key-mailbox", "v8-limit-counts"])
            let columns = try TestPostgres.psql("""
                SELECT column_name, data_type, is_nullable FROM information_schema.columns
                WHERE table_name = 'account' ORDER BY ordinal_position
                """, database: database)
            #expect(columns == [
                "id|bigint|NO", "email|text|NO", "email_key|text|NO", "password_hash|text|NO", "created_at|text|NO",
                "state|text|NO", "password_changed_at|text|YES", "origin|text|YES",
            ])
            let unique = try TestPostgres.psql("""
                SELECT count(*) FROM pg_indexes WHERE tablename = 'account' AND indexdef LIKE 'CREATE UNIQUE INDEX%(email_key)'
                """, database: database)
            #expect(unique == ["1"])
        }
    }

    @Test("32 stores on a new database at once: migrated once, one email, exactly one created")
    func thirtyTwoWriters() throws {
        try Backend.postgres.withFreshLocation { location throws in
            let outcomes = Collected<String>()
            runConcurrently(32) { index in
                do throws(StoreError) {
                    let store = try location.openForWriting()
                    _ = try store.create(email: index % 2 == 0 ? "race@example.com" : "RACE@Example.com", passwordHash: fakeHash)
                    outcomes.append("created")
                } catch {
                    outcomes.append(error == .emailTaken ? "taken" : "error: \(error)")
                }
            }
            #expect(outcomes.all.filter { $0 == "created" }.count == 1)
            #expect(outcomes.all.filter { $0 == "taken" }.count == 31, "\(outcomes.all.filter { $0.hasPrefix("error") })")
            let database = try #require(location.databaseName)
            #expect(try TestPostgres.psql("SELECT count(*) FROM grdb_migrations", database: database) == ["8"])
            #expect(try TestPostgres.psql("SELECT count(*) FROM account", database: database) == ["1"])
        }
    }

    @Test("a database migrated by a newer signup is refused and left untouched")
    func newerSchema() throws {
        try Backend.postgres.withFreshLocation { location throws in
            _ = try location.openForWriting()
            let database = try #require(location.databaseName)
            try TestPostgres.psql("INSERT INTO grdb_migrations VALUES ('v9-from-the-future')", database: database)
            let writing = #expect(throws: StoreError.self) { try location.openForWriting() }
            #expect(writing?.description.contains("newer version of signup (migration v9-from-the-future)") == true)
            let reading = #expect(throws: StoreError.self) { try location.openExisting() }
            #expect(reading == writing)
            #expect(try TestPostgres.psql("SELECT count(*) FROM grdb_migrations", database: database) == ["9"])
        }
    }

    @Test("an account table that signup did not create is refused and left untouched")
    func foreignAccountTable() throws {
        try Backend.postgres.withFreshLocation { location throws in
            let database = try #require(location.databaseName)
            try TestPostgres.psql("CREATE TABLE account (name text); INSERT INTO account VALUES ('theirs')", database: database)
            let error = #expect(throws: StoreError.self) { try location.openForWriting() }
            #expect(error?.description.contains("account table that signup did not create") == true)
            #expect(throws: StoreError.self) { try location.openExisting() }
            #expect(try TestPostgres.psql("SELECT name FROM account", database: database) == ["theirs"])
            #expect(try TestPostgres.psql("SELECT to_regclass('grdb_migrations') IS NULL", database: database) == ["t"])
        }
    }

    /// Takes `migration` off the record and adds `rows` (email, key, hash, created) with the keys
    /// another program, or an earlier rule, wrote: the database as it was before that migration.
    static func undo(_ migration: String, adding rows: String, in database: String) throws {
        try TestPostgres.psql("""
            DELETE FROM grdb_migrations WHERE identifier = '\(migration)';
            INSERT INTO account (email, email_key, password_hash, created_at) VALUES \(rows)
            """, database: database)
    }

    @Test("v2-email-key-casefold recomputes keys in Swift, and refuses a collision naming both accounts")
    func casefoldMigration() throws {
        try Backend.postgres.withFreshLocation { location throws in
            _ = try location.openForWriting()
            let database = try #require(location.databaseName)
            // A database as v1 left it, with keys another program wrote by hand.
            try Self.undo("v2-email-key-casefold", adding: "('Bob@Example.com', 'stale-1', 'h1', 'now'), ('Carol@Example.com', 'stale-2', 'h2', 'now')",
                          in: database)
            _ = try location.openForWriting()
            #expect(try TestPostgres.psql("SELECT email_key FROM account ORDER BY id", database: database)
                == [AccountStore.key(forEmail: "Bob@Example.com"), AccountStore.key(forEmail: "Carol@Example.com")])

            try Self.undo("v2-email-key-casefold", adding: "('BOB@example.com', 'stale-3', 'h3', 'now')", in: database)
            let error = #expect(throws: StoreError.self) { try location.openForWriting() }
            #expect(error?.description.contains("Bob@Example.com") == true)
            #expect(error?.description.contains("BOB@example.com") == true)
            #expect(try TestPostgres.psql("SELECT email_key FROM account WHERE email = 'BOB@example.com'", database: database) == ["stale-3"])
            #expect(try TestPostgres.psql("SELECT count(*) FROM grdb_migrations", database: database) == ["7"])
        }
    }

    @Test("v5-email-key-idna re-keys a punycode account to its Unicode domain, and refuses accounts IDNA makes one, counting them")
    func idnaMigration() throws {
        try Backend.postgres.withFreshLocation { location throws in
            _ = try location.openForWriting()
            let database = try #require(location.databaseName)
            // Keys as a release before IDNA wrote them.
            try Self.undo("v5-email-key-idna", adding: """
                ('Anna@XN--BCHER-KVA.de', 'anna@xn--bcher-kva.de', 'h1', 'now'), ('josé@bücher.de', 'josé@bücher.de', 'h2', 'now')
                """, in: database)
            let store = try location.openForWriting()
            #expect(try TestPostgres.psql("SELECT email_key FROM account ORDER BY id", database: database) == ["anna@bücher.de", "josé@bücher.de"])
            #expect(throws: StoreError.emailTaken) { try store.create(email: "ANNA@bücher.de", passwordHash: fakeHash) }
            #expect(try store.passwordHash(forEmail: "josé@xn--bcher-kva.de") == "h2")

            try Self.undo("v5-email-key-idna", adding: "('anna@bücher.de', 'stale-1', 'h3', 'now'), ('JOSÉ@XN--BCHER-KVA.DE', 'stale-2', 'h4', 'now')",
                          in: database)
            let error = #expect(throws: StoreError.self) { try location.openForWriting() }
            let reason = error?.description ?? ""
            #expect(reason.contains("migration v5-email-key-idna: accounts"), "\(reason)")
            #expect(reason.contains("Anna@XN--BCHER-KVA.de") && reason.contains("and 1 more account would share a key"), "\(reason)")
            #expect(reason.contains("nothing was changed"))
            #expect(try TestPostgres.psql("SELECT email_key FROM account WHERE id > 2 ORDER BY id", database: database) == ["stale-1", "stale-2"])
            #expect(try TestPostgres.psql("SELECT count(*) FROM grdb_migrations", database: database) == ["7"])
        }
    }

    @Test("streaming stops when asked, and the connection still works")
    func streamStops() throws {
        try Backend.postgres.withFreshLocation { location throws in
            let store = try location.openForWriting()
            for number in 0..<50 { _ = try store.create(email: "n\(number)@example.com", passwordHash: fakeHash) }
            var seen: [String] = []
            try store.streamAccounts { seen.append($0.email); return seen.count < 3 }
            #expect(seen == ["n0@example.com", "n1@example.com", "n2@example.com"])
            #expect(try store.isTaken(email: "N49@example.com"))
            #expect(try store.collected().count == 50)
        }
    }

    @Test("a server error's reason never carries the row: no hash in the message")
    func noHashInErrors() throws {
        try Backend.postgres.withFreshLocation { location throws in
            let store = try location.openForWriting()
            let database = try #require(location.databaseName)
            try TestPostgres.psql("ALTER TABLE account ADD CONSTRAINT short CHECK (length(email) < 5)", database: database)
            let error = #expect(throws: StoreError.self) { try store.create(email: "alice@example.com", passwordHash: fakeHash) }
            #expect(error?.description.contains("violates check constraint") == true)
            #expect(error?.description.contains("argon2") == false)
        }
    }
}
