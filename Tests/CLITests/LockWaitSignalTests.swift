import Foundation
import Testing

/// What SIGINT and SIGTERM do while a sign-up waits for another writer's lock (docs/usage.md,
/// *Signals*): signals are held only once signup holds the lock, so during the wait either ends
/// the process at once, by the signal, and the account is not created when the lock comes free.
@Suite struct LockWaitSignalTests {
    /// A sign-up from a script, started and left running; its standard error is read as it comes.
    final class WaitingSignUp: @unchecked Sendable {
        let process = Process()
        private let errors = Pipe(), output = Pipe()
        private let lock = NSLock()
        private var said = Data()
        /// Whether standard error reached its end: all that the process wrote is in `said`.
        private var ended = false

        init(_ arguments: [String], environment extra: [String: String] = [:]) throws {
            process.executableURL = URL(fileURLWithPath: signupBinary)
            process.arguments = arguments
            process.environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TERM": "dumb", "SWIFT_BACKTRACE": "enable=no", "SIGNUP_CONFIG": "/dev/null"]
                .merging(extra) { $1 }
            let input = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            try input.fileHandleForWriting.write(contentsOf: Data(answers.utf8))
            try input.fileHandleForWriting.close()
            Thread { [self] in
                while case let chunk = errors.fileHandleForReading.availableData, !chunk.isEmpty {
                    lock.withLock { said.append(chunk) }
                }
                lock.withLock { ended = true }
            }.start()
        }

        var standardError: String { lock.withLock { String(decoding: said, as: UTF8.self) } }

        /// Sends `sig` once the sign-up says it is waiting, and returns how long it took to end after it.
        func signalWhileWaiting(_ sig: Int32) -> (seconds: Double, output: String) {
            #expect(eventually(20) { standardError.contains("Waiting for the database") }, "\(standardError)")
            let sent = Date()
            kill(process.processIdentifier, sig)
            let output = String(decoding: self.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let seconds = Date().timeIntervalSince(sent)
            // The reading thread may not have taken the last lines yet (a report the signal wrote).
            _ = eventually(10) { lock.withLock { ended } }
            return (seconds, output)
        }

        deinit {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Checks how a sign-up ended after `sig` while it waited: at once, by the signal, nothing stored.
    static func expectEndedBySignal(_ signUp: WaitingSignUp, _ sig: Int32, after: (seconds: Double, output: String),
                                    sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(signUp.process.terminationReason == .uncaughtSignal && signUp.process.terminationStatus == sig,
                "ended with \(signUp.process.terminationStatus): \(signUp.standardError)", sourceLocation: sourceLocation)
        #expect(after.seconds < 2, "it went on waiting \(after.seconds) s after the signal", sourceLocation: sourceLocation)
        if sig == SIGINT {
            #expect(signUp.standardError.hasSuffix("Nothing was saved.\n"), "\(signUp.standardError)", sourceLocation: sourceLocation)
            #expect(after.output == "{\"status\":\"cancelled\"}\n", sourceLocation: sourceLocation)
        } else {
            #expect(after.output.isEmpty && !signUp.standardError.contains("Nothing was saved."), "\(signUp.standardError)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalWhileWaitingForSQLitesLockEndsTheSignUpAndStoresNothing(sig: Int32) throws {
        let box = Sandbox()
        #expect(box.run(["--db", box.db], input: signUp("first@example.com")).status == 0)
        let release = box.folder.appendingPathComponent("release").path
        let locker = Background(["python3", "-c", """
            import os, sqlite3, sys, time
            c = sqlite3.connect(sys.argv[1], isolation_level=None); c.execute('BEGIN IMMEDIATE'); print('locked', flush=True)
            while not os.path.exists(sys.argv[2]): time.sleep(0.02)
            c.execute('COMMIT'); print('released', flush=True); time.sleep(60)
            """, box.db, release])
        #expect(locker.firstLine() == "locked")
        let signUp = try WaitingSignUp(["--db", box.db, "--json"])
        Self.expectEndedBySignal(signUp, sig, after: signUp.signalWhileWaiting(sig))
        #expect(FileManager.default.createFile(atPath: release, contents: nil))
        #expect(locker.firstLine() == "released")
        #expect(box.accounts().compactMap { $0["email"] as? String } == ["first@example.com"])
    }

    @Test(.enabled(if: TestServer.isAvailable, TestServer.skipNote), arguments: [SIGTERM, SIGINT])
    func aSignalWhileWaitingForAPostgreSQLLockEndsTheSignUpAndStoresNothing(sig: Int32) throws {
        let box = Sandbox(), db = TestDatabase()
        #expect(box.run(["--db", db.socket], input: signUp("first@example.com")).status == 0)
        let holder = holdTheAccountTable(of: db)
        let signUp = try WaitingSignUp(["--db", db.socket, "--json"], environment: ["PGOPTIONS": "-c lock_timeout=60s"])
        Self.expectEndedBySignal(signUp, sig, after: signUp.signalWhileWaiting(sig))
        db.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'psql' AND pid <> pg_backend_pid() AND datname = '\(db.name)'")
        #expect(eventually { db.psql("SELECT count(*) FROM pg_stat_activity WHERE datname = '\(db.name)' AND application_name IN ('psql', 'signup') AND pid <> pg_backend_pid()") == ["0"] })
        #expect(db.psql("SELECT email FROM account") == ["first@example.com"])
        _ = holder
    }

    /// Another program holds signup's migration lock, as a signup migrating a large table does: a
    /// sign-up waits for it past `lock_timeout` (which bounds a wait behind a stuck holder), then
    /// stores its account. When 32 sign-ups started on a new database together, the last ones
    /// queued for that lock behind the others, each holding it in turn only to find the work
    /// done, and under load they failed with a lock timeout (exit 74).
    @Test(.enabled(if: TestServer.isAvailable, TestServer.skipNote))
    func aSignUpWaitsForAnotherProgramsMigrationPastItsLockTimeout() throws {
        let db = TestDatabase()
        let holder = holdTheMigrationLock(of: db)
        let signUp = try WaitingSignUp(["--db", db.socket, "--json"], environment: ["PGOPTIONS": "-c lock_timeout=1s"])
        #expect(eventually(20) { signUp.standardError.contains("Waiting for the database") }, "\(signUp.standardError)")
        Thread.sleep(forTimeInterval: 2)
        #expect(signUp.process.isRunning, "it stopped waiting: \(signUp.standardError)")
        holder.send("SELECT pg_advisory_unlock_all();\n")
        signUp.process.waitUntilExit()
        #expect(signUp.process.terminationStatus == 0, "\(signUp.standardError)")
        #expect(db.psql("SELECT email FROM account") == ["alice@example.com"])
    }

    @Test(.enabled(if: TestServer.isAvailable, TestServer.skipNote), arguments: [SIGTERM, SIGINT])
    func aSignalWhileWaitingForAnotherProgramsMigrationEndsTheSignUp(sig: Int32) throws {
        let db = TestDatabase()
        let holder = holdTheMigrationLock(of: db)
        let signUp = try WaitingSignUp(["--db", db.socket, "--json"])
        Self.expectEndedBySignal(signUp, sig, after: signUp.signalWhileWaiting(sig))
        #expect(db.tables.isEmpty, "nothing was migrated behind the holder's back")
        _ = holder
    }

    /// Another program switched the file to a rollback journal and holds its write lock for a
    /// second: a writer waits its turn, as in WAL mode, and then writes. The switch back to WAL
    /// needs a lock SQLite takes without its busy handler, and the writer was refused within a
    /// few tenths of a second (exit 74, "locked by another program").
    @Test(arguments: [["disable", "first@example.com"], []])
    func aWriterWaitsForALockHeldInARollbackJournal(command: [String]) throws {
        let box = Sandbox()
        #expect(box.run(["--db", box.db], input: signUp("first@example.com")).status == 0)
        let locker = Background(["python3", "-c", """
            import sqlite3, sys, time
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute('PRAGMA journal_mode=DELETE'); c.execute('BEGIN IMMEDIATE'); print('locked', flush=True)
            time.sleep(1.0); c.execute('COMMIT'); print('released', flush=True); time.sleep(60)
            """, box.db])
        #expect(locker.firstLine() == "locked")
        let run = box.run(command + ["--db", box.db], input: command.isEmpty ? signUp("second@example.com") : nil)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(locker.firstLine() == "released")
        let accounts = box.accounts()
        #expect(accounts.compactMap { $0["email"] as? String } == (command.isEmpty ? ["first@example.com", "second@example.com"] : ["first@example.com"]))
        if !command.isEmpty { #expect(accounts.first?["state"] as? String == "disabled") }
    }
}
