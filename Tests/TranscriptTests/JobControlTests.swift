import Foundation
import Glibc
import Testing
import WizardTesting

/// Ctrl-Z and `fg`, and a crash at a prompt: the two ways out that need a shell around signup.
@Suite struct JobControlTests {
    /// The pid of the one child of `parent`, once it has started.
    private static func child(of parent: pid_t) throws -> pid_t {
        for _ in 0..<200 {
            let text = (try? String(contentsOfFile: "/proc/\(parent)/task/\(parent)/children", encoding: .utf8)) ?? ""
            if let pid = text.split(separator: " ").first.flatMap({ pid_t($0) }) { return pid }
            usleep(20_000)
        }
        throw PseudoTerminal.Failure(message: "no child of \(parent) appeared")
    }

    @Test func ctrlZThenFgKeepsThePasswordPromptMaskedAndTheKeysTyped() throws {
        let scratch = try ScratchFolder()
        let db = scratch.database
        // A job-control shell puts signup in a process group of its own, which the terminal's
        // Ctrl-Z really stops (an orphaned group would ignore it).
        let shell = try PseudoTerminal(
            executable: "/bin/bash", arguments: ["--norc", "--noprofile", "-i"],
            environment: PseudoTerminal.environment(["PS1": "$ ", "HOME": scratch.path])
        )
        defer { shell.kill(SIGKILL) }
        try shell.expect("$ ")
        try shell.send("'\(signupBinary)' --db '\(db)'\r")
        try shell.expect("Email: ")
        try shell.send("zed@example.com\r")
        try shell.expect("Password: ")
        try shell.send("Quartz-")
        usleep(200_000)
        try shell.stopAndContinue(redrawing: "Password: ")
        try shell.send("Lantern-58\r")
        try shell.expect("Confirm password: ")
        try shell.send("Quartz-Lantern-58\r")
        try shell.expect("[Y/n/e] ")
        try shell.send("\r")
        try shell.expect("Account created for zed@example.com")
        try shell.expect("$ ")
        try shell.send("echo \"status=$?\"\r")  // fg's status is the job's
        try shell.expect("status=0")
        let raw = shell.text()
        #expect(!raw.contains("Quartz-"), "the first half of the password was echoed")
        #expect(!raw.contains("Lantern-58"), "the second half of the password was echoed after fg")

        #expect(try scratch.verify(email: "zed@example.com", password: "Quartz-Lantern-58"), "the keys typed before and after the stop make the password")
    }

    @Test(arguments: [SIGSEGV, SIGQUIT])
    func aCrashOrQuitAtThePasswordPromptRestoresTheTerminal(signal: Int32) throws {
        let scratch = try ScratchFolder()
        let db = scratch.database
        // sh without job control and with traps: it does not repair the terminal, as interactive bash would.
        let shell = try PseudoTerminal(
            executable: "/bin/sh",
            arguments: ["-c", "trap : INT TERM HUP QUIT; \"$0\" --db \"$1\"; echo \"status=$?\"; stty -a", signupBinary, db],
            environment: PseudoTerminal.environment(["HOME": scratch.path])
        )
        defer { shell.kill(SIGKILL) }
        try shell.expect("Email: ")
        try shell.send("zed@example.com\r")
        try shell.expect("Password: ")
        let signup = try Self.child(of: shell.pid)
        Glibc.kill(signup, signal)
        try shell.expect("status=\(128 + signal)")
        let settings = try shell.readAll()
        let words = Set(settings.split(whereSeparator: { $0 == " " || $0 == ";" || $0.isNewline }))
        #expect(words.contains("echo") && !words.contains("-echo"), "echo is off after \(signal): \(settings)")
        #expect(words.contains("icanon") && !words.contains("-icanon"), "icanon is off after \(signal): \(settings)")
        #expect(!FileManager.default.fileExists(atPath: db), "nothing was stored")
    }
}
