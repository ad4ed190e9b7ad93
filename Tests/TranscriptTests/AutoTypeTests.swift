import Glibc
import Testing
import WizardTesting

/// A password manager's auto-type, or a paste that arrives in pieces, sends
/// `email⏎password⏎password⏎` with a few milliseconds between lines. When the email is refused
/// (invalid, or taken), the password lines come after the error, while the email field is
/// asked again: they must not answer it, be echoed there, or enter the line history.
@Suite struct AutoTypeTests {
    private static func autoType(_ email: String, gapMilliseconds: UInt32, scratch: ScratchFolder) throws -> PseudoTerminal {
        let terminal = try PseudoTerminal(
            executable: signupBinary, arguments: ["--db", scratch.database],
            environment: PseudoTerminal.environment(["HOME": scratch.path]))
        try terminal.expect("Email: ")
        for line in [email, "Zebra-Secret-77", "Zebra-Secret-77"] {
            try terminal.send(line + "\r")
            usleep(gapMilliseconds * 1000)
        }
        return terminal
    }

    @Test(arguments: [5, 20, 100, 300] as [UInt32])
    func passwordLinesAfterAnInvalidEmailAreNeverShown(gapMilliseconds: UInt32) throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.autoType("not-an-email", gapMilliseconds: gapMilliseconds, scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Enter a valid email address")
        try terminal.expect("Email: ")
        try terminal.send("\u{1B}[A")  // Up: the history holds no password
        usleep(300_000)
        try terminal.send("\u{15}alice@example.com\r")
        try terminal.expect("Password: ")
        #expect(!terminal.transcript.containsBytes("Zebra".utf8), "\(terminal.text())")
    }

    /// Auto-type key by key: two copies of a 40-character password, 30 ms a key (2.5 s in all).
    @Test func aLongPasswordTypedKeyByKeyAfterAnErrorIsNeverShown() throws {
        let scratch = try ScratchFolder()
        let terminal = try PseudoTerminal(
            executable: signupBinary, arguments: ["--db", scratch.database],
            environment: PseudoTerminal.environment(["HOME": scratch.path]))
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ")
        try terminal.send("not-an-email\r")
        let password = "Zebra-" + String(repeating: "k7Q", count: 11) + "-77"
        for key in (password + "\r" + password + "\r") {
            try terminal.send(String(key))
            usleep(30_000)
        }
        try terminal.expect("Enter a valid email address")
        try terminal.expect("Email: ")
        try terminal.send("\u{15}alice@example.com\r")
        try terminal.expect("Password: ")
        #expect(!terminal.transcript.containsBytes("k7Q".utf8) && !terminal.transcript.containsBytes("-77".utf8), "\(terminal.text())")
    }

    @Test func passwordLinesAfterATakenEmailAreNeverShown() throws {
        let scratch = try ScratchFolder()
        try scratch.createAccount(email: "taken@example.com")
        let terminal = try Self.autoType("taken@example.com", gapMilliseconds: 20, scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("An account with this email already exists")
        try terminal.expect("Email: ")
        try terminal.send("\u{15}new@example.com\r")
        try terminal.expect("Password: ")
        #expect(!terminal.transcript.containsBytes("Zebra".utf8), "\(terminal.text())")
    }
}
