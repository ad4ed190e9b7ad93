import Foundation
import Testing

/// Addresses people mean as one: a domain and its punycode (`bücher.de`, `xn--bcher-kva.de`) are
/// one account, found by every command whichever is typed; a domain IDNA refuses is refused at
/// the email prompt with its own code. On SQLite and, when the test server runs, PostgreSQL.
@Suite struct InternationalDomainTests {
    typealias Store = AccountLifeCommandTests.Store
    static let newPassword = "Harbor-Tulip-Kite-93"

    /// A sandbox and what `--db` takes for `store`; the PostgreSQL database lives as long as the value.
    final class Place {
        let box = Sandbox()
        let pg: TestDatabase?
        var db: String { pg?.socket ?? box.db }
        init(_ store: Store) { pg = store == .postgres ? TestDatabase() : nil }

        @discardableResult
        func run(_ arguments: [String], input: String? = nil, secrets: [String] = []) -> Run {
            box.run(arguments + ["--db", db], input: input.map(lines), secrets: secrets)
        }

        func verify(_ email: String, _ password: String) -> Int32 {
            run(["verify", email], input: password + "\n", secrets: [password]).status
        }

        /// Rows of `sql`, columns joined by `|`, run by another program (psql, python's sqlite3).
        @discardableResult
        func sql(_ sql: String) -> [String] {
            if let pg { return pg.psql(sql) }
            let script = """
                import os, sqlite3
                db = sqlite3.connect(os.environ['DB'])
                rows = db.execute(os.environ['SQL']).fetchall() if os.environ['SQL'].lstrip().upper().startswith('SELECT') else db.executescript(os.environ['SQL']).fetchall()
                db.commit()
                print('\\n'.join('|'.join(str(v) for v in row) for row in rows))
                """
            let result = tool(["python3", "-c", script], environment: ["DB": box.db, "SQL": sql])
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.split(separator: "\n").map(String.init)
        }
    }

    func emailCodes(_ run: Run) -> [String] {
        let errors = run.json["errors"] as? [String: [[String: String]]]
        return errors?["email"]?.compactMap { $0["code"] } ?? []
    }

    @Test(arguments: Store.available)
    func aDomainAndItsPunycodeAreOneAccountForEveryCommand(store: Store) {
        let place = Place(store)
        let created = place.run(["--json"], input: "a@bücher.de\n\(goodPassword)\n\(goodPassword)\n", secrets: [goodPassword])
        #expect(created.status == 0, "\(created.stderr)")
        for spelling in ["a@xn--bcher-kva.de", "A@XN--BCHER-KVA.DE", "a@BÜCHER.de"] {
            let again = place.run(["--json"], input: "\(spelling)\n\(goodPassword)\n\(goodPassword)\n", secrets: [goodPassword])
            #expect(again.status == 65, "\(spelling): \(again.stdout)")
            #expect(emailCodes(again) == ["email.taken"], "\(spelling)")
            // --email is checked by the store at commit; the answer typed is checked early.
            let preset = place.run(["--email", spelling, "--no-interactive", "--json"], input: "\(goodPassword)\n\(goodPassword)\n", secrets: [goodPassword])
            #expect(emailCodes(preset) == ["email.taken"], "\(spelling)")
        }
        #expect(place.verify("a@xn--bcher-kva.de", goodPassword) == 0)
        #expect(place.verify("a@XN--BCHER-KVA.de", "Wrong-Password-11") == 1)
        let changed = place.run(["passwd", "a@xn--bcher-kva.de"], input: "\(Self.newPassword)\n\(Self.newPassword)\n", secrets: [Self.newPassword])
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(place.verify("a@bücher.de", Self.newPassword) == 0)
        #expect(place.run(["disable", "A@xn--bcher-kva.de"]).status == 0)
        #expect(place.verify("a@bücher.de", Self.newPassword) != 0)
        #expect(place.run(["enable", "a@BÜCHER.DE"]).status == 0)
        #expect(place.verify("a@xn--bcher-kva.de", Self.newPassword) == 0)
        // What the person typed is what is stored and listed.
        let list = place.run(["list", "--json"])
        let accounts = (try? JSONSerialization.jsonObject(with: list.stdoutBytes)) as? [[String: Any]] ?? []
        #expect(accounts.compactMap { $0["email"] as? String } == ["a@bücher.de"])
        #expect(place.run(["delete", "a@xn--bcher-kva.de", "--yes"]).status == 0)
        #expect(place.verify("a@bücher.de", Self.newPassword) != 0)
        #expect(place.run(["list", "--json"]).stdout.contains("bücher") == false)
    }

    @Test(arguments: Store.available)
    func anImportFindsTheAccountWhicheverSpellingItHolds(store: Store) {
        let place = Place(store)
        #expect(place.run([], input: "a@xn--bcher-kva.de\n\(goodPassword)\n\(goodPassword)\n", secrets: [goodPassword]).status == 0)
        let file = place.box.file("import.csv", lines("email,password\na@bücher.de,\(Self.newPassword)\nb@bücher.de,\(Self.newPassword)\nB@xn--bcher-kva.de,\(Self.newPassword)\n"))
        let imported = place.run(["import", file, "--json"], secrets: [Self.newPassword])
        #expect(imported.json["created"] as? Int == 1, "\(imported.stdout) \(imported.stderr)")
        #expect(imported.json["taken"] as? Int == 1)
        #expect(imported.stderr.contains("line 4 B@xn--bcher-kva.de: email.duplicate (the email of line 3)"), "\(imported.stderr)")
        #expect(place.verify("b@bücher.de", Self.newPassword) == 0)
        // The existing account was not replaced.
        #expect(place.verify("a@bücher.de", goodPassword) == 0)
    }

    /// A database a release before IDNA wrote: its punycode key is found by either spelling before
    /// a command that writes migrates it, and re-keyed after; two accounts the new key would merge
    /// stop the migration with both named and nothing changed.
    @Test(arguments: Store.available)
    func anOldPunycodeKeyIsMigrated(store: Store) {
        let place = Place(store)
        #expect(place.run([], input: "Anna@XN--BCHER-KVA.de\n\(goodPassword)\n\(goodPassword)\n", secrets: [goodPassword]).status == 0)
        place.sql("UPDATE account SET email_key = 'anna@xn--bcher-kva.de'; DELETE FROM grdb_migrations WHERE identifier = 'v5-email-key-idna';")
        #expect(place.verify("anna@bücher.de", goodPassword) == 0)
        #expect(place.sql("SELECT email_key FROM account") == ["anna@xn--bcher-kva.de"])
        let again = place.run(["--json"], input: "anna@bücher.de\n\(goodPassword)\n\(goodPassword)\n", secrets: [goodPassword])
        #expect(emailCodes(again) == ["email.taken"], "\(again.stdout) \(again.stderr)")
        #expect(place.sql("SELECT email, email_key FROM account") == ["Anna@XN--BCHER-KVA.de|anna@bücher.de"])

        place.sql("""
            INSERT INTO account (email, email_key, password_hash, created_at) VALUES ('ANNA@bücher.de', 'stale', 'h', 'now');
            DELETE FROM grdb_migrations WHERE identifier = 'v5-email-key-idna';
            """)
        let refused = place.run(["--json"], input: "bob@example.com\n\(goodPassword)\n\(goodPassword)\n", secrets: [goodPassword])
        #expect(refused.status == 74, "\(refused.stderr)")
        #expect(refused.stderr.contains("Anna@XN--BCHER-KVA.de") && refused.stderr.contains("ANNA@bücher.de"), "\(refused.stderr)")
        #expect(refused.stderr.contains("nothing was changed"), "\(refused.stderr)")
        #expect(place.sql("SELECT email_key FROM account ORDER BY id") == ["anna@bücher.de", "stale"])
    }

    @Test(arguments: [
        "b@xn--zz.de",  // does not decode
        "b@鶻溲篤釘冶覙淠咣戓屽綖訊涏纼鎙嬍靶淪侭榽舾.cn",  // 63 bytes, 70 once encoded
        "b@xn--ls8h.la",  // an emoji, which UTS #46 disallows
    ])
    func anInvalidDomainIsRefusedAtTheEmailPromptInAScript(email: String) {
        let box = Sandbox()
        let run = box.run(["--db", box.db, "--json"], input: lines("\(email)\n\(goodPassword)\n\(goodPassword)\n"), secrets: [goodPassword])
        #expect(run.status == 65)
        #expect(emailCodes(run) == ["email.domainInvalid"], "\(run.stdout)")
        #expect(run.stderr.contains("error: email: The part after @ is not a valid domain name"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: box.db))
        let german = box.run(["--db", box.db], input: lines("\(email)\n\(goodPassword)\n\(goodPassword)\n"),
                             environment: ["LANGUAGE": "de", "LC_ALL": "C.UTF-8"], secrets: [goodPassword])
        #expect(german.stderr.contains("Der Teil nach dem @ ist kein gültiger Domainname"), "\(german.stderr)")
    }

    /// libidn2 is loaded on first use: when it cannot be, an international domain is a storage
    /// failure (74) that says so, nothing is stored, and an ASCII address needs no libidn2 at all.
    @Test func aMissingLibidn2IsAStorageFailureThatSaysSo() throws {
        let box = Sandbox()
        let libraries = box.folder.appendingPathComponent("lib")
        try FileManager.default.createDirectory(at: libraries, withIntermediateDirectories: true)
        try Data("not a library".utf8).write(to: libraries.appendingPathComponent("libidn2.so.0"))
        let environment = ["LD_LIBRARY_PATH": libraries.path]
        let refused = box.run(["--db", box.db, "--json"], input: lines("a@bücher.de\n\(goodPassword)\n\(goodPassword)\n"),
                              environment: environment, secrets: [goodPassword])
        #expect(refused.status == 74, "\(refused.stderr)")
        #expect(refused.stderr.contains("libidn2 cannot be loaded"), "\(refused.stderr)")
        #expect(box.run(["--db", box.db, "--json"], input: lines(answers), environment: environment, secrets: [goodPassword]).status == 0)
        #expect(box.run(["list", "--db", box.db, "--json"], environment: environment).stdout.contains("alice@example.com"))
    }
}
