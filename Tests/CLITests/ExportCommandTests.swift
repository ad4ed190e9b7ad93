import Foundation
import Testing

/// `signup export` and `import` of what it wrote: every account comes back whole (email, key,
/// hash, state, origin, creation and password dates), SQLite to SQLite, SQLite to PostgreSQL and
/// back, compared row by row in the databases themselves (sqlite3, psql).
@Suite("signup export and import of an export")
struct ExportCommandTests {
    /// Every column of every account, as sqlite3 prints it (NULL as nothing), in id order.
    static func sqliteRows(_ db: String) -> [String] {
        let run = tool(["sqlite3", "-separator", "|", db,
                        "SELECT email, email_key, password_hash, state, origin, created_at, password_changed_at FROM account ORDER BY id"])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.split(separator: "\n").map(String.init)
    }

    /// An SQLite database with an account in each state, one from a public sign-up (its origin),
    /// one whose password changed; the creation dates differ from any an import would give.
    static func varied(_ box: Sandbox) -> String {
        let db = box.folder.appendingPathComponent("from.sqlite").path
        #expect(box.run(["--db", db], input: signUp("alice@example.com")).status == 0)
        #expect(box.run(["--db", db], input: signUp("Bob@Example.com")).status == 0)
        #expect(box.run(["disable", "bob@example.com", "--db", db]).status == 0)
        #expect(box.run(["--public", "--no-prove-address", "--db", db], input: signUp("carol@bücher.de"),
                        environment: ["SSH_CONNECTION": "203.0.113.7 50000 192.0.2.1 22"]).status == 0)
        let other = box.file("other", Data("Velvet-Harbor-93\n".utf8))
        #expect(box.run(["passwd", "alice@example.com", "--db", db, "--password-file", other]).status == 0)
        // Dates an import of today could not make up.
        #expect(tool(["sqlite3", db, "UPDATE account SET created_at = '2024-0' || id || '-01T08:00:00Z'"]).status == 0)
        return db
    }

    @Test("an export imported into a new SQLite database gives back every row exactly, state and dates included")
    func sqliteRoundTrip() throws {
        let box = Sandbox()
        let from = Self.varied(box)
        let export = box.run(["export", "--db", from])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stderr.contains("Exported 3 accounts"))
        let exported = export.stdout.split(separator: "\n")
        #expect(exported.count == 3)
        for line in exported {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(Set(object.keys) == ["email", "password_hash", "state", "origin", "created_at", "password_changed_at"])
        }
        let file = box.file("accounts.jsonl", export.stdoutBytes)
        let to = box.folder.appendingPathComponent("to.sqlite").path
        let imported = box.run(["import", file, "--db", to])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(Self.sqliteRows(to) == Self.sqliteRows(from))
        #expect(Self.sqliteRows(from).count == 3)
        // The states came with them: the disabled and the pending account stay refused.
        #expect(box.run(["verify", "bob@example.com", "--db", to], input: lines(goodPassword + "\n")).status == 77)
        #expect(box.run(["verify", "carol@bücher.de", "--db", to], input: lines(goodPassword + "\n")).status == 77)

        // --update puts an export's state and dates back on accounts already there.
        #expect(box.run(["enable", "bob@example.com", "--db", to]).status == 0)
        #expect(tool(["sqlite3", to, "UPDATE account SET created_at = '2030-01-01T00:00:00Z'"]).status == 0)
        #expect(box.run(["import", file, "--db", to, "--update"]).status == 0)
        #expect(Self.sqliteRows(to) == Self.sqliteRows(from))
    }

    @Test("an exported line cut short is rejected, not imported with made-up state or dates")
    func partialLineRejected() {
        let box = Sandbox()
        let hash = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        let file = box.file("cut.jsonl", Data("""
            {"email":"a@example.com","password_hash":"\(hash)","state":"disabled"}
            {"email":"b@example.com","password_hash":"\(hash)","state":"locked","origin":null,"created_at":"2024-01-01T00:00:00Z","password_changed_at":null}
            {"email":"c@example.com","password_hash":"\(hash)","state":"active","origin":null,"created_at":"yesterday","password_changed_at":null}

            """.utf8))
        let run = box.run(["import", file, "--db", box.db])
        #expect(run.status == 65)
        #expect(run.stderr.contains("json.wholeAccount"))
        #expect(run.stderr.contains("json.state"))
        #expect(run.stderr.contains("json.date"))
        #expect(box.accounts().isEmpty)
    }

    @Test("an origin with a control character is rejected in both formats: a terminal showing the column would obey it")
    func originWithControlCharacterRejected() {
        let box = Sandbox()
        let hash = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        let json = box.file("origin.jsonl", Data("""
            {"email":"a@example.com","password_hash":"\(hash)","state":"active","origin":"192.0.2.1\\u001b]0;pwned\\u0007","created_at":"2024-01-01T00:00:00Z","password_changed_at":null}
            {"email":"b@example.com","password_hash":"\(hash)","state":"pending","origin":"192.0.2.7","created_at":"2024-01-01T00:00:00Z","password_changed_at":null}

            """.utf8))
        let run = box.run(["import", json, "--db", box.db])
        #expect(run.status == 65)
        #expect(run.stderr.contains("line 1: json.origin"))
        #expect(box.accounts().map { $0["email"] as? String } == ["b@example.com"])
        let csv = box.file("origin.csv", Data(("email,password_hash,state,origin,created_at,password_changed_at\nc@example.com,\"\(hash)\",active,\"192.0.2.1\u{1B}[2J\",2024-01-01T00:00:00Z,\n").utf8))
        let csvRun = box.run(["import", csv, "--db", box.db])
        #expect(csvRun.status == 65)
        #expect(csvRun.stderr.contains("line 2: csv.origin"))
        #expect(box.accounts().count == 1)
    }

    @Test("--csv writes the same columns with a header, every field quoted, and import reads it back whole")
    func csv() {
        let box = Sandbox()
        let from = Self.varied(box)
        let run = box.run(["export", "--csv", "--db", from])
        #expect(run.status == 0)
        let rows = run.stdout.split(separator: "\r\n").map(String.init)
        #expect(rows.first == "email,password_hash,state,origin,created_at,password_changed_at")
        #expect(rows.count == 4)
        #expect(rows[2].hasPrefix("\"Bob@Example.com\",\"$argon2id$v=19$m=19456,t=2,p=1$"))
        #expect(rows[2].contains(",\"disabled\",,\"2024-02-01T08:00:00Z\","))
        #expect(rows[3].contains(",\"pending\",\"203.0.113.7\","))
        // Imported back, the CSV gives the same rows as the JSON Lines.
        let to = box.folder.appendingPathComponent("from-csv.sqlite").path
        let imported = box.run(["import", box.file("accounts.csv", run.stdoutBytes), "--db", to])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(Self.sqliteRows(to) == Self.sqliteRows(from))
    }

    @Test("SQLite to PostgreSQL and back: every row the same in both, compared in each database",
          .enabled(if: TestServer.isAvailable, TestServer.skipNote))
    func postgresRoundTrip() {
        let box = Sandbox(), pg = TestDatabase()
        let from = Self.varied(box)
        let toPostgres = box.file("sqlite.jsonl", box.run(["export", "--db", from]).stdoutBytes)
        let imported = box.run(["import", toPostgres, "--db", pg.socket])
        #expect(imported.status == 0, "\(imported.stderr)")
        let pgRows = pg.psql("""
            SELECT email || '|' || email_key || '|' || password_hash || '|' || state || '|' || COALESCE(origin, '') || '|' \
            || created_at || '|' || COALESCE(password_changed_at, '') FROM account ORDER BY id
            """)
        #expect(pgRows == Self.sqliteRows(from))
        // And back: PostgreSQL's export, imported into a new SQLite file, is the first file's rows.
        let fromPostgres = box.run(["export", "--db", pg.socket])
        #expect(fromPostgres.status == 0, "\(fromPostgres.stderr)")
        #expect(fromPostgres.stdout == String(decoding: try! Data(contentsOf: URL(fileURLWithPath: toPostgres)), as: UTF8.self))
        let back = box.folder.appendingPathComponent("back.sqlite").path
        #expect(box.run(["import", box.file("pg.jsonl", fromPostgres.stdoutBytes), "--db", back]).status == 0)
        #expect(Self.sqliteRows(back) == Self.sqliteRows(from))
    }
}
