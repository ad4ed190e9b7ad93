import Foundation
import Glibc
import WizardTesting
import Testing

/// Proof of the address at a terminal: the code asked right after the email, five wrong codes
/// end the session, and in public mode a taken address's session is the free one's, byte for byte.
@Suite struct AddressProofTerminalTests {
    /// A configuration whose mail command keeps each message as `mail-N` in `scratch`.
    static func mailConfig(_ scratch: ScratchFolder) throws -> String {
        let keeper = scratch.path + "/keep-mail"
        try """
            #!/bin/sh
            n=$(ls "\(scratch.path)" | grep -c '^mail-')
            cat > "\(scratch.path)/tmp-$n" && mv "\(scratch.path)/tmp-$n" "\(scratch.path)/mail-$n"

            """.write(toFile: keeper, atomically: true, encoding: .utf8)
        chmod(keeper, 0o755)
        let config = scratch.path + "/signup.conf"
        try "mail.command = \(keeper) -t -i\n".write(toFile: config, atomically: true, encoding: .utf8)
        return config
    }

    /// The code of the `n`th message the mail command kept (its indented line).
    static func mailedCode(_ scratch: ScratchFolder, _ n: Int = 0) throws -> String {
        let mail = try String(contentsOfFile: scratch.path + "/mail-\(n)", encoding: .utf8)
        return mail.components(separatedBy: "\n").first { $0.hasPrefix("    ") }!.trimmingCharacters(in: .whitespaces)
    }

    static func start(_ arguments: [String], scratch: ScratchFolder, config: String) throws -> PseudoTerminal {
        try PseudoTerminal(executable: signupBinary, arguments: arguments + ["--db", scratch.database],
                           environment: PseudoTerminal.environment(["HOME": scratch.path, "SIGNUP_CONFIG": config]))
    }

    @Test func fiveWrongCodesEndTheSession() throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.start(["--prove-address"], scratch: scratch, config: try Self.mailConfig(scratch))
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        try terminal.send("bob@example.com\r")
        try terminal.expect("A code was mailed to the address. It is valid for 10 minutes.", timeout: 10)
        for attempt in 1...5 {
            try terminal.expect("Code from the email: ", timeout: 10)
            try terminal.send("00000\(attempt)\r")
        }
        try terminal.expect("Too many wrong codes: the session ends. Nothing was saved.", timeout: 10)
        #expect(try terminal.wait(timeout: 10) == .exited(75))
        #expect(try scratch.storedEmails().isEmpty)
        #expect(FileManager.default.fileExists(atPath: scratch.path + "/mail-0"))
    }

    @Test func theCodeFromTheMailCreatesTheAccountAndIsNotRecalledByUp() throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.start(["--prove-address"], scratch: scratch, config: try Self.mailConfig(scratch))
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        try terminal.send("bob@example.com\r")
        try terminal.expect("Code from the email: ", timeout: 10)
        let code = try Self.mailedCode(scratch)
        try terminal.send("\(code)\r")
        try terminal.expect("Password: ", timeout: 10)
        try terminal.send("Quartz-Lantern-58\r")
        try terminal.expect("Confirm password: ", timeout: 10)
        try terminal.send("Quartz-Lantern-58\r")
        try terminal.expect("[Y/n/e] ", timeout: 10)
        // The code is typed like a password, unseen, and the review does not show it either.
        #expect(!terminal.text().contains(code), "\(terminal.text())")
        try terminal.send("y\r")
        #expect(try terminal.wait(timeout: 20) == .exited(0))
        #expect(try scratch.storedEmails() == ["bob@example.com"])
    }

    /// `signup reset` at a terminal, as `ssh -t reset@host` has it: the code from the mail, then the
    /// new password asked as passwd asks it (an empty one and a mismatched confirmation are said at
    /// once and asked again), the review, and the new password is the one that verifies.
    @Test func aResetAtATerminalChangesThePassword() throws {
        let scratch = try ScratchFolder()
        try scratch.createAccount(email: "bob@example.com")
        let terminal = try Self.start(["reset", "--public"], scratch: scratch, config: try Self.mailConfig(scratch))
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        try terminal.send("bob@example.com\r")
        try terminal.expect("Code from the email: ", timeout: 10)
        let code = try Self.mailedCode(scratch)
        try terminal.send("\(code)\r")
        try terminal.expect("Password: ", timeout: 10)
        usleep(300_000)
        try terminal.send("\r")
        try terminal.expect("Enter a password", timeout: 10)
        try terminal.expect("Password: ", timeout: 10)
        // Keys typed while an error is said are dropped, as a person's would be: wait for the prompt.
        usleep(500_000)
        try terminal.send("Quartz-Lantern-58\r")
        try terminal.expect("Confirm password: ", timeout: 10)
        try terminal.send("Quartz-Lantern-59\r")
        // A confirmation that does not match asks the password again, then its confirmation.
        try terminal.expect("Passwords do not match", timeout: 10)
        try terminal.expect("Password: ", timeout: 10)
        usleep(500_000)
        try terminal.send("Quartz-Lantern-58\r")
        try terminal.expect("Confirm password: ", timeout: 10)
        try terminal.send("Quartz-Lantern-58\r")
        try terminal.expect("Change the password? [Y/n/e] ", timeout: 10)
        usleep(500_000)
        try terminal.send("y\r")
        #expect(try terminal.wait(timeout: 20) == .exited(0))
        #expect(try scratch.verify(email: "bob@example.com", password: "Quartz-Lantern-58"))
        #expect(try !scratch.verify(email: "bob@example.com", password: existingAccountPassword))
    }

    /// An email changed at the review is proved again: a new code is mailed and asked for, and the
    /// first address's code no longer counts.
    @Test func anEmailChangedAtTheReviewIsProvedAgain() throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.start(["--prove-address"], scratch: scratch, config: try Self.mailConfig(scratch))
        defer { terminal.kill(SIGKILL) }
        func code(_ n: Int) throws -> String { try Self.mailedCode(scratch, n) }
        try terminal.expect("Email: ", timeout: 10)
        try terminal.send("one@example.com\r")
        try terminal.expect("Code from the email: ", timeout: 10)
        let first = try code(0)
        try terminal.send("\(first)\r")
        try terminal.expect("Password: ", timeout: 10)
        try terminal.send("Quartz-Lantern-58\r")
        try terminal.expect("Confirm password: ", timeout: 10)
        try terminal.send("Quartz-Lantern-58\r")
        try terminal.expect("[Y/n/e] ", timeout: 10)
        usleep(500_000)
        try terminal.send("e\r")
        try terminal.expect("[1-2] ", timeout: 10)
        try terminal.send("1\r")
        try terminal.expect("Email: ", timeout: 10)
        try terminal.send("\u{15}two@example.com\r")
        try terminal.expect("Code from the email: ", timeout: 10)
        let second = try code(1)
        #expect(try String(contentsOfFile: scratch.path + "/mail-1", encoding: .utf8).contains("\nTo: two@example.com\n"))
        if first != second {
            try terminal.send("\(first)\r")
            try terminal.expect("This is not the code that was mailed, or it expired", timeout: 10)
            try terminal.expect("Code from the email: ", timeout: 10)
        }
        try terminal.send("\(second)\r")
        try terminal.expect("[Y/n/e] ", timeout: 10)
        usleep(500_000)
        try terminal.send("y\r")
        #expect(try terminal.wait(timeout: 20) == .exited(0))
        #expect(try scratch.storedEmails() == ["two@example.com"])
    }

    /// The whole transcript of a stranger who types a wrong code for a taken address and for a
    /// free one: the same bytes once the address itself is replaced, and the same exit.
    @Test func aTakenAndAFreeAddressGiveTheSameTranscriptInPublic() throws {
        func session(_ email: String) throws -> (transcript: [UInt8], status: PseudoTerminal.Termination, mails: [String]) {
            let scratch = try ScratchFolder()
            try scratch.createAccount(email: "taken@example.com")
            let terminal = try Self.start(["--public"], scratch: scratch, config: try Self.mailConfig(scratch))
            defer { terminal.kill(SIGKILL) }
            try terminal.expect("Email: ", timeout: 10)
            try terminal.send(email + "\r")
            for _ in 1...5 {
                try terminal.expect("Code from the email: ", timeout: 10)
                usleep(500_000)
                try terminal.send("123456\r")
            }
            let status = try terminal.wait(timeout: 10)
            let mails = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasPrefix("mail-") }
                .map { try String(contentsOfFile: scratch.path + "/" + $0, encoding: .utf8) }
            return (terminal.transcript, status, mails)
        }
        let taken = try session("taken@example.com")
        let free = try session("freed@example.com")  // as long as the taken address
        #expect(taken.status == .exited(75) && free.status == .exited(75))
        #expect(taken.transcript.count == free.transcript.count)
        #expect(String(decoding: taken.transcript, as: UTF8.self).replacingOccurrences(of: "taken@", with: "freed@")
                == String(decoding: free.transcript, as: UTF8.self))
        #expect(taken.mails.count == 1 && taken.mails[0].contains("Subject: Someone tried to sign up on "))
        #expect(free.mails.count == 1 && free.mails[0].contains("Subject: Your sign-up code for "))
    }
}
