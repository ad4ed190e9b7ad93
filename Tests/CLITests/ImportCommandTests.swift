import Foundation
import Testing

/// `signup import`: rows checked as sign-ups, rejected ones reported without their passwords,
/// taken ones skipped or updated, nothing written by a dry run, and a second run after an
/// interruption finishing the rest without duplicates.
@Suite struct ImportCommandTests {
    typealias Store = AccountLifeCommandTests.Store

    static let csv = """
        email,password
        alice@example.com,\(goodPassword)
        "bob@example.com","Kite,with ""quotes"" 9X-Harbor"
        bad@@example.com,short-secret
        Carol@Example.com,Harbor-Tulip-Kite-93
        ALICE@example.com,Other-Harbor-Kite-77

        """

    private func database(_ store: Store, _ sandbox: Sandbox) -> (String, TestDatabase?) {
        let pg = store == .postgres ? TestDatabase() : nil
        return (pg?.socket ?? sandbox.db, pg)
    }

    @Test(arguments: Store.available)
    func csvRowsAreCheckedReportedAndStored(store: Store) {
        let box = Sandbox()
        let (db, pg) = database(store, box)
        let file = box.file("accounts.csv", Data(Self.csv.utf8))
        let secrets = ["Kite,with", "short-secret", "Harbor-Tulip-Kite-93", "Other-Harbor-Kite-77"]
        let run = box.run(["import", file, "--db", db, "--json"], secrets: secrets)
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.json["created"] as? Int == 3)
        #expect(run.json["rejected"] as? Int == 2)
        #expect(run.json["taken"] as? Int == 0)
        // The line number and every failing code; neither the password nor an invalid email, which may hold one.
        #expect(run.stderr.contains("line 4: email.invalid, password.needsDigit, password.needsUppercase, password.tooWeak\n"), "\(run.stderr)")
        #expect(run.stderr.contains("line 6 ALICE@example.com: email.duplicate (the email of line 2)\n"), "\(run.stderr)")
        #expect(box.run(["verify", "bob@example.com", "--db", db], input: lines("Kite,with \"quotes\" 9X-Harbor\n"), secrets: secrets).status == 0)
        #expect(box.run(["verify", "alice@example.com", "--db", db], input: lines(goodPassword + "\n")).status == 0)
        _ = pg
    }

    @Test(arguments: Store.available)
    func updateChangesTakenAccountsAndDryRunWritesNothing(store: Store) {
        let box = Sandbox()
        let (db, pg) = database(store, box)
        box.run(["--db", db], input: lines(answers))
        let jsonLines = """
            {"email":"alice@example.com","password":"Harbor-Tulip-Kite-93"}
            {"email":"new@example.com","password":"Harbor-Tulip-Kite-93"}

            """
        let file = box.file("accounts.jsonl", Data(jsonLines.utf8))
        let dry = box.run(["import", file, "--db", db, "--update", "--dry-run", "--json"], secrets: ["Harbor-Tulip-Kite-93"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.json["created"] as? Int == 1 && dry.json["updated"] as? Int == 1)
        #expect(box.run(["list", "--db", db, "--json"]).stdout.contains("new@example.com") == false)
        #expect(box.run(["verify", "alice@example.com", "--db", db], input: lines(goodPassword + "\n")).status == 0)
        let real = box.run(["import", file, "--db", db, "--update"], secrets: ["Harbor-Tulip-Kite-93"])
        #expect(real.status == 0, "\(real.stderr)")
        #expect(real.stdout == "Imported: created 1, updated 1, already there 0, rejected 0\n")
        #expect(box.run(["verify", "alice@example.com", "--db", db], input: lines("Harbor-Tulip-Kite-93\n"), secrets: ["Harbor-Tulip-Kite-93"]).status == 0)
        _ = pg
    }

    @Test func aPHCHashIsImportedAsItIsAndAMalformedOneIsRejected() {
        let box = Sandbox()
        box.run(["--db", box.db], input: lines(answers))
        // A hash signup itself made, for a known password: alice's, moved to another email.
        let stored = tool(["python3", "-c", "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT password_hash FROM account').fetchone()[0])",
                           box.db]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let csv = "email,password_hash\nmoved@example.com,\(stored)\nbroken@example.com,$argon2id$v=19$nonsense\n"
        let run = box.run(["import", box.file("hashes.csv", Data(csv.utf8)), "--db", box.db])
        #expect(run.status == 65)
        #expect(run.stderr.contains("line 3 broken@example.com: password_hash.invalid"))
        #expect(box.run(["verify", "moved@example.com", "--db", box.db], input: lines(goodPassword + "\n")).status == 0)
    }

    @Test func aFileWithoutItsHeaderIsRejectedAndWritesNothing() {
        let box = Sandbox()
        let run = box.run(["import", box.file("x.csv", Data("alice@example.com,\(goodPassword)\n".utf8)), "--db", box.db])
        #expect(run.status == 65)
        #expect(run.stderr.contains("line 1: header.invalid"))
        #expect(box.accounts().isEmpty)
    }

    /// A first line that cannot be read (not UTF-8, a NUL, too long) names no format: it was
    /// counted as a rejected row and the next line taken for the header, and a binary file
    /// was reported as hundreds of rejected rows.
    @Test(arguments: [Data([0xFF, 0xFE, 0x00, 0x41]), Data(String(repeating: "x", count: 70_000).utf8)])
    func anUnreadableFirstLineRefusesTheFile(first: Data) {
        let box = Sandbox()
        let file = box.file("x.csv", first + Data("\nemail,password\nalice@example.com,\(goodPassword)\n".utf8))
        let run = box.run(["import", file, "--db", box.db, "--json"])
        #expect(run.status == 65)
        #expect(run.stderr.contains("line 1: header.invalid"), "\(run.stderr)")
        #expect(run.json["created"] as? Int == 0 && run.json["rejected"] as? Int == 1, "\(run.stdout)")
        #expect(box.accounts().isEmpty)
    }

    @Test func aKilledImportIsFinishedByASecondRunWithoutDuplicates() throws {
        let box = Sandbox()
        let count = 600
        var csv = "email,password\n"
        for index in 0..<count { csv += "user\(index)@example.com,Harbor-Tulip-\(index)-Kite\n" }
        let file = box.file("many.csv", Data(csv.utf8))
        // Killed part-way, without a chance to clean up: committed batches stay whole.
        let killed = box.run(["import", file, "--db", box.db], via: "\"$0\" \"$@\" & pid=$!; sleep 2; kill -KILL $pid; wait $pid")
        #expect(killed.status == 137, "\(killed.stderr)")
        let partial = box.accounts().count
        #expect(partial < count && partial % 256 == 0, "\(partial) rows after the kill")
        let second = box.run(["import", file, "--db", box.db, "--json"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.json["created"] as? Int == count - partial)
        #expect(second.json["taken"] as? Int == partial)
        let emails = box.accounts().compactMap { $0["email"] as? String }
        #expect(emails.count == count && Set(emails).count == count)
    }

    @Test func aFileThatCannotBeReadIs66AndCreatesNoDatabase() {
        let box = Sandbox()
        let folder = box.run(["import", box.folder.path, "--db", box.db])
        #expect(folder.status == 66)
        #expect(folder.stderr.contains("cannot read the file to import"))
        let missing = box.run(["import", box.folder.appendingPathComponent("none.csv").path, "--db", box.db])
        #expect(missing.status == 66)
        #expect(!FileManager.default.fileExists(atPath: box.db))
    }

    @Test func aJSONLineWithAnUnknownKeyOrNoPasswordIsRejected() {
        let box = Sandbox()
        let jsonLines = """
            {"email":"a@example.com","pasword":"Harbor-Tulip-Kite-93"}
            {"email":"b@example.com","password":7}
            {"email":"c@example.com"}
            {"email":"d@example.com","password":"Harbor-Tulip-Kite-93"}

            """
        let run = box.run(["import", box.file("x.jsonl", Data(jsonLines.utf8)), "--db", box.db], secrets: ["Harbor-Tulip-Kite-93"])
        #expect(run.status == 65)
        #expect(run.stderr.contains("line 1: json.unknownKey"))
        #expect(run.stderr.contains("line 2: json.notAString"))
        #expect(run.stderr.contains("line 3: json.passwordOrHash"))
        #expect(box.accounts().compactMap { $0["email"] as? String } == ["d@example.com"])
    }

    /// A blank line, empty or only spaces and tabs (an editor's indentation, a trailing line),
    /// holds no row in either format: skipped, not a rejected row that makes the import exit 65.
    @Test(arguments: ["email,password\n", ""])
    func blankLinesAreSkipped(header: String) {
        let box = Sandbox()
        let row = header.isEmpty ? #"{"email":"a@example.com","password":"Harbor-Tulip-Kite-93"}"# : "a@example.com,Harbor-Tulip-Kite-93"
        let other = header.isEmpty ? #"{"email":"b@example.com","password":"Harbor-Tulip-Kite-93"}"# : "b@example.com,Harbor-Tulip-Kite-93"
        let text = header + row + "\n\n   \n\t \n" + other + "\n  \n"
        let run = box.run(["import", box.file("x", Data(text.utf8)), "--db", box.db], secrets: ["Harbor-Tulip-Kite-93"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(box.accounts().compactMap { $0["email"] as? String } == ["a@example.com", "b@example.com"])
    }

    @Test func oneRowAlreadyThereIsNamedByItsLine() {
        let box = Sandbox()
        let file = box.file("x.csv", Data("email,password\na@example.com,Harbor-Tulip-Kite-93\n".utf8))
        #expect(box.run(["import", file, "--db", box.db], secrets: ["Harbor-Tulip-Kite-93"]).status == 0)
        let again = box.run(["import", file, "--db", box.db], secrets: ["Harbor-Tulip-Kite-93"])
        #expect(again.stderr.contains("Already there, not changed: 1 (line 2)\n"), "\(again.stderr)")
    }

    @Test func aJSONKeyGivenTwiceIsRefusedAndABadEscapeOrNumberIsMalformed() {
        let box = Sandbox()
        let jsonLines = #"""
            {"email":"a@example.com","password":"Weak","password":"Harbor-Tulip-Kite-93"}
            {"email":"b@example.com","password":"Harbor\x-Tulip-Kite-93"}
            {"email":"c@example.com","password":"Harbor-Tulip-Kite-93","extra":01}
            {"email":"d@example.com","password":"\ud800-Harbor-Tulip-Kite-93"}
            {"email":"e@example.com","em\u0061il":"f@example.com","password":"Harbor-Tulip-Kite-93"}
            {"email":"g@example.com","password":"Harbor-Tulip-Kite-93"}

            """#
        let run = box.run(["import", box.file("x.jsonl", Data(jsonLines.utf8)), "--db", box.db], secrets: ["Harbor-Tulip-Kite-93"])
        #expect(run.status == 65)
        #expect(run.stderr.contains("line 1: json.duplicateKey"), "\(run.stderr)")
        #expect(run.stderr.contains("line 2: json.malformed"), "\(run.stderr)")
        #expect(run.stderr.contains("line 3: json.malformed"), "\(run.stderr)")
        #expect(run.stderr.contains("line 4: json.malformed"), "\(run.stderr)")
        #expect(run.stderr.contains("line 5: json.duplicateKey"), "\(run.stderr)")
        #expect(box.accounts().compactMap { $0["email"] as? String } == ["g@example.com"])
    }
}

/// What an outside attack found in `import`: each was a way to create, show or plant what the
/// documentation says cannot be.
@Suite struct ImportAttackTests {
    @Test func aHashThatCostsAGigabyteIsNotImported() {
        let box = Sandbox()
        #expect(box.run(["--db", box.db], input: lines("first@example.com\n\(goodPassword)\n\(goodPassword)\n")).status == 0)
        let costly = "$argon2id$v=19$m=1048576,t=64,p=64$c29tZXNhbHRzb21lc2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g"
        let fine = "$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHRzb21lc2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g"
        let file = box.file("hashes.csv", Data("email,password_hash\nh1@example.com,\(costly)\nh2@example.com,\(fine)\n".utf8))
        let run = box.run(["import", file, "--db", box.db])
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("line 2 h1@example.com: password_hash.tooCostly"), "\(run.stderr)")
        let listed = box.run(["list", "--db", box.db]).stdout
        #expect(!listed.contains("h1@example.com") && listed.contains("h2@example.com"))
    }

    @Test func aRowSplitAtTheWrongDelimiterShowsNoPartOfItsPassword() {
        let box = Sandbox()
        #expect(box.run(["--db", box.db], input: lines("first@example.com\n\(goodPassword)\n\(goodPassword)\n")).status == 0)
        let file = box.file("rows.csv", Data("email,password\nbob4@example.com\tTab-Secret-3,\nbob3@example.com;Semi-Secret,Part-2\n".utf8))
        let run = box.run(["import", file, "--db", box.db], secrets: ["Tab-Secret", "Semi-Secret"])
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("line 2: email.invalid"), "\(run.stderr)")
        #expect(run.stderr.contains("line 3: email.invalid"), "\(run.stderr)")
    }

    /// A password in the email column (columns swapped, joined or shifted by an extra field, a
    /// header again in the middle) was shown as the "email" of its rejected row.
    @Test func aRejectedRowShowsItsEmailOnlyWhenNoPasswordCanBeInIt() {
        let box = Sandbox()
        let csv = """
            email,password
            \(goodPassword),n12@example.com
            Swapped9@Example.org,n13@example.com
            Zx9@Secret-Pw.org,bob@example
            n14@example.com:Joined-Secret-77
            Extra-Secret-5,n15@example.com,more
            "Quoted-Secret-6",n16@example.com
            email,password
            weak@example.com,Weak-pass

            """
        let secrets = ["Swapped9", "Secret-Pw", "Joined-Secret", "Extra-Secret", "Quoted-Secret", "Weak-pass"]
        let run = box.run(["import", box.file("rows.csv", Data(csv.utf8)), "--db", box.db], secrets: secrets)
        #expect(run.status == 65, "\(run.stderr)")
        for line in 2...8 {
            #expect(run.stderr.contains("line \(line): "), "line \(line) is reported by its number alone: \(run.stderr)")
        }
        // A well-formed address in its own column, beside a password that is not one, is shown.
        #expect(run.stderr.contains("line 9 weak@example.com: password.needsDigit"), "\(run.stderr)")
        let jsonLines = #"""
            {"email":"Json-Secret-99","password":"n17@example.com"}
            {"password":"n18@example.com","email":"Other9@Example.org"}

            """#
        let json = box.run(["import", box.file("rows.jsonl", Data(jsonLines.utf8)), "--db", box.db], secrets: ["Json-Secret", "Other9"])
        #expect(json.stderr.contains("line 1: ") && json.stderr.contains("line 2: "), "\(json.stderr)")
    }

    @Test func aClosedStandardInputIsNoInput() {
        let box = Sandbox()
        #expect(box.run(["--db", box.db], input: lines("first@example.com\n\(goodPassword)\n\(goodPassword)\n")).status == 0)
        let run = box.run(["import", "-", "--db", box.db], via: "exec \"$0\" \"$@\" <&-")
        #expect(run.status == 66, "\(run.stderr)")
    }
}
