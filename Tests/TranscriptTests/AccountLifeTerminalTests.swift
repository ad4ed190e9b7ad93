import Glibc
import Testing

/// `signup passwd` and `signup delete` at a terminal: the sign-up's password flow, and a question before deleting.
@Suite struct AccountLifeTerminalTests {
    private func start(_ arguments: [String], scratch: ScratchFolder) throws -> PseudoTerminal {
        try PseudoTerminal(
            executable: signupBinary, arguments: arguments + ["--db", scratch.database],
            environment: PseudoTerminal.environment(["HOME": scratch.path])
        )
    }

    @Test func passwdAsksLikeASignUpAndChangesThePassword() throws {
        let scratch = try ScratchFolder()
        try scratch.createAccount(email: "taken@example.com")
        let terminal = try start(["passwd", "taken@example.com"], scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Change the password for taken@example.com")
        try terminal.expect("Password: ")
        try terminal.send("short\r")
        // Deferred errors, then the same question again; the email's local part is a known word.
        try terminal.expect("Use at least 8 characters")
        try terminal.expect("Password: ")
        try terminal.send("Harbor-Tulip-Kite-93\r")
        try terminal.expect("Strength: ")
        try terminal.expect("Confirm password: ")
        try terminal.send("Harbor-Tulip-Kite-93\r")
        try terminal.expect("Change the password? [Y/n/e] ")
        try terminal.send("y\r")
        #expect(try terminal.wait() == .exited(0))
        let shown = terminal.text()
        #expect(shown.contains("Password changed for taken@example.com"))
        #expect(!shown.contains("Harbor-Tulip-Kite-93"))
        #expect(try scratch.verify(email: "taken@example.com", password: "Harbor-Tulip-Kite-93"))
        #expect(try !scratch.verify(email: "taken@example.com", password: existingAccountPassword))
    }

    @Test func ctrlCInPasswdChangesNothing() throws {
        let scratch = try ScratchFolder()
        try scratch.createAccount(email: "taken@example.com")
        let terminal = try start(["passwd", "taken@example.com"], scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Password: ")
        try terminal.send("Harbor-Tulip-Kite-93\r")
        try terminal.expect("Confirm password: ")
        try terminal.send("\u{03}")
        try terminal.expect("Discard your answers? [y/N] ")
        try terminal.send("y\r")
        #expect(try terminal.wait() == .exited(130))
        #expect(try scratch.verify(email: "taken@example.com", password: existingAccountPassword))
    }

    @Test func deleteAsksAndOnlyYesDeletes() throws {
        let scratch = try ScratchFolder()
        try scratch.createAccount(email: "taken@example.com")
        let declined = try start(["delete", "taken@example.com"], scratch: scratch)
        defer { declined.kill(SIGKILL) }
        try declined.expect("Delete taken@example.com? [y/N] ")
        try declined.send("\r")
        #expect(try declined.wait() == .exited(1))
        #expect(try scratch.storedEmails() == ["taken@example.com"])

        let accepted = try start(["delete", "taken@example.com"], scratch: scratch)
        defer { accepted.kill(SIGKILL) }
        try accepted.expect("Delete taken@example.com? [y/N] ")
        try accepted.send("y\r")
        #expect(try accepted.wait() == .exited(0))
        #expect(try scratch.storedEmails() == [])
    }
}
