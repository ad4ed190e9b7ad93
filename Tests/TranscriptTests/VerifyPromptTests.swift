import Glibc
import Testing
import WizardTesting

/// `signup verify` at a terminal: a masked prompt, the answer as the exit code.
@Suite struct VerifyPromptTests {
    private func verify(typing keys: String, scratch: ScratchFolder) throws -> (PseudoTerminal.Termination, String) {
        let terminal = try PseudoTerminal(
            executable: signupBinary, arguments: ["verify", "taken@example.com", "--db", scratch.database],
            environment: PseudoTerminal.environment(["HOME": scratch.path])
        )
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Password for taken@example.com: ")
        try terminal.send(keys)
        let status = try terminal.wait()
        return (status, terminal.text())
    }

    @Test func theRightPasswordExitsZeroAndIsNeverShown() throws {
        let scratch = try ScratchFolder()
        try scratch.createAccount(email: "taken@example.com")
        let (status, raw) = try verify(typing: existingAccountPassword + "\r", scratch: scratch)
        #expect(status == .exited(0))
        #expect(raw.contains("Password matches."))
        #expect(!raw.contains(existingAccountPassword))
    }

    @Test func aWrongPasswordExitsOne() throws {
        let scratch = try ScratchFolder()
        try scratch.createAccount(email: "taken@example.com")
        let (status, raw) = try verify(typing: "Wrong-Granite-4711\r", scratch: scratch)
        #expect(status == .exited(1))
        #expect(raw.contains("Password does not match."))
        #expect(!raw.contains("Wrong-Granite-4711"))
    }

    @Test func ctrlCAtThePromptExits130() throws {
        let scratch = try ScratchFolder()
        try scratch.createAccount(email: "taken@example.com")
        let (status, _) = try verify(typing: "Wro\u{03}", scratch: scratch)
        #expect(status == .exited(130))
    }

    /// With standard error away from the terminal (`2>/dev/null`, `2>&1 | cat`) there is no prompt
    /// to show, but the password is still typed at the terminal: it is never echoed there, and no
    /// line typed after it reaches the shell.
    @Test(arguments: ["2>/dev/null", "2>&1 | cat"])
    func withStandardErrorElsewhereThePasswordIsStillNotEchoed(redirect: String) throws {
        let scratch = try ScratchFolder()
        try scratch.createAccount(email: "taken@example.com")
        let terminal = try PseudoTerminal(
            executable: "/bin/sh",
            arguments: ["-c", "\"$0\" verify taken@example.com --db \"$1\" \(redirect); echo after; stty -a", signupBinary, scratch.database],
            environment: PseudoTerminal.environment(["HOME": scratch.path])
        )
        defer { terminal.kill(SIGKILL) }
        #expect(terminal.waitForEchoOff(), "echo never went off while the password was awaited")
        try terminal.send(existingAccountPassword + "\r" + "typed-after-Echo-77\r")
        _ = try terminal.wait()
        let raw = terminal.text()
        #expect(!raw.contains(existingAccountPassword), "\(raw)")
        #expect(!raw.contains("typed-after-Echo-77"), "\(raw)")
        #expect(raw.contains("after") && raw.contains(" echo "), "the terminal's echo was not put back: \(raw)")
        if redirect.contains("cat") { #expect(raw.contains("Password matches.")) }
    }
}
