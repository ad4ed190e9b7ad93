import Glibc
import Testing
import WizardTesting

/// `signup --public`, a stranger's sign-up: every wait and every count the person controls ends,
/// with one line, exit 75, nothing stored, and the terminal as it was.
@Suite struct PublicSessionTests {
    /// signup under `sh`, which then prints the exit status and the terminal's mode.
    private static func start(_ arguments: String, scratch: ScratchFolder) throws -> PseudoTerminal {
        try PseudoTerminal(
            executable: "/bin/sh",
            arguments: ["-c", "\"$0\" --public --no-prove-address --db \"$1\" \(arguments); echo \"status=$?\"; stty -a", signupBinary, scratch.database],
            environment: PseudoTerminal.environment(["HOME": scratch.path]))
    }

    private static func expectEndedWithNothingStored(_ terminal: PseudoTerminal, _ line: String, scratch: ScratchFolder) throws {
        try terminal.expect(line, timeout: 15)
        try terminal.expect("status=75", timeout: 10)
        _ = try terminal.wait(timeout: 10)
        let text = terminal.text()
        #expect(text.contains(" echo ") && text.contains(" icanon "), "the terminal was not put back: \(text)")
        #expect(try scratch.storedEmails().isEmpty)
    }

    @Test func aQuestionLeftUnansweredEndsTheSession() throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.start("--idle-timeout 2", scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        try Self.expectEndedWithNothingStored(terminal, "No answer for 2 s: the session ends. Nothing was saved.", scratch: scratch)
    }

    /// Ctrl-S (XOFF) stops the terminal's output, so the deadline's goodbye could never be
    /// written: an outside attack held sessions past both limits for as long as it liked. The
    /// deadline now ends the process even so.
    @Test func ctrlSCannotHoldTheSessionPastItsDeadline() throws {
        let scratch = try ScratchFolder()
        let terminal = try PseudoTerminal(
            executable: signupBinary, arguments: ["--public", "--idle-timeout", "1", "--db", scratch.database],
            environment: PseudoTerminal.environment(["HOME": scratch.path]))
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        try terminal.send("\u{13}")  // Ctrl-S: the terminal stops taking output
        // An exit with the deadline's status, not death by SIGALRM: a shell around the forced
        // command would print "Alarm clock" to the stopped terminal and hang there itself.
        #expect(try terminal.wait(timeout: 15) == .exited(75))
        #expect(try scratch.storedEmails().isEmpty)
    }

    @Test func theSessionEndsAtItsLimitWhateverIsTyped() throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.start("--idle-timeout 60 --session-limit 3", scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        try terminal.send("slow@example.com\r")
        try terminal.expect("Password: ", timeout: 10)
        try terminal.send("Quartz-Lan")  // still typing when the time is up
        try Self.expectEndedWithNothingStored(terminal, "The session's time is up. Nothing was saved.", scratch: scratch)
        #expect(!terminal.transcript.containsBytes("Quartz".utf8))
    }

    /// The session's limit is never cut short: counted in whole seconds of the clock, an answer
    /// given just after the clock's second whole second since the start left "0 s" of a 2 s
    /// limit, and the session ended at once, about a second early.
    @Test func theSessionNeverEndsBeforeItsLimit() throws {
        func monotonic() -> Double {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
        }
        let scratch = try ScratchFolder()
        let spawned = monotonic()
        let terminal = try PseudoTerminal(
            executable: signupBinary, arguments: ["--public", "--no-prove-address", "--idle-timeout", "60", "--session-limit", "2", "--db", scratch.database],
            environment: PseudoTerminal.environment(["HOME": scratch.path]))
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        // Just after the clock's second whole second since the spawn: between 1 and 2 s in.
        let boundary = (spawned.rounded(.down) + 2).nextUp
        while monotonic() < boundary { usleep(5_000) }
        try terminal.send("slow@example.com\r")
        #expect(try terminal.wait(timeout: 15) == .exited(75))
        let lasted = monotonic() - spawned
        #expect(lasted >= 2, "the session ended after \(lasted) s of its 2 s")
        #expect(terminal.text().contains("The session's time is up. Nothing was saved."))
        #expect(try scratch.storedEmails().isEmpty)
    }

    @Test func aFieldAnsweredTooOftenEndsTheSession() throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.start("", scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        try terminal.send("many@example.com\r")
        for _ in 1...5 {
            try terminal.expect("Password: ", timeout: 10)
            try terminal.send("short\r")
        }
        try Self.expectEndedWithNothingStored(terminal, "Too many attempts at one answer: the session ends. Nothing was saved.", scratch: scratch)
    }

    /// No job control: Ctrl-Z neither stops signup nor returns to a shell; the sign-up goes on.
    @Test func ctrlZDoesNothing() throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.start("", scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        try terminal.send("\u{1A}")
        try terminal.send("calm@example.com\r")
        try terminal.expect("Password: ", timeout: 10)
        try terminal.send("\u{1A}Quartz-Lantern-58\r")
        try terminal.expect("Confirm password: ", timeout: 10)
        try terminal.send("Quartz-Lantern-58\r")
        try terminal.expect("[Y/n/e] ", timeout: 10)
        try terminal.send("y\r")
        try terminal.expect("status=0", timeout: 20)
        #expect(!terminal.text().contains("Stopped"))
        #expect(try scratch.storedEmails() == ["calm@example.com"])
    }

    /// A Ctrl-Z in one burst with an answer (a paste, a fast typist) keeps what came before it:
    /// the session has no suspend key, whose press the terminal would answer by discarding
    /// everything not yet read. The person's terminal has its key back afterwards.
    @Test func ctrlZInABurstKeepsWhatWasTypedBeforeIt() throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.start("", scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        try terminal.send("calm@ex\u{1A}ample.com\r")
        try terminal.expect("Password: ", timeout: 10)
        try terminal.send("Quartz-\u{1A}Lantern-58\r")
        try terminal.expect("Confirm password: ", timeout: 10)
        try terminal.send("Quartz-Lantern-58\r")
        try terminal.expect("[Y/n/e] ", timeout: 10)
        try terminal.send("y\r")
        try terminal.expect("status=0", timeout: 20)
        _ = try terminal.wait(timeout: 10)
        #expect(try scratch.storedEmails() == ["calm@example.com"])
        #expect(terminal.text().contains("susp = ^Z"), "the suspend key was not given back: \(terminal.text())")
    }

    /// Line by line at a terminal (the kernel edits the line), a Ctrl-Z discards nothing either:
    /// it is a character of the line, shown as typed, and an answer holding it is refused like
    /// any control character. Before, the terminal dropped `x` and `calm@example.com` was stored.
    @Test func ctrlZInALineByLineSessionDiscardsNothing() throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.start("--no-interactive", scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        try terminal.send("x\u{1A}calm@example.com\r")
        try terminal.expect("Password: ", timeout: 10)
        try terminal.send("Quartz-Lantern-58\r")
        try terminal.expect("Confirm password: ", timeout: 10)
        try terminal.send("Quartz-Lantern-58\r")
        try terminal.expect("status=65", timeout: 20)
        _ = try terminal.wait(timeout: 10)
        #expect(terminal.text().contains("email: Enter a valid email address"))
        #expect(try scratch.storedEmails().isEmpty)
        #expect(terminal.text().contains("susp = ^Z"), "the suspend key was not given back: \(terminal.text())")
    }
}
