import Foundation
import Testing

/// Running an import again never repeats its work: rows already stored are looked up before any
/// hashing and reported in one line.
@Suite struct ImportResumeTests {
    typealias Store = AccountLifeCommandTests.Store

    /// Argon2 at 256 MiB a hash: a run that hashes even one row peaks above it.
    static let costlyPolicy = #"{"base": "standard", "argon2": {"memoryKiB": 262144, "iterations": 1, "parallelism": 1}}"#

    /// Every stored hash, in id order, read by another program.
    static func hashes(_ fixture: AccountLifeCommandTests.Fixture) -> [String] {
        if let pg = fixture.pg { return pg.psql("SELECT password_hash FROM account ORDER BY id") }
        let script = "import sqlite3, sys; [print(r[0]) for r in sqlite3.connect(sys.argv[1]).execute('SELECT password_hash FROM account ORDER BY id')]"
        return tool(["python3", "-c", script, fixture.database]).stdout.split(separator: "\n").map(String.init)
    }

    /// Runs `signup arguments --db …` under GNU time; returns the run and its peak resident memory in KiB.
    static func measured(_ fixture: AccountLifeCommandTests.Fixture, _ arguments: [String]) -> (Run, peakKiB: Int) {
        let run = fixture.sandbox.run(arguments + ["--db", fixture.database], via: #"exec /usr/bin/time -f "peak %M" "$0" "$@""#)
        let peak = run.stderr.split(separator: "\n").last { $0.hasPrefix("peak ") }.flatMap { Int($0.dropFirst(5)) } ?? -1
        return (run, peak)
    }

    /// A second run of 1,000 stored rows hashed every one again (8 s to create nothing).
    @Test(arguments: Store.available)
    func aSecondRunHashesNoRowItFindsStored(store: Store) {
        let fixture = AccountLifeCommandTests.Fixture(store)
        let rows = ImportCountingTests.rows(40)
        let file = fixture.sandbox.file("rows.csv", Data((rows.joined(separator: "\n") + "\n").utf8))
        #expect(fixture.run(["import", file, "--policy-file", fixture.sandbox.cheapPolicy]).status == 0)
        let before = Self.hashes(fixture)
        let costly = fixture.sandbox.file("costly.json", Data(Self.costlyPolicy.utf8))
        for update in [[], ["--update"]] {
            let (again, peak) = Self.measured(fixture, ["import", file, "--policy-file", costly, "--json"] + update)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.json["taken"] as? Int == 40 && again.json["created"] as? Int == 0 && again.json["updated"] as? Int == 0, "\(again.stdout)")
            #expect(peak > 0 && peak < 128 * 1024, "\(update): peak \(peak) KiB: a 256 MiB Argon2 hash ran")
            // One line for all of them, none a row.
            let reports = again.stderr.split(separator: "\n").filter { !$0.hasPrefix("peak ") }
            #expect(reports == ["Already there, not changed: 40 (lines 2-41)"], "\(again.stderr)")
            #expect(Self.hashes(fixture) == before, "\(update): a stored hash was written again")
        }
        // With --update a row whose password is new is still changed, and only that one.
        var changed = rows
        changed[7] = "user6@example.com,New-Harbor-Tulip-6"
        let update = fixture.run(["import", fixture.sandbox.file("changed.csv", Data((changed.joined(separator: "\n") + "\n").utf8)),
                                  "--policy-file", fixture.sandbox.cheapPolicy, "--update", "--json"], secrets: ["New-Harbor-Tulip-6"])
        #expect(update.json["updated"] as? Int == 1 && update.json["taken"] as? Int == 39, "\(update.stdout)")
        #expect(update.stderr == "Already there, not changed: 39 (lines 2-7, 9-41)\n")
        let after = Self.hashes(fixture)
        #expect(after.indices.filter { after[$0] != before[$0] } == [7], "only user6 (id 8, after alice) has a new hash")
        #expect(fixture.verify("user6@example.com", "New-Harbor-Tulip-6") == 0)
    }

    /// How many accounts the store holds, read by another program.
    static func count(_ fixture: AccountLifeCommandTests.Fixture) -> Int {
        if let pg = fixture.pg { return pg.rows }
        let script = "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM account').fetchone()[0])"
        return Int(tool(["python3", "-c", script, fixture.database]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Starts `signup arguments`, sends it `sig` once `ready` says so (checked every 100 ms, for at
    /// most two minutes), and returns what it did; its status is 128 + the signal when one ended it.
    static func run(_ arguments: [String], in box: Sandbox, input: Data? = nil, signal sig: Int32, when ready: () -> Bool) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: signupBinary)
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": box.folder.path, "LANG": "C.UTF-8", "TERM": "dumb", "SWIFT_BACKTRACE": "enable=no", "SIGNUP_CONFIG": "/dev/null"]
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        if let input { try stdin.fileHandleForWriting.write(contentsOf: input) }  // and left open: more may come
        let output = AsyncData(stdout.fileHandleForReading), errors = AsyncData(stderr.fileHandleForReading)
        let deadline = Date().addingTimeInterval(120)
        while !ready() && process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        kill(process.processIdentifier, sig)
        let grace = Date().addingTimeInterval(30)
        while process.isRunning && Date() < grace { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning {
            Issue.record("still running 30 s after the signal")
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        try stdin.fileHandleForWriting.close()
        let (out, err) = (output.wait(), errors.wait())
        return Run(status: process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus,
                   stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self), stdoutBytes: out, stderrBytes: err)
    }

    /// The line an interrupted import says to go on from (`--from-line N`).
    static func resumeLine(_ stderr: String) -> Int? {
        stderr.components(separatedBy: "--from-line ").dropFirst().first.flatMap { Int($0.prefix { $0.isNumber }) }
    }

    /// Ctrl-C or SIGTERM in the middle of an import with the real Argon2 costs: a summary of what
    /// is stored and the line to go on from, the exit status of the signal, a whole database, and
    /// a second run from that line that finishes the file with no duplicate.
    @Test(arguments: [(Store.sqlite, SIGINT), (.sqlite, SIGTERM)] + (TestServer.isAvailable ? [(Store.postgres, SIGINT)] : []))
    func aSignalEndsTheImportWithWhatIsStoredAndWhereToGoOn(store: Store, sig: Int32) throws {
        let fixture = AccountLifeCommandTests.Fixture(store)  // alice is there
        let count = 400
        let file = fixture.sandbox.file("rows.csv", Data((ImportCountingTests.rows(count).joined(separator: "\n") + "\n").utf8))
        // Sent once the first batch is committed, while the second is being hashed.
        let stopped = try Self.run(["import", file, "--db", fixture.database], in: fixture.sandbox, signal: sig) { Self.count(fixture) > 1 }
        #expect(stopped.status == 128 + sig, "\(stopped.stderr)")
        let stored = Self.count(fixture) - 1
        #expect(stored > 0 && stored < count && stored % ImportRunBatch.size == 0, "\(stored) rows stored: one batch or more, whole")
        #expect(stopped.stdout == "Interrupted: created \(stored), updated 0, already there 0, rejected 0\n", "\(stopped.stdout)")
        let name = sig == SIGINT ? "SIGINT" : "SIGTERM"
        #expect(stopped.stderr == "Interrupted by \(name); the lines before \(stored + 2) are done: to finish, run the same import again with --from-line \(stored + 2)\n")
        if fixture.pg == nil {
            let check = "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('PRAGMA integrity_check').fetchone()[0])"
            #expect(tool(["python3", "-c", check, fixture.database]).stdout == "ok\n")
        }
        let line = try #require(Self.resumeLine(stopped.stderr))
        let rest = fixture.run(["import", file, "--from-line", "\(line)", "--json"])
        #expect(rest.status == 0, "\(rest.stderr)")
        #expect(rest.json["created"] as? Int == count - stored && rest.json["taken"] as? Int == 0, "\(rest.stdout)")
        let emails = fixture.listed().compactMap { $0["email"] as? String }
        #expect(emails.count == count + 1 && Set(emails).count == count + 1)
    }

    /// An import waiting for more input (a pipe that stays open) ends on Ctrl-C at once, with the
    /// rows it read but did not store named as the place to go on from.
    @Test func aSignalWhileWaitingForInputEndsTheImport() throws {
        let box = Sandbox()
        let rows = "email,password\nfirst@example.com,Harbor-Tulip-1-Kite\nsecond@example.com,short\n"
        let started = Date()
        let stopped = try Self.run(["import", "-", "--db", box.db, "--json"], in: box, input: Data(rows.utf8), signal: SIGINT) {
            Date().timeIntervalSince(started) > 1.5
        }
        #expect(stopped.status == 130, "\(stopped.stderr)")
        #expect(stopped.json["status"] as? String == "interrupted" && stopped.json["resume_line"] as? Int == 2, "\(stopped.stdout)")
        #expect(stopped.json["created"] as? Int == 0 && stopped.json["rejected"] as? Int == 0, "line 3 is after line 2: reported again on going on")
        #expect(stopped.stderr.contains("line 3 second@example.com: password.tooShort"), "\(stopped.stderr)")
        #expect(!FileManager.default.fileExists(atPath: box.db))
    }

    /// Going on from a line reads the lines before it only to know their emails: a row that
    /// repeats one of them is still a duplicate, and nothing before the line is counted or stored.
    @Test func fromLineStartsThereAndStillFindsDuplicatesOfEarlierLines() {
        let box = Sandbox()
        let csv = """
            email,password
            a@example.com,Harbor-Tulip-1-Kite
            weak@example.com,short
            b@example.com,Harbor-Tulip-2-Kite
            A@example.com,Harbor-Tulip-3-Kite
            weak@example.com,Harbor-Tulip-4-Kite

            """
        let run = box.run(["import", box.file("rows.csv", Data(csv.utf8)), "--db", box.db, "--from-line", "4", "--json",
                           "--policy-file", box.cheapPolicy])
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.json["created"] as? Int == 2 && run.json["rejected"] as? Int == 1, "\(run.stdout)")
        #expect(run.stderr == "line 5 A@example.com: email.duplicate (the email of line 2)\n")
        #expect(box.accounts().compactMap { $0["email"] as? String } == ["b@example.com", "weak@example.com"])
        let zero = box.run(["import", box.file("rows.csv", Data(csv.utf8)), "--db", box.db, "--from-line", "0"])
        #expect(zero.status == 64 && zero.stderr.hasPrefix("error: --from-line takes a line number, 1 or more\n"), "\(zero.stderr)")
    }
}

/// The rows a transaction of `signup import` stores.
enum ImportRunBatch {
    static let size = 256
}
