import Foundation
import Testing

/// passwd, disable, enable, delete, and verify and list with states, driven through pipes on
/// SQLite and, when the test server runs, PostgreSQL.
@Suite struct AccountLifeCommandTests {
    /// Where a test's accounts live: an SQLite file in the sandbox, or a new PostgreSQL database.
    enum Store: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres
        static var available: [Store] { TestServer.isAvailable ? [.sqlite, .postgres] : [.sqlite] }
        var testDescription: String { rawValue }
    }

    /// A sandbox with one account (alice, `goodPassword`) in `store`; `database` is what `--db` takes.
    final class Fixture {
        let sandbox = Sandbox()
        let pg: TestDatabase?
        let database: String

        init(_ store: Store) {
            pg = store == .postgres ? TestDatabase() : nil
            database = pg?.socket ?? sandbox.db
            let created = sandbox.run(["--db", database, "--no-interactive"], input: lines(answers))
            #expect(created.status == 0, "\(created.stderr)")
        }

        @discardableResult
        func run(_ arguments: [String], input: String? = nil, secrets: [String] = []) -> Run {
            sandbox.run(arguments + ["--db", database], input: input.map(lines), secrets: secrets)
        }

        func verify(_ email: String, _ password: String) -> Int32 {
            run(["verify", email], input: password + "\n", secrets: [password]).status
        }

        /// alice's stored hash, read by another program (python's sqlite3, psql).
        var storedHash: String {
            if let pg { return pg.psql("SELECT password_hash FROM account WHERE email_key = 'alice@example.com'").first ?? "" }
            return tool(["python3", "-c", "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(\"SELECT password_hash FROM account WHERE email_key = 'alice@example.com'\").fetchone()[0])",
                         database]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func listed(_ extra: [String] = []) -> [[String: Any]] {
            let list = run(["list", "--json"] + extra)
            return (try? JSONSerialization.jsonObject(with: list.stdoutBytes)) as? [[String: Any]] ?? []
        }
    }

    static let newPassword = "Harbor-Tulip-Kite-93"

    @Test(arguments: Store.available)
    func passwdFromAScriptChangesThePasswordAndRecordsWhen(store: Store) {
        let fixture = Fixture(store)
        let changed = fixture.run(["passwd", "Alice@Example.com"], input: "\(Self.newPassword)\n\(Self.newPassword)\n", secrets: [Self.newPassword])
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(changed.stdout == "Password changed for Alice@Example.com\n")
        #expect(fixture.verify("alice@example.com", Self.newPassword) == 0)
        #expect(fixture.verify("alice@example.com", goodPassword) == 1)
        #expect(fixture.listed().first?["password_changed_at"] is String)
    }

    @Test(arguments: Store.available)
    func passwdRefusesAPasswordThePolicyRefusesAndKeepsTheOldOne(store: Store) {
        let fixture = Fixture(store)
        let refused = fixture.run(["passwd", "alice@example.com", "--json"], input: "weak\nweak\n", secrets: ["weak"])
        #expect(refused.status == 65)
        #expect(refused.json["status"] as? String == "invalid")
        #expect(fixture.verify("alice@example.com", goodPassword) == 0)
        let ended = fixture.run(["passwd", "alice@example.com"], input: "\(Self.newPassword)\n", secrets: [Self.newPassword])
        #expect(ended.status == 66)
        #expect(fixture.verify("alice@example.com", goodPassword) == 0)
    }

    @Test(arguments: Store.available)
    func passwdTakesThePasswordFromAFile(store: Store) {
        let fixture = Fixture(store)
        let file = fixture.sandbox.file("new-password", Data("\(Self.newPassword)\n".utf8))
        let changed = fixture.run(["passwd", "alice@example.com", "--password-file", file], secrets: [Self.newPassword])
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(fixture.verify("alice@example.com", Self.newPassword) == 0)
    }

    @Test(arguments: Store.available)
    func aDisabledAccountCannotSignInAndSaysSoInTheSameWayWhateverThePassword(store: Store) {
        let fixture = Fixture(store)
        #expect(fixture.run(["disable", "alice@example.com"]).status == 0)
        for password in [goodPassword, "Wrong-Password-1"] {
            let verify = fixture.run(["verify", "alice@example.com"], input: password + "\n", secrets: [password])
            #expect(verify.status == 77)
            #expect(verify.stderr == "This account is disabled.\n")
        }
        #expect(fixture.listed().first?["state"] as? String == "disabled")
        #expect(fixture.listed(["--state", "active"]).isEmpty)
        #expect(fixture.listed(["--state", "disabled"]).count == 1)
        let text = fixture.run(["list"]).stdout
        #expect(text.contains("STATE") && text.contains("disabled  alice@example.com"))
        #expect(fixture.run(["enable", "alice@example.com"]).status == 0)
        #expect(fixture.verify("alice@example.com", goodPassword) == 0)
    }

    @Test(arguments: Store.available)
    func deleteInAScriptNeedsYesAndRemovesTheAccount(store: Store) {
        let fixture = Fixture(store)
        let refused = fixture.run(["delete", "alice@example.com"])
        #expect(refused.status == 64)
        #expect(fixture.listed().count == 1)
        let deleted = fixture.run(["delete", "alice@example.com", "--yes"])
        #expect(deleted.status == 0)
        #expect(deleted.stdout == "Deleted alice@example.com\n")
        #expect(fixture.listed().isEmpty)
        #expect(fixture.verify("alice@example.com", goodPassword) == 67)
    }

    @Test(arguments: Store.available)
    func anUnknownEmailHasOneMessageAndExit67InEveryCommand(store: Store) {
        let fixture = Fixture(store)
        let commands: [([String], String?)] = [
            (["verify", "bob@example.com"], goodPassword + "\n"),
            (["passwd", "bob@example.com"], "\(Self.newPassword)\n\(Self.newPassword)\n"),
            (["disable", "bob@example.com"], nil), (["enable", "bob@example.com"], nil),
            (["delete", "bob@example.com", "--yes"], nil),
        ]
        for (arguments, input) in commands {
            let run = fixture.run(arguments, input: input, secrets: [Self.newPassword])
            #expect(run.status == 67, "\(arguments[0])")
            #expect(run.stderr.hasSuffix("error: no account has this email address\n"), "\(arguments[0]): \(run.stderr)")
            #expect(!run.stderr.contains("bob@"), "\(arguments[0]) repeated the argument")
        }
        #expect(fixture.listed().count == 1)
    }

    @Test func aMissingDatabaseIsSaidAndNothingIsCreated() {
        let sandbox = Sandbox()
        let missing = sandbox.folder.appendingPathComponent("none/accounts.sqlite").path
        let commands: [([String], String?)] = [
            (["verify", "alice@example.com"], goodPassword + "\n"),
            (["passwd", "alice@example.com"], "\(Self.newPassword)\n\(Self.newPassword)\n"),
            (["disable", "alice@example.com"], nil), (["enable", "alice@example.com"], nil),
            (["delete", "alice@example.com", "--yes"], nil),
        ]
        for (arguments, input) in commands {
            let run = sandbox.run(arguments + ["--db", missing], input: input.map(lines), secrets: [Self.newPassword])
            #expect(run.status == 69, "\(arguments[0]): \(run.stderr)")
            #expect(run.stderr.contains("there is no account database at"), "\(arguments[0])")
            #expect(!FileManager.default.fileExists(atPath: missing), "\(arguments[0]) created the database")
        }
    }

    @Test func theNewCommandsAreListedInTheHelp() {
        let help = Sandbox().run(["--help"]).stdout
        for command in ["passwd", "disable", "enable", "delete"] {
            #expect(help.contains(command), "\(command)")
        }
    }

    @Test(arguments: Store.available)
    func verifyUpgradesAWeakerHashOnlyWhenThePasswordMatchesAnActiveAccount(store: Store) {
        let fixture = Fixture(store)
        let policy = fixture.sandbox.file("strong.json", Data(#"{"argon2": {"memoryKiB": 32768, "iterations": 3}}"#.utf8))
        let old = fixture.storedHash
        #expect(old.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        #expect(fixture.run(["list", "--count-old-hashes", "--policy-file", policy]).stdout == "1\n")
        // A wrong password, or a disabled account, changes nothing.
        #expect(fixture.run(["verify", "alice@example.com", "--policy-file", policy], input: "Wrong-Password-1\n").status == 1)
        #expect(fixture.storedHash == old)
        #expect(fixture.run(["disable", "alice@example.com"]).status == 0)
        #expect(fixture.run(["verify", "alice@example.com", "--policy-file", policy], input: goodPassword + "\n").status == 77)
        #expect(fixture.storedHash == old)
        #expect(fixture.run(["enable", "alice@example.com"]).status == 0)
        let verified = fixture.run(["verify", "alice@example.com", "--policy-file", policy], input: goodPassword + "\n")
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(fixture.storedHash.hasPrefix("$argon2id$v=19$m=32768,t=3,p=1$"))
        #expect(fixture.run(["list", "--count-old-hashes", "--policy-file", policy]).stdout == "0\n")
        // The upgraded hash still verifies under the default policy, and is not made weaker again.
        let upgraded = fixture.storedHash
        #expect(fixture.verify("alice@example.com", goodPassword) == 0)
        #expect(fixture.storedHash == upgraded)
    }

    /// A plain `list` does not use a policy, but one named on its command line is still read: a
    /// broken one is a usage error, as for every other command, not silently ignored.
    @Test func listRefusesABrokenPolicyItIsGiven() {
        let box = Sandbox()
        #expect(box.run(["--db", box.db], input: signUp("alice@example.com")).status == 0)
        let broken = box.file("broken.json", Data(#"{"minLength": 8, "#.utf8))
        let listed = box.run(["list", "--db", box.db, "--policy-file", broken])
        #expect(listed.status == 64 && listed.stdout.isEmpty, "\(listed.stdout)")
        #expect(listed.stderr.contains("not valid JSON"), "\(listed.stderr)")
        #expect(box.run(["list", "--db", box.db, "--policy", "lax"]).status == 64)
        #expect(box.run(["list", "--db", box.db, "--policy", "strict"]).stdout.contains("alice@example.com"))
    }

    @Test func aPolicyFileSetsTheCostsOfNewHashesAndRefusesImpossibleOnes() {
        let box = Sandbox()
        let strong = box.file("strong.json", Data(#"{"argon2": {"memoryKiB": 24576}}"#.utf8))
        #expect(box.run(["--db", box.db, "--policy-file", strong], input: lines(answers)).status == 0)
        let hash = tool(["python3", "-c", "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT password_hash FROM account').fetchone()[0])",
                         box.db]).stdout
        #expect(hash.hasPrefix("$argon2id$v=19$m=24576,t=2,p=1$"))
        for bad in [#"{"argon2": {"memoryKiB": 8}}"#, #"{"argon2": {"iterations": 0}}"#, #"{"argon2": {"lanes": 2}}"#, #"{"argon2": 5}"#] {
            let file = box.file("bad.json", Data(bad.utf8))
            let run = box.run(["--db", box.db, "--policy-file", file], input: lines(answers))
            #expect(run.status == 64, "\(bad)")
            #expect(run.stderr.contains("\"argon2\" must be an object"), "\(bad)")
        }
    }

    /// disable and enable end by a signal only before their change: a SIGTERM that came after
    /// the commit ended them with 143 and the change made (2 to 7 runs in 60 when they held no
    /// signals). Sent at moments spread over a run's whole life, the exit code must say what
    /// the stored state says.
    @Test(arguments: Store.available)
    func aSignalEndsDisableOrEnableOnlyBeforeTheChange(store: Store) {
        let fixture = Fixture(store)
        var state = "active"
        for trial in 0..<60 {
            let (command, wanted) = state == "active" ? ("disable", "disabled") : ("enable", "active")
            let delay = Double((trial * 37) % 60) * 0.0025
            let run = fixture.sandbox.run([command, "alice@example.com", "--db", fixture.database],
                                          via: "\"$0\" \"$@\" & pid=$!; sleep \(delay); kill -TERM $pid 2>/dev/null; wait $pid")
            let stored = fixture.listed().first?["state"] as? String
            #expect([0, 143].contains(run.status), "trial \(trial): \(run.status) \(run.stderr)")
            #expect(stored == (run.status == 0 ? wanted : state),
                    "trial \(trial): \(command) exited \(run.status) and the account is \(stored ?? "missing")")
            state = stored ?? state
        }
    }
}
