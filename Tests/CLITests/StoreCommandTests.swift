import Foundation
import Testing

/// `signup list`, `signup verify`, concurrent sign-ups and a failing store, through the binary.
@Suite struct StoreCommandTests {
    @Test func listPrintsAccountsButNeverHashes() {
        let box = Sandbox()
        box.run(["--db", box.db], input: lines(answers))
        box.run(["--db", box.db], input: lines("José@Bücher.de\n\(goodPassword)\n\(goodPassword)\n"))
        let human = box.run(["list", "--db", box.db])
        #expect(human.status == 0)
        #expect(human.stdout.contains("alice@example.com"))
        #expect(human.stdout.contains("José@Bücher.de"))
        let json = box.run(["list", "--db", box.db, "--json"])
        #expect(!json.stdout.contains("argon2"))
        #expect(!human.stdout.contains("argon2"))
        let accounts = box.accounts()
        #expect(accounts.map { $0["id"] as? Int } == [1, 2])
        #expect(Set(accounts.flatMap(\.keys)) == ["id", "email", "created_at"])
    }

    @Test func listOfAMissingDatabaseIsEmptyAndCreatesNothing() {
        let box = Sandbox()
        let run = box.run(["list", "--db", box.db, "--json"])
        #expect(run.status == 0)
        #expect(run.stdout == "[]\n")
        #expect(!FileManager.default.fileExists(atPath: box.db))
    }

    @Test func verifyMatchesOnlyTheRightPassword() {
        let box = Sandbox()
        box.run(["--db", box.db], input: lines(answers))
        #expect(box.run(["verify", "alice@example.com", "--db", box.db], input: lines(goodPassword + "\n"), secrets: [goodPassword]).status == 0)
        #expect(box.run(["verify", "ALICE@example.com", "--db", box.db], input: lines(goodPassword + "\n")).status == 0)
        #expect(box.run(["verify", "alice@example.com", "--db", box.db], input: lines("Quartz-Lantern-59\n"), secrets: ["Quartz-Lantern-59"]).status == 1)
        #expect(box.run(["verify", "nobody@example.com", "--db", box.db], input: lines(goodPassword + "\n")).status == 1)
        #expect(box.run(["verify", "alice@example.com", "--db", box.db]).status == 1)
    }

    @Test func theDefaultDatabaseFollowsTheEnvironment() {
        let box = Sandbox()
        let xdg = box.folder.appendingPathComponent("xdg").path
        #expect(box.run([], input: lines(answers), environment: ["XDG_DATA_HOME": xdg]).status == 0)
        #expect(FileManager.default.fileExists(atPath: xdg + "/signup/accounts.sqlite"))
        let explicit = box.folder.appendingPathComponent("env.sqlite").path
        #expect(box.run([], input: lines(answers), environment: ["SIGNUP_DB": explicit]).status == 0)
        #expect(FileManager.default.fileExists(atPath: explicit))
        #expect(box.run([], input: lines(answers)).status == 0)  // HOME is the sandbox
        #expect(FileManager.default.fileExists(atPath: box.folder.path + "/.local/share/signup/accounts.sqlite"))
    }

    @Test func twoSignupsWithTheSameEmailAtOnce() async {
        let box = Sandbox()
        box.run(["--db", box.db], input: lines("first@example.com\n\(goodPassword)\n\(goodPassword)\n"))  // the schema exists
        for round in 0..<3 {
            let email = "race\(round)@example.com"
            let statuses = await withTaskGroup(of: Int32.self) { group in
                for _ in 0..<2 {
                    group.addTask { box.run(["--db", box.db], input: lines("\(email)\n\(goodPassword)\n\(goodPassword)\n")).status }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.sorted() == [0, 65], "round \(round)")
        }
        #expect(box.accounts().count == 4)
    }

    @Test func manyWritersAtOnceAllLand() async {
        let box = Sandbox()
        let statuses = await withTaskGroup(of: Int32.self) { group in
            for index in 0..<6 {
                group.addTask { box.run(["--db", box.db], input: lines("user\(index)@example.com\n\(goodPassword)\n\(goodPassword)\n")).status }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 0, count: 6))
        #expect(box.accounts().count == 6)
    }

    @Test func aDatabaseThatIsNotSQLiteIsAStorageFailure() {
        let box = Sandbox()
        _ = box.file("accounts.sqlite", lines(String(repeating: "not a database ", count: 100)))
        let run = box.run(["--db", box.db, "--json"], input: lines(answers), secrets: [goodPassword])
        #expect(run.status == 74)
        #expect(run.json["status"] as? String == "storage_error")
        #expect(run.stderr.contains("error: the account could not be saved"))
    }

    @Test func aFolderThatCannotBeCreatedIsAStorageFailure() {
        let box = Sandbox()
        let blocker = box.file("blocker", lines("a file, not a folder"))
        let run = box.run(["--db", blocker + "/sub/accounts.sqlite"], input: lines(answers), secrets: [goodPassword])
        #expect(run.status == 74)
        #expect(run.stderr.contains("blocker"))
    }

    @Test func anImmutableDatabaseIsAStorageFailureAndKeepsItsRows() throws {
        let box = Sandbox()
        #expect(box.run(["--db", box.db], input: lines(answers)).status == 0)
        // Root ignores permission bits; the immutable attribute stops it (NOTES-terminal.md).
        let chattr = Process()
        chattr.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        chattr.arguments = ["+i", box.db, box.folder.path]
        try chattr.run()
        chattr.waitUntilExit()
        try #require(chattr.terminationStatus == 0, "chattr +i is not supported on this filesystem")
        func undo() {
            let undo = Process()
            undo.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
            undo.arguments = ["-i", box.db, box.folder.path]
            try? undo.run()
            undo.waitUntilExit()
        }
        let run = box.run(["--db", box.db, "--json"], input: lines("bob@example.com\n\(goodPassword)\n\(goodPassword)\n"), secrets: [goodPassword])
        // Reading an unchangeable database still works.
        let listed = box.accounts()
        let verified = box.run(["verify", "alice@example.com", "--db", box.db], input: lines(goodPassword + "\n")).status
        undo()
        #expect(run.status == 74)
        #expect(run.json["status"] as? String == "storage_error")
        #expect((run.json["reason"] as? String)?.contains("read-only") == true)
        #expect(listed.map { $0["email"] as? String } == ["alice@example.com"])
        #expect(verified == 0)
        #expect(box.accounts().map { $0["email"] as? String } == ["alice@example.com"])
    }
}
