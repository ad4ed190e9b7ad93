import AccountStore
import Foundation
import Testing

/// A PostgreSQL account table with a trigger or a rule is refused when opened, as an SQLite one
/// with a trigger is (`OddSchemaTests`): either can undo or change what signup writes while
/// signup reports it done. Nothing is written to a refused database.
@Suite("PostgreSQL: an account table with a trigger or a rule", .enabled(if: TestPostgres.isAvailable, TestPostgres.skipNote))
struct PostgresTriggerTests {
    /// Runs `body` with a location whose account table (one account) was then changed by `sql`.
    private func withChangedTable(_ sql: String, _ body: (StoreLocation, String) throws -> Void) throws {
        try Backend.postgres.withFreshLocation { location throws in
            _ = try location.openForWriting().create(email: "first@example.com", passwordHash: fakeHash)
            let database = try #require(location.databaseName)
            try TestPostgres.psql(sql, database: database)
            try body(location, database)
        }
    }

    /// What the account table and the migrations hold, to see that a refusal wrote nothing.
    private func contents(_ database: String) throws -> [String] {
        try TestPostgres.psql("SELECT id, email, state, password_hash FROM account ORDER BY id", database: database)
            + TestPostgres.psql("SELECT identifier FROM grdb_migrations ORDER BY 1", database: database)
    }

    private func expectRefused(_ location: StoreLocation, _ database: String, saying reason: String,
                               sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try contents(database)
        let writing = #expect(throws: StoreError.self, sourceLocation: sourceLocation) { try location.openForWriting() }
        #expect(writing?.description.contains(reason) == true, "\(String(describing: writing))", sourceLocation: sourceLocation)
        let reading = #expect(throws: StoreError.self, sourceLocation: sourceLocation) { try location.openExisting() }
        #expect(reading == writing, sourceLocation: sourceLocation)
        #expect(try contents(database) == before, sourceLocation: sourceLocation)
    }

    @Test("a trigger is refused, whatever it does, when it fires, or whether it is enabled", arguments: [
        "CREATE FUNCTION keep() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$; "
            + "CREATE TRIGGER keep_active BEFORE UPDATE ON account FOR EACH ROW EXECUTE FUNCTION keep()",
        "CREATE FUNCTION keep() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$; "
            + "CREATE TRIGGER keep_active AFTER DELETE ON account FOR EACH STATEMENT EXECUTE FUNCTION keep()",
        "CREATE FUNCTION keep() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$; "
            + "CREATE CONSTRAINT TRIGGER keep_active AFTER INSERT ON account DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION keep()",
        "CREATE FUNCTION keep() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$; "
            + "CREATE TRIGGER keep_active BEFORE UPDATE ON account FOR EACH ROW EXECUTE FUNCTION keep(); "
            + "ALTER TABLE account DISABLE TRIGGER keep_active",
    ])
    func aTriggerIsRefused(sql: String) throws {
        try withChangedTable(sql) { location, database in
            try expectRefused(location, database, saying: "its account table has a trigger signup did not make (keep_active)")
        }
    }

    @Test("a rule that rewrites a write is refused", arguments: [
        "CREATE RULE keep_deleted AS ON DELETE TO account DO INSTEAD NOTHING",
        "CREATE RULE keep_hash AS ON UPDATE TO account WHERE NEW.password_hash <> OLD.password_hash DO INSTEAD NOTHING",
        "CREATE TABLE copies (email text); CREATE RULE keep_hash AS ON INSERT TO account DO ALSO INSERT INTO copies VALUES (NEW.email)",
    ])
    func aRuleIsRefused(sql: String) throws {
        try withChangedTable(sql) { location, database in
            try expectRefused(location, database, saying: "its account table has a rule (keep_")
        }
    }

    @Test("row security that applies to signup's role is refused; the owner's, which it does not apply to, is not",
          .enabled(if: ProcessInfo.processInfo.environment["SIGNUP_TEST_PG_PASSWORD"] != nil, "needs the role signup_app (scripts/test makes it)"))
    func rowSecurityIsRefused() throws {
        try TestPostgres.withDatabase { conninfo throws in
            _ = try StoreLocation(conninfo, fromCommandLine: true).openForWriting().create(email: "first@example.com", passwordHash: fakeHash)
            let database = try #require(try StoreLocation(conninfo, fromCommandLine: true).databaseName)
            try TestPostgres.psql("""
                ALTER TABLE account ENABLE ROW LEVEL SECURITY;
                CREATE POLICY see ON account FOR SELECT USING (true);
                CREATE POLICY add ON account FOR INSERT WITH CHECK (true);
                GRANT ALL ON account, grdb_migrations TO signup_app;
                GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO signup_app
                """, database: database)
            // The owner (here the superuser) is not subject to it: signup works as before.
            #expect(try StoreLocation(conninfo, fromCommandLine: true).openExisting()?.isTaken(email: "first@example.com") == true)
            // The role it applies to: a delete would find no row to delete and say "no account".
            try expectRefused(StoreLocation(conninfo + " user=signup_app", fromCommandLine: true), database,
                              saying: "its account table has row security that applies to this role")
        }
    }

    @Test("an account that is a view over another table is refused")
    func aViewIsRefused() throws {
        try withChangedTable("ALTER TABLE account RENAME TO account_rows; CREATE VIEW account AS SELECT * FROM account_rows") { location, database in
            let before = try TestPostgres.psql("SELECT email FROM account_rows", database: database)
            let error = #expect(throws: StoreError.self) { try location.openForWriting() }
            #expect(error?.description.contains("its account table is not a plain table") == true, "\(String(describing: error))")
            #expect(throws: StoreError.self) { try location.openExisting() }
            #expect(try TestPostgres.psql("SELECT email FROM account_rows", database: database) == before)
        }
    }

    @Test("a table with a pending migration and a trigger is refused before the migration runs")
    func refusedBeforeMigrating() throws {
        try withChangedTable("""
            DELETE FROM grdb_migrations WHERE identifier = 'v4-account-origin';
            DROP INDEX account_origin_created_at; ALTER TABLE account DROP COLUMN origin;
            CREATE FUNCTION keep() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
            CREATE TRIGGER keep_active BEFORE UPDATE ON account FOR EACH ROW EXECUTE FUNCTION keep()
            """) { location, database in
            try expectRefused(location, database, saying: "has a trigger signup did not make (keep_active)")
            #expect(try TestPostgres.psql("SELECT count(*) FROM information_schema.columns WHERE table_name = 'account' AND column_name = 'origin'",
                                          database: database) == ["0"])
        }
    }

    @Test("a foreign key or a deferrable unique key (the constraints' own triggers) is no reason to refuse")
    func constraintsAreFine() throws {
        try withChangedTable("""
            CREATE TABLE allowed (email text PRIMARY KEY); INSERT INTO allowed VALUES ('first@example.com'), ('second@example.com');
            ALTER TABLE account ADD CONSTRAINT listed FOREIGN KEY (email) REFERENCES allowed (email) DEFERRABLE INITIALLY DEFERRED;
            ALTER TABLE account ADD CONSTRAINT one_origin UNIQUE (origin) DEFERRABLE
            """) { location, _ in
            let store = try location.openForWriting()
            _ = try store.create(email: "second@example.com", passwordHash: fakeHash)
            #expect(try store.collected().map(\.email) == ["first@example.com", "second@example.com"])
        }
    }
}
