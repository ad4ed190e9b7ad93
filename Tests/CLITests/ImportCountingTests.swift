import Foundation
import Testing

/// `signup import` accounts for every line of its file: created + updated + already there +
/// rejected is the number of data rows, each rejected row is reported by its own line number,
/// and no open quote takes the rows after it along.
@Suite struct ImportCountingTests {
    /// A file of `count` rows, `user0@example.com` to `user{count-1}`, each with its own password.
    static func rows(_ count: Int, header: String = "email,password") -> [String] {
        [header] + (0..<count).map { "user\($0)@example.com,Harbor-Tulip-\($0)-Kite" }
    }

    /// The numbers of the lines reported as `line N…: codes` on standard error.
    static func reportedLines(_ stderr: String) -> [Int] {
        stderr.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("line ") else { return nil }
            return Int(line.dropFirst(5).prefix { $0.isNumber })
        }
    }

    @Test func aQuoteInsideAnUnquotedPasswordIsPartOfIt() {
        let box = Sandbox()
        var rows = Self.rows(300)
        rows[3] = #"user2@example.com,Harbor"Tulip-2-Kite"#
        let run = box.run(["import", box.file("quote.csv", Data((rows.joined(separator: "\n") + "\n").utf8)), "--db", box.db,
                           "--policy-file", box.cheapPolicy, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.json["created"] as? Int == 300 && run.json["rejected"] as? Int == 0, "\(run.stdout)")
        #expect(box.run(["verify", "user2@example.com", "--db", box.db], input: lines(#"Harbor"Tulip-2-Kite"# + "\n")).status == 0)
    }

    @Test func anUnterminatedQuoteRejectsItsOwnLineOnly() {
        let box = Sandbox()
        var rows = Self.rows(300)
        rows[3] = #""user2@example.com,Harbor-Tulip-2-Kite"#
        rows[5] = #"user4@example.com,"Harbor-Tulip-4-Kite"#
        let run = box.run(["import", box.file("open.csv", Data((rows.joined(separator: "\n") + "\n").utf8)), "--db", box.db,
                           "--policy-file", box.cheapPolicy, "--json"], secrets: ["Harbor-Tulip-2-Kite", "Harbor-Tulip-4-Kite"])
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.json["created"] as? Int == 298 && run.json["rejected"] as? Int == 2, "\(run.stdout)")
        #expect(run.stderr.contains("line 4: csv.unterminatedQuote\n") && run.stderr.contains("line 6: csv.unterminatedQuote\n"), "\(run.stderr)")
        #expect(box.accounts().count == 298)
    }

    @Test func everyLineIsCountedOnceAndEachRejectedLineIsReportedByItsNumber() {
        let box = Sandbox()
        #expect(box.run(["--db", box.db], input: lines("taken@example.com\n\(goodPassword)\n\(goodPassword)\n")).status == 0)
        let file: [(String, rejected: Bool)] = [
            ("email,password", false),
            ("ok1@example.com,Harbor-Tulip-1-Kite", false),
            (#""ok2@example.com","Harbor-Tulip-2-Kite""#, false),
            (#""open@example.com,Harbor-Tulip-3-Kite"#, true),
            (#""after@example.com"x,Harbor-Tulip-4-Kite"#, true),
            ("one-field-only", true),
            (#"ok5@example.com,"Harbor-Tulip-5-Kite",third"#, true),
            (#"ok6@example.com,Har"bor-Tulip-6-Kite"#, false),
            ("", false),
            (#"ok7@example.com,"Harbor-Tulip-7-Kite"#, true),
            ("TAKEN@example.com,Harbor-Tulip-8-Kite", false),
            ("weak@example.com,password", true),
            ("ok9@example.com,Harbor-Tulip-9-Kite,with,commas", false),
        ]
        var bytes = Data(file.map(\.0).joined(separator: "\n").utf8)
        bytes += Data([0x0A, 0xFF, 0xFE, 0x0A])  // a line that is not UTF-8
        let run = box.run(["import", box.file("messy.csv", bytes), "--db", box.db, "--policy-file", box.cheapPolicy, "--json"],
                          secrets: ["Harbor-Tulip-3-Kite", "Harbor-Tulip-7-Kite"])
        #expect(run.status == 65, "\(run.stderr)")
        let counts = ["created", "updated", "taken", "rejected"].map { run.json[$0] as? Int ?? -1 }
        let dataRows = file.dropFirst().filter { !$0.0.isEmpty }.count + 1
        #expect(counts.reduce(0, +) == dataRows, "\(run.stdout)")
        #expect(counts == [4, 0, 1, 7], "\(run.stdout)")
        let rejected = file.indices.filter { file[$0].rejected }.map { $0 + 1 } + [file.count + 1]
        #expect(Self.reportedLines(run.stderr) == rejected, "\(run.stderr)")
    }

    /// A dry run said "would create 3" for a file whose real run created 1: it did not count the
    /// file's own duplicates. Both now count them one way: a later row with an email key an
    /// earlier row has is rejected, naming that line, whatever the run.
    @Test(arguments: AccountLifeCommandTests.Store.available, [false, true])
    func aDryRunCountsEveryRowAsTheRealRunDoes(store: AccountLifeCommandTests.Store, update: Bool) {
        let fixture = AccountLifeCommandTests.Fixture(store)  // alice@example.com is there
        let bob = fixture.sandbox.file("bob.csv", Data("email,password\nbob@example.com,Harbor-Tulip-5-Kite\n".utf8))
        #expect(fixture.run(["import", bob, "--policy-file", fixture.sandbox.cheapPolicy]).status == 0)
        // alice's row has the password she has; bob's a new one.
        let csv = """
            email,password
            a@example.com,Harbor-Tulip-1-Kite
            A@example.com,Harbor-Tulip-2-Kite
            b@example.com,Harbor-Tulip-3-Kite
            a@EXAMPLE.com,Harbor-Tulip-1-Kite
            alice@example.com,\(goodPassword)
            bob@example.com,Harbor-Tulip-6-Kite

            """
        let file = fixture.sandbox.file("dup.csv", Data(csv.utf8))
        let options = ["import", file, "--policy-file", fixture.sandbox.cheapPolicy, "--json"] + (update ? ["--update"] : [])
        let dry = fixture.run(options + ["--dry-run"])
        let real = fixture.run(options)
        let counts = { (run: Run) in ["created", "updated", "taken", "rejected"].map { run.json[$0] as? Int ?? -1 } }
        #expect(counts(real) == (update ? [2, 1, 1, 2] : [2, 0, 2, 2]), "\(real.stdout)")
        #expect(fixture.verify("bob@example.com", update ? "Harbor-Tulip-6-Kite" : "Harbor-Tulip-5-Kite") == 0)
        #expect(counts(dry) == counts(real), "\(dry.stdout)")
        #expect(real.status == 65 && dry.status == 65)
        #expect(real.stderr.contains("line 3 A@example.com: email.duplicate (the email of line 2)\n"), "\(real.stderr)")
        #expect(real.stderr.contains("line 5 a@EXAMPLE.com: email.duplicate (the email of line 2)\n"), "\(real.stderr)")
        #expect(dry.stderr == real.stderr)
        #expect(fixture.verify("a@example.com", "Harbor-Tulip-1-Kite") == 0)
    }

    /// A dry run of `password_hash` rows tried to write them: into an existing database it failed
    /// as read-only (74), and with no database it called every row already there. Counted as the
    /// real run counts them now, writing nothing and creating no file.
    @Test(arguments: AccountLifeCommandTests.Store.available)
    func aDryRunOfHashRowsCountsThemAsTheRealRunDoes(store: AccountLifeCommandTests.Store) {
        let fixture = AccountLifeCommandTests.Fixture(store)  // alice@example.com is there
        let hash = "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g"
        let csv = "email,password_hash\nh1@example.com,\(hash)\nalice@example.com,\(hash)\nh2@example.com,\(hash)\n"
        let file = fixture.sandbox.file("hashes.csv", Data(csv.utf8))
        let counts = { (run: Run) in ["created", "updated", "taken", "rejected"].map { run.json[$0] as? Int ?? -1 } }
        let dry = fixture.run(["import", file, "--json", "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(counts(dry) == [2, 0, 1, 0], "\(dry.stdout)")
        #expect(fixture.run(["list"]).stdout.components(separatedBy: "@example.com").count == 2, "the dry run wrote")
        let real = fixture.run(["import", file, "--json"])
        #expect(counts(real) == counts(dry), "\(real.stdout)")
        // No database at all: every row would be created, and no file is made.
        if store == .sqlite {
            let missing = fixture.sandbox.folder.appendingPathComponent("none.sqlite").path
            let none = fixture.sandbox.run(["import", file, "--db", missing, "--json", "--dry-run"])
            #expect(none.status == 0 && counts(none) == [3, 0, 0, 0], "\(none.stdout) \(none.stderr)")
            #expect(!FileManager.default.fileExists(atPath: missing))
        }
    }

    /// A line longer than the reading of a pipe goes (4 MiB) ended the reading: in a file, the
    /// rows after it were dropped uncounted and the run looked finished. In a file every line
    /// after it is read now; from a pipe the import says where it stopped, and exits 66.
    @Test(arguments: ["file", "pipe"])
    func aLineOfManyMebibytesTakesNoRowAfterItAlong(source: String) {
        let box = Sandbox()
        var rows = Self.rows(3)
        rows.insert(String(repeating: "A", count: 5 * 1024 * 1024), at: 2)
        let contents = Data((rows.joined(separator: "\n") + "\n").utf8)
        let run = source == "file"
            ? box.run(["import", box.file("long.csv", contents), "--db", box.db, "--policy-file", box.cheapPolicy, "--json"])
            : box.run(["import", "-", "--db", box.db, "--policy-file", box.cheapPolicy, "--json"], input: contents)
        #expect(run.stderr.contains("line 3: line.unreadable"), "\(run.stderr.prefix(2000))")
        if source == "file" {
            #expect(run.status == 65, "\(run.stderr.prefix(2000))")
            #expect(run.json["created"] as? Int == 3 && run.json["rejected"] as? Int == 1, "\(run.stdout)")
            #expect(box.accounts().count == 3)
        } else {
            #expect(run.status == 66, "\(run.stderr.prefix(2000))")
            #expect(run.stderr.contains("line 3 goes on for more than 4 MiB: nothing after it was read"), "\(run.stderr.prefix(2000))")
            #expect(box.accounts().map { $0["email"] as? String } == ["user0@example.com"], "the row before it is stored")
        }
    }
}

extension Sandbox {
    /// A policy file with the lowest Argon2 costs a policy may set: for tests of what is counted, not of the hash.
    var cheapPolicy: String {
        file("cheap-policy.json", Data(#"{"base": "standard", "argon2": {"memoryKiB": 7168, "iterations": 1, "parallelism": 1}}"#.utf8))
    }
}
