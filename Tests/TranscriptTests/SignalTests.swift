import Foundation
import Glibc
import Testing
import WizardTesting

/// Every signal that ends the process, a crash, the core limit, SIGINT in a script and while
/// the store waits: the terminal comes back, the line is ended, the result tells the truth.
@Suite struct SignalTests {
    /// Runs signup under `sh` with traps (so the shell repairs nothing), then `stty -a`.
    static func underShell(_ arguments: String, scratch: ScratchFolder, environment: [String: String?] = [:]) throws -> PseudoTerminal {
        var overrides = environment
        overrides["HOME"] = .some(scratch.path)
        overrides["SIGNUP_BIN"] = .some(signupBinary)
        overrides["DB"] = .some(scratch.database)
        let script = #"trap : INT TERM HUP QUIT; "$SIGNUP_BIN" --db "$DB" "# + arguments + #"; echo "status=$?"; stty -a; echo "end-of-stty""#
        return try PseudoTerminal(executable: "/bin/sh", arguments: ["-c", script], environment: PseudoTerminal.environment(overrides))
    }

    /// Checks the shell's report: the status, the line ended before it, echo and icanon back.
    static func expectRestored(_ shell: PseudoTerminal, status: Int32, _ label: String) throws {
        try shell.expect("end-of-stty", timeout: 15)
        try shell.readAll(timeout: 10)
        let output = shell.text(normalizingLineEndings: true)
        #expect(output.contains("\nstatus=\(status)\n"), "\(label): the status, on a line of its own: \(output)")
        let flags = Set(output.split(whereSeparator: { " ;\n".contains($0) }).map(String.init))
        #expect(flags.contains("echo") && !flags.contains("-echo"), "\(label): echo is not back:\n\(output)")
        #expect(flags.contains("icanon") && !flags.contains("-icanon"), "\(label): icanon is not back:\n\(output)")
        #expect(flags.contains("icrnl") && !flags.contains("inlcr"), "\(label): CR/LF translation is not back:\n\(output)")
    }

    static let fatalSignals: [Int32] = [SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, 16 /* STKFLT */,
                                         30 /* PWR */, SIGSYS, 34 /* RTMIN */, 40, 64 /* RTMAX */]

    @Test(arguments: fatalSignals)
    func everyFatalSignalAtThePasswordPromptRestoresTheTerminal(_ signal: Int32) throws {
        let scratch = try ScratchFolder()
        let shell = try Self.underShell("", scratch: scratch)
        defer { shell.kill(SIGKILL) }
        try shell.expect("Email: ", timeout: 10)
        try shell.send("zed@example.com\r")
        try shell.expect("Password: ", timeout: 10)
        try shell.send("Quartz-Lan")
        usleep(100_000)
        Glibc.kill(try TerminalRestoreTests.child(of: shell.pid), signal)
        try Self.expectRestored(shell, status: 128 + signal, "signal \(signal)")
        #expect(!shell.transcript.containsBytes("Quartz-Lan".utf8), "signal \(signal): the half-typed password was echoed")
    }

    @Test func theCoreLimitIsZeroWhileAPromptWaits() throws {
        let scratch = try ScratchFolder()
        let terminal = try PseudoTerminal(executable: signupBinary, arguments: ["--db", scratch.database],
                                          environment: PseudoTerminal.environment(["HOME": scratch.path]))
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        let limits = try String(contentsOfFile: "/proc/\(terminal.pid)/limits", encoding: .utf8)
        let core = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") }.map(String.init) ?? ""
        let numbers = core.split(separator: " ").filter { $0.allSatisfy(\.isNumber) }
        #expect(numbers == ["0", "0"], "core limit: \(core)")
    }

    /// Without SWIFT_BACKTRACE, a crash (SIGSEGV sent) or Ctrl-\ (SIGQUIT from the terminal, which a
    /// debug build's runtime gave to Swift's crash reporter) ends at once with the terminal restored:
    /// no "Press space to interact", no 30 s hold with echo off.
    @Test(arguments: [(SIGSEGV, false), (SIGQUIT, true)])
    func aCrashOrCtrlBackslashOffersNoDebuggerAndRestoresTheTerminal(signal: Int32, fromTheKeyboard: Bool) throws {
        let scratch = try ScratchFolder()
        let shell = try Self.underShell("", scratch: scratch, environment: ["SWIFT_BACKTRACE": String?.none])
        defer { shell.kill(SIGKILL) }
        try shell.expect("Email: ", timeout: 10)
        try shell.send("zed@example.com\r")
        try shell.expect("Password: ", timeout: 10)
        if fromTheKeyboard {
            try shell.send("Quartz-La\u{1C}")
        } else {
            Glibc.kill(try TerminalRestoreTests.child(of: shell.pid), signal)
        }
        try shell.expect("status=\(128 + signal)", timeout: 8)  // the interactive backtracer waits 30 s
        try Self.expectRestored(shell, status: 128 + signal, "signal \(signal)")
        #expect(!shell.text().contains("Press space"), "signal \(signal) offered a debugger: \(shell.text())")
        #expect(!shell.text().contains("Quartz-La"), "the password typed so far was shown")
    }

    @Test func sigintInAScriptSaysCancelledAndNothingWasSaved() throws {
        let scratch = try ScratchFolder()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: signupBinary)
        process.arguments = ["--db", scratch.database, "--json"]
        process.environment = ["HOME": scratch.path, "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin", "SWIFT_BACKTRACE": "enable=no", "SIGNUP_CONFIG": "/dev/null"]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        try input.fileHandleForWriting.write(contentsOf: Data("alice@example.com\n".utf8))  // then nothing: it waits
        var said = Data()
        while !String(decoding: said, as: UTF8.self).contains("Password: ") {
            let chunk = errors.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            said += chunk
        }
        process.interrupt()
        let result = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        said += errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        #expect(result == "{\"status\":\"cancelled\"}\n", "standard output: \(result.debugDescription)")
        #expect(String(decoding: said, as: UTF8.self).contains("Password: \nNothing was saved.\n"), "\(String(decoding: said, as: UTF8.self))")
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGINT)
        #expect(try scratch.storedEmails().isEmpty)
    }

    @Test func aResultThatCannotBeWrittenIsReportedWithItsOwnExitCode() throws {
        let scratch = try ScratchFolder()
        let shell = try PseudoTerminal(
            executable: "/bin/sh",
            arguments: ["-c", #""$0" --db "$1" --json > /dev/full; echo "status=$?""#, signupBinary, scratch.database],
            environment: PseudoTerminal.environment(["HOME": scratch.path]))
        defer { shell.kill(SIGKILL) }
        try shell.expect("Email: ", timeout: 10)
        try shell.send("alice@example.com\r")
        try shell.expect("Password: ", timeout: 10)
        try shell.send("Quartz-Lantern-58\r")
        try shell.expect("Confirm password: ", timeout: 10)
        try shell.send("Quartz-Lantern-58\r")
        try shell.expect("[Y/n/e] ", timeout: 10)
        try shell.send("\r")
        try shell.expect("status=", timeout: 10)
        try shell.readAll(timeout: 10)
        let screen = Screen.render(shell.transcript)
        #expect(screen.contains("Account created for alice@example.com"), "\(screen)")
        #expect(screen.contains("could not be written to standard output: No space left on device"), "\(screen)")
        #expect(screen.contains("status=74"), "\(screen)")
        #expect(try scratch.storedEmails() == ["alice@example.com"])
    }

    /// Another writer holds the lock past the store's timeout; Ctrl-C while waiting: nothing is
    /// stored, "Nothing was saved.", JSON cancelled; keys typed meanwhile are not echoed.
    @Test func ctrlCWhileWaitingForTheLockCancels() throws {
        let scratch = try ScratchFolder()
        try scratch.createAccount(email: "first@example.com")
        let locker = Process()
        locker.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        // The other writer holds the lock until a flag file appears: right after the Ctrl-C, as in
        // the issue's reproduction (the account used to be created once the lock was free).
        let release = scratch.path + "/release-lock"
        locker.arguments = ["-c", "import os,sqlite3,sys,time; c=sqlite3.connect(sys.argv[1], isolation_level=None); c.execute('BEGIN IMMEDIATE'); print('locked', flush=True)\nwhile not os.path.exists(sys.argv[2]): time.sleep(0.02)", scratch.database, release]
        let lockerOutput = Pipe()
        locker.standardOutput = lockerOutput
        try locker.run()
        defer { locker.terminate() }
        _ = lockerOutput.fileHandleForReading.availableData  // "locked"

        let terminal = try PseudoTerminal(executable: signupBinary, arguments: ["--db", scratch.database, "--json"],
                                          environment: PseudoTerminal.environment(["HOME": scratch.path]), pipeStandardOutput: true)
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        try terminal.send("alice@example.com\r")
        try terminal.expect("Password: ", timeout: 10)
        try terminal.send("Quartz-Lantern-58\r")
        try terminal.expect("Confirm password: ", timeout: 10)
        try terminal.send("Quartz-Lantern-58\r")
        try terminal.expect("[Y/n/e] ", timeout: 10)
        try terminal.send("\r")
        try terminal.expect("Waiting for the database", timeout: 10)
        try terminal.send("Typed-While-Waiting")
        try terminal.send("\u{03}")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(FileManager.default.createFile(atPath: release, contents: Data()))
        let end = try terminal.wait(timeout: 15)
        #expect(end == .signaled(SIGINT))
        #expect(terminal.text().contains("Nothing was saved."), "\(terminal.text())")
        #expect(!terminal.text().contains("Typed-While-Waiting"), "keys typed while waiting were echoed")
        #expect(String(decoding: terminal.standardOutput, as: UTF8.self) == "{\"status\":\"cancelled\"}\n")
        locker.terminate()
        locker.waitUntilExit()
        #expect(try scratch.storedEmails() == ["first@example.com"])
    }

    @Test func helpForAnUnknownWordIsAUsageErrorThatDoesNotQuoteIt() throws {
        let run = try runProcess(signupBinary, ["help", "Secret-Word-58"], environment: ["PATH": "/usr/bin:/bin", "SWIFT_BACKTRACE": "enable=no", "SIGNUP_CONFIG": "/dev/null"])
        #expect(run.status == 64)
        #expect(!run.output.contains("Secret-Word-58"), "\(run.output)")
    }
}
