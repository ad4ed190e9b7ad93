import Glibc
import Testing
import WizardTesting

/// A taken email is said right after the email, as Django's createsuperuser says it after the
/// username: nobody types a password and its confirmation for an account that already exists.
@Suite struct TakenEmailTests {
    private static func start(_ arguments: [String], scratch: ScratchFolder) throws -> PseudoTerminal {
        try scratch.createAccount(email: "taken@example.com")
        return try PseudoTerminal(
            executable: signupBinary, arguments: arguments + ["--db", scratch.database],
            environment: PseudoTerminal.environment(["HOME": scratch.path]))
    }

    /// Answers the password and its confirmation, then creates the account at the review.
    private static func typePasswordAndCreate(_ terminal: PseudoTerminal) throws {
        try terminal.expect("Password: ")
        try terminal.send("Harbor-Tulip-Kite-93\r")
        try terminal.expect("Confirm password: ")
        try terminal.send("Harbor-Tulip-Kite-93\r")
        try terminal.expect("Create account? [Y/n/e] ")
    }

    @Test func aTakenEmailIsSaidBeforeThePasswordIsAsked() throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.start([], scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ")
        try terminal.send("TAKEN@example.com\r")  // another case is the same account
        try terminal.expect("An account with this email already exists")
        try terminal.expect("Email: ")
        #expect(!terminal.text().contains("Password: "), "the password was asked for a taken email: \(terminal.text())")
        try terminal.send("\u{15}new@example.com\r")
        try Self.typePasswordAndCreate(terminal)
        try terminal.send("y\r")
        #expect(try terminal.wait() == .exited(0))
        #expect(try scratch.storedEmails().sorted() == ["new@example.com", "taken@example.com"])
    }

    /// Editing the email at the review to a taken one is said at once too, and the review comes back.
    @Test func anEmailEditedAtTheReviewIsCheckedAgain() throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.start([], scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ")
        try terminal.send("new@example.com\r")
        try Self.typePasswordAndCreate(terminal)
        try terminal.send("e\r")
        try terminal.expect("Change which? ")
        try terminal.send("1\r")
        try terminal.expect("Email: ")
        try terminal.send("\u{15}taken@example.com\r")
        try terminal.expect("An account with this email already exists")
        try terminal.expect("Email: ")
        try terminal.send("\u{15}other@example.com\r")
        try terminal.expect("Create account? [Y/n/e] ")
        try terminal.send("y\r")
        #expect(try terminal.wait() == .exited(0))
        #expect(try scratch.storedEmails().sorted() == ["other@example.com", "taken@example.com"])
    }

    /// A stranger on `--public` is not told which addresses have accounts before paying for a
    /// password's hash: the taken email is reported only at the end, as before.
    @Test func aPublicSessionDoesNotSayATakenEmailEarly() throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.start(["--public", "--no-prove-address"], scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ")
        try terminal.send("taken@example.com\r")
        try terminal.expect("Password: ")
        #expect(!terminal.text().contains("already exists"))
    }
}
