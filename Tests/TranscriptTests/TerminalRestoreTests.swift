import Foundation
import Glibc
import Testing
import WizardTesting

/// The terminal mode is back after signup dies by a signal or is cancelled.
///
/// Interactive bash restores the terminal after a job dies, which would hide a signup that
/// leaves `-echo -icanon` behind; so signup runs under `sh` with the signals trapped, and the
/// shell prints signup's status and `stty -a` afterwards.
@Suite struct TerminalRestoreTests {
    /// `--no-interactive` at a terminal with one line too many pasted (`--email` already answered
    /// one field): the line signup never read must not reach the shell after it, where it would
    /// be shown, run as a command and kept in the history.
    @Test func aLineLeftUnreadInAScriptAtATerminalNeverReachesTheShell() throws {
        let scratch = try ScratchFolder()
        let shell = try PseudoTerminal(
            executable: "/bin/bash",  // dash's read has no -t
            arguments: ["-c", "\"$0\" --no-interactive --email m@example.com --db \"$1\"; echo \"status=$?\"; "
                + "if read -t 2 line; then echo \"shell got [$line]\"; else echo 'shell got nothing'; fi",
                        signupBinary, scratch.database],
            environment: PseudoTerminal.environment(["HOME": scratch.path])
        )
        defer { shell.kill(SIGKILL) }
        try shell.expect("Password: ")
        try shell.send("m@example.com\rQuartz-Lantern-58\rQuartz-Lantern-58\r")
        let rest = try shell.readAll()
        #expect(rest.contains("status=65"), "\(rest)")
        #expect(rest.contains("shell got nothing"), "the unread line reached the shell: \(rest)")
        #expect(!shell.text().contains("Quartz-Lantern-58"), "the password was shown")
    }

    enum Way: String, CaseIterable, Sendable {
        case ctrlCUntouched, sigtermAtPassword, sighupAtPassword
    }

    @Test(arguments: Way.allCases)
    func theTerminalIsRestored(after way: Way) throws {
        let scratch = try ScratchFolder()
        let script = #"trap : INT TERM HUP; "$SIGNUP_BIN" --db "$DB"; echo "status=$?"; stty -a; echo "end-of-stty""#
        let terminal = try PseudoTerminal(
            executable: "/bin/sh", arguments: ["-c", script],
            environment: PseudoTerminal.environment(["SIGNUP_BIN": signupBinary, "DB": scratch.database, "HOME": scratch.path])
        )
        try terminal.expect("Email: ", timeout: 10)
        let expectedStatus: Int
        switch way {
        case .ctrlCUntouched:
            try terminal.send("\u{03}")  // SIGINT from the terminal, to the whole foreground group
            expectedStatus = 130
        case .sigtermAtPassword, .sighupAtPassword:
            try terminal.send("alice@example.com\r")
            try terminal.expect("Password: ", timeout: 10)
            try terminal.send("Quartz-Lan")  // half a password: echo is off now
            usleep(100_000)
            let signup = try Self.child(of: terminal.pid)
            let signal = way == .sigtermAtPassword ? SIGTERM : SIGHUP
            Glibc.kill(signup, signal)
            expectedStatus = 128 + Int(signal)
        }
        try terminal.expect("end-of-stty", timeout: 10)
        try terminal.readAll(timeout: 10)
        let output = terminal.text(normalizingLineEndings: true)
        #expect(output.contains("status=\(expectedStatus)\n"), "\(way): \(output)")
        let flags = Set(output.split(whereSeparator: { " ;\n".contains($0) }).map(String.init))
        #expect(flags.contains("echo") && !flags.contains("-echo"), "\(way): echo is not back:\n\(output)")
        #expect(flags.contains("icanon") && !flags.contains("-icanon"), "\(way): icanon is not back:\n\(output)")
        #expect(flags.contains("isig") && !flags.contains("-isig"), "\(way): isig is not back:\n\(output)")
        #expect(!terminal.transcript.containsBytes("Quartz-Lan".utf8), "\(way): the half-typed password was echoed")
    }

    /// A hang-up while a question waits (the terminal closed, an SSH connection dropped) ends
    /// signup by SIGHUP, every time. The kernel wakes the read before it sends the signal; when
    /// the read's end came first, it was taken for the end of the input, and a public session
    /// was logged "cancelled" and exited 130.
    @Test func aHangUpAtAQuestionEndsSignupBySIGHUPEveryTime() throws {
        for round in 0..<10 {
            let scratch = try ScratchFolder()
            let terminal = try PseudoTerminal(executable: signupBinary, arguments: ["--db", scratch.database],
                                              environment: PseudoTerminal.environment(["HOME": scratch.path]))
            try terminal.expect("Email: ", timeout: 10)
            if round % 2 == 1 { try terminal.send("alice@exa") }  // half an answer on the line
            terminal.hangUp()
            #expect(try terminal.wait(timeout: 10) == .signaled(SIGHUP), "round \(round)")
        }
    }

    /// The pid of the one child of `parent`, found in /proc once it has started.
    static func child(of parent: pid_t) throws -> pid_t {
        for _ in 0..<100 {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            for name in names {
                guard let pid = pid_t(name),
                      let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                      let close = stat.lastIndex(of: ")") else { continue }
                // pid (comm) state ppid ...: the command may hold spaces, so split after ")".
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                if fields.count > 1, pid_t(fields[1]) == parent { return pid }
            }
            usleep(20_000)
        }
        throw PseudoTerminal.Failure(message: "no child of \(parent) appeared")
    }
}
