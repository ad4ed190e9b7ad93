import Glibc
import Testing

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
}
