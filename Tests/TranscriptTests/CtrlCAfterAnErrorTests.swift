import Glibc
import Testing
import WizardTesting

/// After an error the prompt comes back once no key has come for 0.4 s. Ctrl-C in that time is
/// Ctrl-C at the prompt: it asks `Discard your answers?` once something was answered, else exits
/// 130, with the terminal restored either way; it used to end signup by SIGINT with no question.
/// Keys typed in that time are dropped, and never answer what comes next.
@Suite struct CtrlCAfterAnErrorTests {
    /// signup under `sh` with SIGINT trapped (so the shell repairs nothing) and perl, whose
    /// `system` waits through Ctrl-C and prints the raw wait status: 33280 is exit 130, 2 death
    /// by SIGINT (a shell's `$?` is 130 for both); then `stty -a`.
    static func underShell(_ scratch: ScratchFolder) throws -> PseudoTerminal {
        let script = #"trap : INT; perl -e 'system @ARGV; print "wait=$?\n"' "$SIGNUP_BIN" --db "$DB"; stty -a; echo "end-of-stty""#
        return try PseudoTerminal(
            executable: "/bin/sh", arguments: ["-c", script],
            environment: PseudoTerminal.environment(["SIGNUP_BIN": signupBinary, "DB": scratch.database, "HOME": scratch.path]))
    }

    /// Reads to the end of `stty -a`; checks that signup exited 130 and that echo, icanon and isig are back.
    static func expectExit130AndRestored(_ shell: PseudoTerminal, _ label: String) throws {
        try shell.expect("end-of-stty", timeout: 15)
        try shell.readAll(timeout: 10)
        let output = shell.text(normalizingLineEndings: true)
        #expect(output.contains("\nwait=33280\n"), "\(label): not exit 130 (wait=2 is death by SIGINT): \(output)")
        let flags = Set(output.split(whereSeparator: { " ;\n".contains($0) }).map(String.init))
        for flag in ["echo", "icanon", "isig", "icrnl"] {
            #expect(flags.contains(flag) && !flags.contains("-" + flag), "\(label): \(flag) is not back:\n\(output)")
        }
    }

    /// The email is refused before anything was answered: Ctrl-C before `Email:` is back exits
    /// 130 at once, with no question.
    @Test(arguments: [20, 100, 250] as [UInt32])
    func ctrlCAfterTheFirstErrorExits130(afterMilliseconds: UInt32) throws {
        let scratch = try ScratchFolder()
        let shell = try Self.underShell(scratch)
        defer { shell.kill(SIGKILL) }
        try shell.expect("Email: ", timeout: 10)
        try shell.send("not-an-email\r")
        try shell.expect("Enter a valid email address", timeout: 10)
        usleep(afterMilliseconds * 1000)
        try shell.send("\u{03}")
        try Self.expectExit130AndRestored(shell, "Ctrl-C \(afterMilliseconds) ms after the error")
        #expect(!shell.text().contains("Discard your answers?"), "\(shell.text())")
        #expect(try scratch.storedEmails().isEmpty)
    }

    /// The confirmation does not match, after the email was answered: Ctrl-C before `Password:`
    /// is back asks the question, and `y` exits 130 with nothing saved.
    @Test(arguments: [20, 100, 250] as [UInt32])
    func ctrlCAfterAnErrorAsksToDiscardTheAnswers(afterMilliseconds: UInt32) throws {
        let scratch = try ScratchFolder()
        let shell = try Self.underShell(scratch)
        defer { shell.kill(SIGKILL) }
        try shell.expect("Email: ", timeout: 10)
        try shell.send("carol@example.com\r")
        try shell.expect("Password: ", timeout: 10)
        try shell.send("Quartz-Lantern-58\r")
        try shell.expect("Confirm password: ", timeout: 10)
        try shell.send("Quartz-Lantern-59\r")
        try shell.expect("Passwords do not match", timeout: 10)
        usleep(afterMilliseconds * 1000)
        try shell.send("\u{03}")
        let before = try shell.expect("Discard your answers? [y/N] ", timeout: 10)
        #expect(!before.contains("Password: "), "the prompt came back before the question: \(shell.text())")
        try shell.send("y\r")
        try shell.expect("Nothing was saved.", timeout: 10)
        try Self.expectExit130AndRestored(shell, "Ctrl-C \(afterMilliseconds) ms after the error")
        #expect(try scratch.storedEmails().isEmpty)
    }

    /// Keys typed after an error, before its prompt is back, are dropped: they neither show nor
    /// answer it, nor the question a Ctrl-C typed after them brings; a key typed once the
    /// prompt is back is kept.
    @Test func keysTypedBeforeThePromptIsBackAreDropped() throws {
        let scratch = try ScratchFolder()
        let terminal = try PseudoTerminal(executable: signupBinary, arguments: ["--db", scratch.database],
                                          environment: PseudoTerminal.environment(["HOME": scratch.path]))
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        try terminal.send("not-an-email\r")
        try terminal.expect("Enter a valid email address", timeout: 10)
        usleep(50_000)
        try terminal.send("typed-early@example.com\r")
        try terminal.expect("Email: ", timeout: 10)
        try terminal.send("dave@example.com\r")
        try terminal.expect("Password: ", timeout: 10)
        try terminal.send("Quartz-Lantern-58\r")
        try terminal.expect("Confirm password: ", timeout: 10)
        try terminal.send("Quartz-Lantern-59\r")
        try terminal.expect("Passwords do not match", timeout: 10)
        usleep(50_000)
        try terminal.send("n\r")  // typed ahead, then Ctrl-C: "n" must not answer the question
        usleep(50_000)
        try terminal.send("\u{03}")
        try terminal.expect("Discard your answers? [y/N] ", timeout: 10)
        terminal.settle(quiet: 0.6)
        #expect(Screen.render(terminal.transcript).split(separator: "\n").last == "Discard your answers? [y/N]",
                "the question was answered or written on by keys typed before it: \(terminal.text())")
        try terminal.send("y\r")
        #expect(try terminal.wait(timeout: 10) == .exited(130), "\(terminal.text())")
        #expect(!terminal.text().contains("typed-early"), "keys typed before the prompt was back were shown: \(terminal.text())")
        #expect(try scratch.storedEmails().isEmpty)
    }
}
