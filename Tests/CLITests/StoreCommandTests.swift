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
        #expect(Set(accounts.flatMap(\.keys)) == ["id", "email", "created_at", "state", "password_changed_at"])
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
        #expect(box.run(["verify", "nobody@example.com", "--db", box.db], input: lines(goodPassword + "\n")).status == 67)
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
        // A dry run says what the real run would: not "created" (it did before).
        let dryRun = box.run(["--db", box.db, "--json", "--dry-run"], input: lines("bob@example.com\n\(goodPassword)\n\(goodPassword)\n"))
        let dryRunNew = box.run(["--db", box.folder.appendingPathComponent("new.sqlite").path, "--dry-run"],
                                input: lines("bob@example.com\n\(goodPassword)\n\(goodPassword)\n"))
        // Reading an unchangeable database still works.
        let listed = box.accounts()
        let verified = box.run(["verify", "alice@example.com", "--db", box.db], input: lines(goodPassword + "\n")).status
        undo()
        #expect(run.status == 74)
        #expect(run.json["status"] as? String == "storage_error")
        #expect((run.json["reason"] as? String)?.contains("read-only") == true)
        #expect(dryRun.status == 74 && dryRun.json["status"] as? String == "storage_error", "\(dryRun.stdout)")
        #expect((dryRun.json["reason"] as? String)?.contains("read-only") == true)
        #expect(dryRunNew.status == 74 && dryRunNew.stderr.contains("cannot write in the folder"), "\(dryRunNew.stderr)")
        #expect(listed.map { $0["email"] as? String } == ["alice@example.com"])
        #expect(verified == 0)
        // An append-only database file: the real run cannot write it, and the dry run says so
        // (access(2) said it could be written: the dry run said 0).
        let appendOnly = Process()
        appendOnly.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        appendOnly.arguments = ["+a", box.db]
        try appendOnly.run()
        appendOnly.waitUntilExit()
        let realAppend = box.run(["--db", box.db], input: lines("carol@example.com\n\(goodPassword)\n\(goodPassword)\n"))
        let dryAppend = box.run(["--db", box.db, "--dry-run"], input: lines("carol@example.com\n\(goodPassword)\n\(goodPassword)\n"))
        let undoAppend = Process()
        undoAppend.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        undoAppend.arguments = ["-a", box.db]
        try undoAppend.run()
        undoAppend.waitUntilExit()
        #expect(realAppend.status == 74 && dryAppend.status == 74, "real \(realAppend.status), dry run \(dryAppend.status): \(dryAppend.stderr)")
        #expect(box.accounts().map { $0["email"] as? String } == ["alice@example.com"])
    }
}

/// `--db`, `SIGNUP_DB` and `list`/`verify` against hostile names, files and output streams.
@Suite struct StorePathAndOutputTests {
    /// Runs `sql` with Python's sqlite3 on the database at `path`: another program's writes.
    func sqlite(_ path: String, _ sql: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import os, sqlite3; db = sqlite3.connect(os.environ['DB']); db.executescript(os.environ['SQL']); db.commit()"]
        process.environment = ["DB": path, "SQL": sql]
        try! process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    /// A shell line run in the sandbox folder; `$0` is signup.
    func inSandbox(_ box: Sandbox, _ script: String) -> String {
        "cd '\(box.folder.path)' && " + script
    }

    @Test func dbIsAFileNameNeverAnSQLiteURI() throws {
        let box = Sandbox()
        for name in [":memory:", "accounts.sqlite?nolock=1"] {
            let first = box.run([], input: lines(answers), via: inSandbox(box, "exec \"$0\" --db '\(name)'"))
            let second = box.run([], input: lines(answers), via: inSandbox(box, "exec \"$0\" --db '\(name)'"))
            #expect(first.status == 0, "\(name): \(first.stderr)")
            #expect(second.status == 65, "\(name): the second sign-up of one email is taken")
            #expect(FileManager.default.fileExists(atPath: box.folder.path + "/" + name))
        }
        let elsewhere = box.folder.path + "/real.sqlite"
        let uri = box.run([], input: lines(answers), via: inSandbox(box, "exec \"$0\" --db 'file:\(elsewhere)'"))
        #expect(uri.status == 0)
        #expect(!FileManager.default.fileExists(atPath: elsewhere), "file: was read as a URI")
        #expect(FileManager.default.fileExists(atPath: box.folder.path + "/file:" + elsewhere))
    }

    @Test func aNonUTF8DbNamesExactlyThoseBytes() {
        let box = Sandbox()
        let name = "$(printf 'caf\\351/d\\377.sqlite')"
        let created = box.run([], input: lines(answers), via: inSandbox(box, "\"$0\" --db \"\(name)\" && test -f \"\(name)\" && echo exact >&2"))
        #expect(created.status == 0)
        #expect(created.stderr.contains("exact"))
        let listed = box.run([], via: inSandbox(box, "\"$0\" list --json --db=\"\(name)\""))
        #expect(listed.stdout.contains("alice@example.com"))
        let fromEnvironment = box.run([], via: inSandbox(box, "SIGNUP_DB=\"\(name)\" \"$0\" list --json"))
        #expect(fromEnvironment.stdout.contains("alice@example.com"))
    }

    @Test func aRelativeSignupDBIsTakenFromTheCurrentFolder() {
        let box = Sandbox()
        #expect(box.run([], input: lines(answers), via: inSandbox(box, "SIGNUP_DB=rel.sqlite exec \"$0\"")).status == 0)
        #expect(FileManager.default.fileExists(atPath: box.folder.path + "/rel.sqlite"))
        #expect(box.run(["list"], via: inSandbox(box, "SIGNUP_DB=rel.sqlite exec \"$0\" \"$@\"")).stdout.contains("alice@example.com"))
    }

    @Test func aPathInAMessageHasItsControlCharactersMadeVisible() {
        let box = Sandbox()
        let blocker = box.file("f\u{1B}]0;PWNED\u{7}", lines("a file, not a folder"))
        let run = box.run(["--db", blocker + "/accounts.sqlite", "--json"], input: lines(answers))
        #expect(run.status == 74)
        #expect(run.stderr.contains("f^[]0;PWNED^G is not a folder"))
        #expect(!run.stderrBytes.contains(0x1B) && !run.stdoutBytes.contains(0x1B))
        let list = box.run(["list", "--db", blocker + "/accounts.sqlite"])
        #expect(list.status == 74)
        #expect(list.stderr.contains("f^[]0;PWNED^G is not a folder"))
        let fifo = box.folder.path + "/p\u{1B}[2J.sqlite"
        #expect(mkfifo(fifo, 0o600) == 0)
        let listed = box.run(["list", "--db", fifo])
        #expect(listed.status == 74)
        #expect(listed.stderr.contains("p^[[2J.sqlite: it is a named pipe"))
    }

    @Test func anEmptyDbIsAUsageError() {
        let box = Sandbox()
        let run = box.run(["--db", ""], input: lines(answers))
        #expect(run.status == 64)
        #expect(run.stderr.contains("empty"))
    }

    @Test func listStreamsAFixedLayoutWithVisibleControlCharacters() throws {
        let box = Sandbox()
        box.run(["--db", box.db], input: lines(answers))
        sqlite(box.db, """
            INSERT INTO account (email, email_key, password_hash, created_at)
                VALUES ('evil' || char(27) || ']0;PWNED' || char(7) || char(155) || '@example.com', 'evil', 'x', '2026-01-01T00:00:00Z');
            INSERT INTO account (email, email_key, password_hash, created_at)
                VALUES ('shown' || char(0) || 'hidden@example.com', 'nul', 'x', '2026-01-02T00:00:00Z');
            """)
        let human = box.run(["list", "--db", box.db])
        #expect(human.status == 0)
        let rows = human.stdout.split(separator: "\n").map(String.init)
        #expect(rows.first == "ID       CREATED               STATE     EMAIL")
        #expect(rows.count == 4)
        #expect(rows[1].hasPrefix("1        20") && rows[1].hasSuffix("  alice@example.com"))
        #expect(rows[2] == "2        2026-01-01T00:00:00Z  active    evil^[]0;PWNED^G<U+009B>@example.com")
        #expect(rows[3] == "3        2026-01-02T00:00:00Z  active    shown^@hidden@example.com", "a NUL does not end the email")
        #expect(!human.stdoutBytes.contains(0x1B) && !human.stdoutBytes.contains(0x07) && !human.stdoutBytes.contains(0))

        let json = box.run(["list", "--db", box.db, "--json"])
        #expect(!json.stdoutBytes.contains(0x1B) && !json.stdout.unicodeScalars.contains("\u{9B}"))
        #expect(json.stdout.contains("\\u001b]0;PWNED\\u0007\\u009b@example.com"))
        let parsed = (try? JSONSerialization.jsonObject(with: json.stdoutBytes)) as? [[String: Any]]
        #expect(parsed?.dropLast().last?["email"] as? String == "evil\u{1B}]0;PWNED\u{7}\u{9B}@example.com", "JSON keeps the exact text")
        #expect(parsed?.last?["email"] as? String == "shown\u{0}hidden@example.com")
    }

    @Test(arguments: [["list"], ["list", "--json"]])
    func aWriteErrorOnStandardOutputIsExit74(arguments: [String]) {
        let box = Sandbox()
        box.run(["--db", box.db], input: lines(answers))
        let run = box.run(arguments + ["--db", box.db], via: "exec \"$0\" \"$@\" > /dev/full")
        #expect(run.status == 74)
        #expect(run.stderr.contains("cannot write the list to standard output: No space left on device"))
    }

    @Test func aClosedPipeEndsListQuietlyAndAtOnce() {
        let box = Sandbox()
        box.run(["--db", box.db], input: lines(answers))
        sqlite(box.db, """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000)
            INSERT INTO account (email, email_key, password_hash, created_at)
                SELECT 'user' || i || '@example.com', 'user' || i || '@example.com', 'x', '2026-01-01T00:00:00Z' FROM n;
            """)
        for extra in [[], ["--json"]] {
            // The subshell reports signup's own status; head closes the pipe after one line.
            let run = box.run(["list", "--db", box.db] + extra, via: "( \"$0\" \"$@\"; echo \"status $?\" >&2 ) | head -1 > /dev/null")
            // SIGPIPE's status, as for any Unix filter: not 0, and no message.
            #expect(run.stderr == "status 141\n", "\(extra) \(run.stderr.prefix(300)) \(run.stdout.prefix(200))")
        }
    }

    @Test(arguments: [
        "$2y$10$abcdefghijklmnopqrstuu5MgkqFNUkwHnW0cTlROsHHJ1LNw9jG2",
        "not a hash at all",
        "$argon2i$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
        "$argon2id$v=19$m=4194304,t=1000,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
    ])
    func verifyReportsAStoredHashItCannotUse(hash: String) {
        let box = Sandbox()
        box.run(["--db", box.db], input: lines(answers))
        sqlite(box.db, "UPDATE account SET password_hash = '\(hash)';")
        let run = box.run(["verify", "alice@example.com", "--db", box.db], input: lines(goodPassword + "\n"))
        #expect(run.status == 74)
        #expect(run.stderr.contains("the stored password hash for this account cannot be checked"))
        #expect(!run.stderr.contains(hash))
        if hash.hasPrefix("$2y$") { #expect(run.stderr.contains("bcrypt")) }
    }

    /// Read as C text, a real hash followed by a NUL and anything matched the password: the
    /// stored value is not a PHC string, so it cannot be checked.
    @Test func aStoredHashWithANulAndMoreIsNotTheHashBeforeTheNul() {
        let box = Sandbox()
        box.run(["--db", box.db], input: lines(answers))
        sqlite(box.db, "UPDATE account SET password_hash = password_hash || char(0) || 'GARBAGE$$';")
        let run = box.run(["verify", "alice@example.com", "--db", box.db], input: lines(goodPassword + "\n"))
        #expect(run.status == 74, "\(run.stdout) \(run.stderr)")
        #expect(run.stderr.contains("the stored password hash for this account cannot be checked"))
    }

    /// libpq is loaded on first use: when it cannot be, a PostgreSQL database is a storage
    /// failure (74) that says so, not a usage error blaming the connection string; a password in
    /// --db is still refused.
    @Test func aPostgreSQLDatabaseWithoutALoadableLibpqIsAStorageFailure() throws {
        let box = Sandbox()
        let libraries = box.folder.appendingPathComponent("lib")
        try FileManager.default.createDirectory(at: libraries, withIntermediateDirectories: true)
        try Data("not a library".utf8).write(to: libraries.appendingPathComponent("libpq.so.5"))
        let environment = ["LD_LIBRARY_PATH": libraries.path, "SIGNUP_DB": "postgresql://alice:S3cretPW@127.0.0.1:1/db"]
        for arguments in [["list"], ["verify", "a@example.com"]] {
            let run = box.run(arguments, input: lines("x\n"), environment: environment)
            #expect(run.status == 74, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("PostgreSQL cannot be used here: libpq cannot be loaded"), "\(run.stderr)")
            #expect(!run.stderr.contains("S3cretPW") && !run.stderr.contains("Usage"))
        }
        let argv = box.run(["list", "--db", "postgresql://alice:S3cretPW@127.0.0.1:1/db"], environment: ["LD_LIBRARY_PATH": libraries.path])
        #expect(argv.status == 64 && argv.stderr.contains("--db holds a password"), "\(argv.stderr)")
    }

    @Test func listAndVerifyCreateNothing() throws {
        let box = Sandbox()
        let path = box.folder.path + "/new/folder/accounts.sqlite"
        #expect(box.run(["list", "--db", path]).status == 0)
        #expect(box.run(["verify", "alice@example.com", "--db", path], input: lines(goodPassword + "\n")).status == 69)
        #expect(box.run(["--dry-run", "--db", path], input: lines(answers)).status == 0)
        #expect(!FileManager.default.fileExists(atPath: box.folder.path + "/new"))
        box.run(["--db", box.db], input: lines(answers))
        let before = try FileManager.default.contentsOfDirectory(atPath: box.folder.path).sorted()
        #expect(box.run(["list", "--db", box.db]).status == 0)
        #expect(box.run(["verify", "alice@example.com", "--db", box.db], input: lines(goodPassword + "\n")).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: box.folder.path).sorted() == before)
    }

    @Test(.enabled(if: getuid() == 0, "needs root to give a file to nobody"))
    func listAndVerifyRefuseAFilePlantedByAnotherUser() throws {
        let box = Sandbox()
        let shared = box.folder.path + "/shared"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
        chmod(shared, 0o1777)
        // nobody plants a database of its own, with an account of its choosing.
        let planted = shared + "/accounts.sqlite"
        box.run(["--db", box.db], input: lines(answers))
        try FileManager.default.copyItem(atPath: box.db, toPath: planted)
        #expect(chown(planted, 65534, 65534) == 0)
        for arguments in [["list", "--db", planted], ["verify", "alice@example.com", "--db", planted]] {
            let run = box.run(arguments, input: lines(goodPassword + "\n"))
            #expect(run.status == 74, "\(arguments)")
            #expect(run.stderr.contains("belongs to user nobody"), "\(arguments): \(run.stderr)")
        }
    }
}

/// What a database its user cannot use says, run as nobody on nobody's own file: a file it may not
/// read (mode 0200 or 0000, as a mistaken chmod leaves it) was called read-only, or "cannot
/// open" without a reason; a file it may write in a folder it may not was called read-only.
@Suite struct UnusableDatabaseTests {
    /// nobody's own folder with a database holding alice, a copy of the binary nobody can run (the
    /// build folder may be root's alone), and the shell that runs it as nobody.
    static func nobodysDatabase(in box: Sandbox) throws -> (folder: String, db: String, asNobody: String) {
        let folder = box.folder.path + "/nobody"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        #expect(chown(folder, 65534, 65534) == 0 && chmod(folder, 0o700) == 0)
        let binary = box.folder.path + "/signup"
        try FileManager.default.copyItem(atPath: signupBinary, toPath: binary)
        let asNobody = "exec /usr/sbin/runuser -u nobody -- \"\(binary)\" \"$@\""
        let db = folder + "/accounts.sqlite"
        let created = box.run(["--db", db], input: lines(answers), via: asNobody)
        #expect(created.status == 0, "\(created.stderr)")
        return (folder, db, asNobody)
    }

    static func commands(_ db: String) -> [[String]] {
        [["list", "--db", db], ["verify", "alice@example.com", "--db", db], ["--db", db, "--email", "bob@example.com"]]
    }

    @Test(.enabled(if: getuid() == 0, "needs root to run signup as another user"))
    func aDatabaseItsUserMayNotReadIsSaidSoNotReadOnly() throws {
        let box = Sandbox()
        let (_, db, asNobody) = try Self.nobodysDatabase(in: box)
        for mode: mode_t in [0o200, 0o000] {
            #expect(chmod(db, mode) == 0)
            for arguments in Self.commands(db) {
                let run = box.run(arguments, input: lines(goodPassword + "\n" + goodPassword + "\n"), via: asNobody)
                #expect(run.status == 74, "\(arguments): \(run.stderr)")
                #expect(run.stderr.contains("no permission to read the database") && !run.stderr.contains("read-only"),
                        "mode \(String(mode, radix: 8)), \(arguments): \(run.stderr)")
            }
        }
    }

    /// SQLite makes its -wal and -shm files beside the database: a writable file in a folder
    /// that is not can be read, and a write says where the problem is.
    @Test(.enabled(if: getuid() == 0, "needs root to run signup as another user"))
    func aWritableDatabaseInAFolderItsUserCannotWriteNamesTheFolder() throws {
        let box = Sandbox()
        let (folder, db, asNobody) = try Self.nobodysDatabase(in: box)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: db + suffix) }
        #expect(chmod(folder, 0o500) == 0)
        let listed = box.run(["list", "--db", db], via: asNobody)
        #expect(listed.status == 0 && listed.stdout.contains("alice@example.com"), "\(listed.stderr)")
        let refused = box.run(["--db", db, "--email", "bob@example.com"], input: lines(goodPassword + "\n" + goodPassword + "\n"), via: asNobody)
        #expect(refused.status == 74)
        #expect(refused.stderr.contains("is in a folder that cannot be written"), "\(refused.stderr)")
    }
}

@Suite struct StorePreflightTests {
    /// A path that can never be used was said only after every answer had been typed (and, at
    /// a terminal, "Try again?" could only be answered no): now before the first question.
    @Test func aDatabasePathThatCanNeverBeUsedIsRefusedBeforeAnyQuestion() throws {
        let box = Sandbox()
        let shared = box.folder.appendingPathComponent("shared").path
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
        #expect(chmod(shared, 0o1777) == 0)
        let run = box.run(["--db", shared + "/accounts.sqlite", "--json"], input: lines(answers))
        #expect(run.status == 74)
        #expect(!run.stderr.contains("Email:"), "\(run.stderr)")
        #expect(run.stderr.contains("can be written by other users"), "\(run.stderr)")
        #expect(run.json["status"] as? String == "storage_error")
        #expect(!FileManager.default.fileExists(atPath: shared + "/accounts.sqlite"))
    }
}
