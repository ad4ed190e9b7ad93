import Glibc
import Testing
import WizardTesting

/// Keys typed during a secret prompt never answer, nor show at, whatever visible comes next. An
/// outside attack pressed Ctrl-C in the middle of a password and typed the rest: it was echoed at
/// `Discard your answers? [y/N] tern-58`, and its Enter answered the question.
@Suite struct KeysAfterASecretTests {
    static let password = "Violet-Lantern-Qx7-zq"
    /// Where Ctrl-C falls: `Violet-Lantern-` before it, `Qx7-zq` and Enter after it.
    static let typedBefore = "Violet-Lantern-", typedAfter = "Qx7-zq"
    /// A person or a slow auto-type: 30 to 200 ms between keys.
    static let gapsMilliseconds = [30, 200, 120, 60, 170, 90, 200, 30]

    /// Whether any piece of the password's rest (three characters or more) is in the raw output.
    static func showsTheRest(_ terminal: PseudoTerminal) -> Bool {
        let rest = Array(typedAfter.utf8)
        return (0..<rest.count - 2).contains { start in terminal.transcript.containsBytes(rest[start..<(start + 3)]) }
    }

    /// Ctrl-C in the middle of a password, the rest typed key by key with its Enter: the discard
    /// question shows none of it and is answered only by the key typed after it appeared; the
    /// sign-up then goes on, and the password stored is the one typed whole afterwards.
    @Test(arguments: [false, true], [false, true])
    func aPasswordFinishedAfterCtrlCNeverShowsAtTheDiscardQuestion(noColor: Bool, isPublic: Bool) throws {
        let scratch = try ScratchFolder()
        let terminal = try PseudoTerminal(
            executable: signupBinary, arguments: (isPublic ? ["--public", "--no-prove-address"] : []) + ["--db", scratch.database],
            environment: PseudoTerminal.environment(["HOME": scratch.path, "NO_COLOR": noColor ? "1" : nil]))
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        try terminal.send("carol@example.com\r")
        try terminal.expect("Password: ", timeout: 10)
        try terminal.type(Self.typedBefore, gapsMilliseconds: Self.gapsMilliseconds)
        usleep(100_000)
        try terminal.send("\u{03}")
        usleep(60_000)
        try terminal.type(Self.typedAfter + "\r", gapsMilliseconds: Self.gapsMilliseconds)
        try terminal.expect("Discard your answers? [y/N] ", timeout: 10)
        terminal.settle(quiet: 0.8)
        let screen = Screen.render(terminal.transcript)
        #expect(screen.split(separator: "\n").last == "Discard your answers? [y/N]",
                "the question was answered or written on by the password's rest: \(screen)")
        #expect(!Self.showsTheRest(terminal), "the password's rest was shown: \(terminal.text())")
        try terminal.send("n\r")
        for (prompt, answer) in [("Password: ", Self.password), ("Confirm password: ", Self.password), ("[Y/n/e] ", "y")] {
            try terminal.expect(prompt, timeout: 10)
            try terminal.send(answer + "\r")
        }
        #expect(try terminal.wait(timeout: 20) == .exited(0), "\(terminal.text())")
        #expect(!Self.showsTheRest(terminal) && !terminal.transcript.containsBytes("Violet".utf8), "\(terminal.text())")
        if isPublic {  // a stranger's account waits for an administrator: enabled here to check its hash
            _ = try runProcess(signupBinary, ["enable", "carol@example.com", "--db", scratch.database],
                               environment: ["HOME": scratch.path, "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin", "SWIFT_BACKTRACE": "enable=no", "SIGNUP_CONFIG": "/dev/null"])
        }
        #expect(try scratch.verify(email: "carol@example.com", password: Self.password))
    }

    /// The same at the confirmation, answered `y`: nothing saved, and nothing of the rest shown.
    @Test func aConfirmationFinishedAfterCtrlCNeverAnswersTheDiscardQuestion() throws {
        let scratch = try ScratchFolder()
        let terminal = try PseudoTerminal(
            executable: signupBinary, arguments: ["--db", scratch.database],
            environment: PseudoTerminal.environment(["HOME": scratch.path]))
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        try terminal.send("carol@example.com\r")
        try terminal.expect("Password: ", timeout: 10)
        try terminal.send(Self.password + "\r")
        try terminal.expect("Confirm password: ", timeout: 10)
        try terminal.type(Self.typedBefore, gapsMilliseconds: Self.gapsMilliseconds)
        try terminal.send("\u{03}")
        // "y⏎" inside the rest: typed before the question appeared, it must not answer it.
        try terminal.type("y\r" + Self.typedAfter + "\r", gapsMilliseconds: Self.gapsMilliseconds)
        try terminal.expect("Discard your answers? [y/N] ", timeout: 10)
        terminal.settle(quiet: 0.8)
        #expect(Screen.render(terminal.transcript).split(separator: "\n").last == "Discard your answers? [y/N]", "\(terminal.text())")
        try terminal.send("y\r")
        try terminal.expect("Nothing was saved.", timeout: 10)
        #expect(try terminal.wait(timeout: 10) == .exited(130))
        #expect(!Self.showsTheRest(terminal), "\(terminal.text())")
        #expect(try scratch.storedEmails().isEmpty)
    }

    /// Ctrl-C in a password with nothing answered yet ends signup at once; the rest typed after it
    /// must not reach the shell that reads the terminal next (it would echo it, and run it).
    @Test func aPasswordFinishedAfterCtrlCThatEndsSignupNeverReachesTheShell() throws {
        let scratch = try ScratchFolder()
        let terminal = try PseudoTerminal(
            executable: "/bin/sh",
            arguments: ["-c", "trap : INT; \"$0\" --email carol@example.com --db \"$1\"; echo \"status=$?\"; read -r line; echo \"shell read: [$line]\"",
                        signupBinary, scratch.database],
            environment: PseudoTerminal.environment(["HOME": scratch.path]))
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Password: ", timeout: 10)
        try terminal.type(Self.typedBefore, gapsMilliseconds: Self.gapsMilliseconds)
        try terminal.send("\u{03}")
        try terminal.type(Self.typedAfter + "\r", gapsMilliseconds: Self.gapsMilliseconds)
        try terminal.expect("status=130", timeout: 10)
        terminal.settle(quiet: 0.5)
        if !terminal.text().contains("shell read: [") { try terminal.send("next\r") }
        try terminal.expect("shell read: [", timeout: 10)
        try terminal.expect("]", timeout: 10)
        _ = try terminal.wait(timeout: 10)
        #expect(terminal.text().contains("shell read: [next]"), "the shell read the password's rest: \(terminal.text())")
        #expect(!Self.showsTheRest(terminal), "\(terminal.text())")
    }
}
