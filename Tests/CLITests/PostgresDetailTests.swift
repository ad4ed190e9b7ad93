import Foundation
import Testing

/// A PostgreSQL server's DETAIL, HINT and CONTEXT never reach signup's output, on any line of
/// either stream: they can quote a row (`Failing row contains (…, $argon2id$…)`), a key, or
/// whatever a trigger or a check put there. Only the primary message is shown.
@Suite("A server's DETAIL and HINT are never shown", .enabled(if: TestServer.isAvailable, TestServer.skipNote))
struct PostgresDetailTests {
    /// Runs `arguments` and checks that no marker, no hash and no DETAIL-only text is in either stream.
    @discardableResult
    static func run(_ box: Sandbox, _ arguments: [String], input: String? = nil, _ comment: Comment,
                    sourceLocation: SourceLocation = #_sourceLocation) -> Run {
        let run = box.run(arguments, input: input.map(lines), sourceLocation: sourceLocation)
        for text in [run.stdout, run.stderr] {
            for hidden in ["MARKER", "argon2id", "Failing row", "is not present in table", "DETAIL", "HINT"] {
                #expect(!text.contains(hidden), "\(comment): \(text)", sourceLocation: sourceLocation)
            }
        }
        return run
    }

    @Test func aCheckThatRaisesWithDetailAndHintShowsOnlyItsMessage() {
        let box = Sandbox(), db = TestDatabase()
        #expect(box.run(["--db", db.socket], input: signUp("alice@example.com")).status == 0)
        #expect(box.run(["--db", db.socket], input: signUp("eve@example.com")).status == 0)
        // The site's own vetting, as a check constraint: it refuses bob, a disabled account, a
        // changed password and a hash with t=3, and its DETAIL and HINT quote the row.
        db.psql("""
            CREATE FUNCTION vet(email text, state text, changed text, hash text) RETURNS boolean LANGUAGE plpgsql AS $$
            BEGIN
                IF email LIKE 'bob%' OR state = 'disabled' OR changed IS NOT NULL OR hash LIKE '%t=3%' THEN
                    RAISE EXCEPTION 'refused by the vetting rules'
                        USING DETAIL = 'MARKER-DETAIL ' || email || ' ' || hash, HINT = 'MARKER-HINT ' || hash;
                END IF;
                RETURN true;
            END $$;
            ALTER TABLE account ADD CONSTRAINT vetted CHECK (vet(email, state, password_changed_at, password_hash));
            ALTER TABLE account ADD CONSTRAINT no_carol CHECK (email NOT LIKE 'carol%');
            CREATE TABLE allowed (email text PRIMARY KEY);
            INSERT INTO allowed VALUES ('alice@example.com'), ('eve@example.com'), ('bob@example.com'), ('carol@example.com');
            ALTER TABLE account ADD CONSTRAINT listed FOREIGN KEY (email) REFERENCES allowed (email) DEFERRABLE INITIALLY DEFERRED;
            """)
        let strong = box.file("strong.json", Data(#"{"argon2": {"iterations": 3}}"#.utf8))
        let cases: [([String], String?, String)] = [
            (["--db", db.socket], "bob@example.com\n\(goodPassword)\n\(goodPassword)\n", "refused by the vetting rules"),
            (["--db", db.socket, "--json"], "bob@example.com\n\(goodPassword)\n\(goodPassword)\n", "refused by the vetting rules"),
            (["--db", db.socket, "--dry-run"], "bob@example.com\n\(goodPassword)\n\(goodPassword)\n", "refused by the vetting rules"),
            (["--db", db.socket], "carol@example.com\n\(goodPassword)\n\(goodPassword)\n", "violates check constraint \"no_carol\""),
            (["--db", db.socket], "dave@example.com\n\(goodPassword)\n\(goodPassword)\n", "violates foreign key constraint \"listed\""),
            (["--db", db.socket, "--dry-run"], "dave@example.com\n\(goodPassword)\n\(goodPassword)\n", "violates foreign key constraint \"listed\""),
            (["disable", "alice@example.com", "--db", db.socket], nil, "refused by the vetting rules"),
            (["passwd", "alice@example.com", "--db", db.socket], "Harbor-Tulip-Kite-93\nHarbor-Tulip-Kite-93\n", "refused by the vetting rules"),
            (["import", "-", "--db", db.socket], "email,password\nbob@example.com,\(goodPassword)\n", "refused by the vetting rules"),
        ]
        for (arguments, input, primary) in cases {
            let run = Self.run(box, arguments, input: input, "\(arguments)")
            #expect(run.status == 74, "\(arguments): \(run.stderr)")
            #expect((run.stderr + run.stdout).contains(primary), "\(arguments): \(run.stderr)")
        }
        // An upgrade the vetting refuses: the note gives the primary message only, the answer stays 0.
        let verified = Self.run(box, ["verify", "eve@example.com", "--db", db.socket, "--policy-file", strong], input: goodPassword + "\n", "verify")
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stderr.contains("could not be upgraded") && verified.stderr.contains("refused by the vetting rules"), "\(verified.stderr)")
        #expect(db.psql("SELECT email, state FROM account ORDER BY id") == ["alice@example.com|active", "eve@example.com|active"])
    }

    /// A trigger of the database (an event trigger on CREATE TABLE) refuses the first sign-up's table.
    @Test func anEventTriggerThatRaisesWithDetailAndHintShowsOnlyItsMessage() {
        let box = Sandbox(), db = TestDatabase()
        db.psql("""
            CREATE FUNCTION no_new_tables() RETURNS event_trigger LANGUAGE plpgsql AS $$
            BEGIN
                RAISE EXCEPTION 'new tables need a change request' USING DETAIL = 'MARKER-DETAIL', HINT = 'MARKER-HINT';
            END $$;
            CREATE EVENT TRIGGER change_freeze ON ddl_command_start EXECUTE FUNCTION no_new_tables();
            """)
        let run = Self.run(box, ["--db", db.socket], input: "alice@example.com\n\(goodPassword)\n\(goodPassword)\n", "create")
        #expect(run.status == 74)
        #expect(run.stderr.contains("new tables need a change request"), "\(run.stderr)")
        #expect(db.tables.isEmpty)
    }

    /// A column whose type refuses signup's value: PostgreSQL's message quotes the value (here the
    /// hash), so the reason is signup's own.
    @Test func aValueTheColumnRefusesIsNotQuoted() {
        let box = Sandbox(), db = TestDatabase()
        #expect(box.run(["--db", db.socket], input: signUp("alice@example.com")).status == 0)
        db.psql("DELETE FROM account; ALTER TABLE account ALTER COLUMN password_hash TYPE uuid USING NULL")
        let run = Self.run(box, ["--db", db.socket], input: "bob@example.com\n\(goodPassword)\n\(goodPassword)\n", "create")
        #expect(run.status == 74)
        #expect(run.stderr.contains("refused a value of the account") && run.stderr.contains("SQLSTATE 22P02"), "\(run.stderr)")
    }
}

/// The same for what libpq itself reports (a refused login, a session the server ends with a
/// FATAL error, an error without a SQLSTATE), which holds the server's whole error unless signup
/// takes it out: a server of our own sends the markers, over several lines.
@Suite("libpq's own messages never carry the server's DETAIL")
struct LibpqMessageDetailTests {
    @Test(arguments: ["connect", "fatal", "nostate"])
    func everyCommandShowsThePrimaryMessageOnly(mode: String) {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("integration/detail_server.py").path
        let server = Background(["python3", script, mode])
        let database = "host=127.0.0.1 port=\(server.firstLine()) dbname=accounts user=signup_app sslmode=disable"
        let box = Sandbox()
        let commands: [([String], String?)] = [
            (["list", "--db", database], nil), (["list", "--json", "--db", database], nil),
            (["--db", database], "alice@example.com\n\(goodPassword)\n\(goodPassword)\n"),
            (["--db", database, "--json"], "alice@example.com\n\(goodPassword)\n\(goodPassword)\n"),
            (["verify", "alice@example.com", "--db", database], goodPassword + "\n"),
            (["disable", "alice@example.com", "--db", database], nil),
        ]
        for (arguments, input) in commands {
            let run = PostgresDetailTests.run(box, arguments, input: input, "\(mode) \(arguments)")
            #expect(run.status == 74, "\(mode) \(arguments): \(run.stderr)")
            #expect((run.stderr + run.stdout).contains("the primary message"), "\(mode) \(arguments): \(run.stderr)")
        }
        _ = server
    }
}
