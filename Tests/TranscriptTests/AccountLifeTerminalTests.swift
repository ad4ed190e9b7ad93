import Foundation
import Glibc
import Testing
import WizardTesting

/// `signup passwd` and `signup delete` at a terminal: the sign-up's password flow, and a question before deleting.
@Suite struct AccountLifeTerminalTests {
    private func start(_ arguments: [String], scratch: ScratchFolder, language: String? = nil) throws -> PseudoTerminal {
        try PseudoTerminal(
            executable: signupBinary, arguments: arguments + ["--db", scratch.database],
            environment: PseudoTerminal.environment(["HOME": scratch.path].merging(language.map { ["LANGUAGE": $0] } ?? [:]) { $1 })
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

    /// An outside attack changed carol's password with `passwd alice@…` by editing the email at
    /// the review: passwd changes the account it names, whatever the field says.
    @Test func passwdNeverChangesAnotherAccountThroughTheReview() throws {
        let scratch = try ScratchFolder()
        try scratch.createAccount(email: "alice@example.com")
        try scratch.createAccount(email: "carol@example.com")
        let terminal = try start(["passwd", "alice@example.com"], scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Password: ")
        try terminal.send("Harbor-Tulip-Kite-93\r")
        try terminal.expect("Confirm password: ")
        try terminal.send("Harbor-Tulip-Kite-93\r")
        try terminal.expect("Change the password? [Y/n/e] ")
        try terminal.send("e\r")
        try terminal.expect("Change which? ")
        try terminal.send("1\r")
        try terminal.expect("Email: ")
        try terminal.send("\u{15}carol@example.com\r")  // Ctrl-U clears the line, then another account
        try terminal.expect("Change the password? [Y/n/e] ")
        try terminal.send("y\r")
        try terminal.expect("This changes the password of alice@example.com only")
        try terminal.expect("Email: ")
        try terminal.send("\u{15}alice@example.com\r")
        try terminal.expect("Change the password? [Y/n/e] ")
        try terminal.send("y\r")
        #expect(try terminal.wait() == .exited(0))
        #expect(try scratch.verify(email: "carol@example.com", password: existingAccountPassword))
        #expect(try scratch.verify(email: "alice@example.com", password: "Harbor-Tulip-Kite-93"))
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

    /// In German the question shows the catalog's letters: j deletes, and so does the English y;
    /// n and Enter keep the account.
    @Test(arguments: [("n", 1), ("\r", 1), ("j", 0), ("J", 0), ("y", 0)])
    func deleteAsksInGermanAndTakesItsLettersAndTheEnglishOnes(answer: String, status: Int32) throws {
        let scratch = try ScratchFolder()
        try scratch.createAccount(email: "taken@example.com")
        let terminal = try start(["delete", "taken@example.com"], scratch: scratch, language: "de")
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("taken@example.com löschen? [j/N] ")
        try terminal.send(answer == "\r" ? answer : answer + "\r")
        #expect(try terminal.wait() == .exited(status))
        #expect(try scratch.storedEmails() == (status == 0 ? [] : ["taken@example.com"]))
        #expect(terminal.text().contains(status == 0 ? "Gelöscht: taken@example.com" : "Nichts wurde gelöscht."), "\(terminal.text())")
    }

    /// `passwd` in German: the review's j changes the password.
    @Test func passwdInGermanTakesJ() throws {
        let scratch = try ScratchFolder()
        try scratch.createAccount(email: "taken@example.com")
        let terminal = try start(["passwd", "taken@example.com"], scratch: scratch, language: "de")
        defer { terminal.kill(SIGKILL) }
        // The prompt, not "Passwort: " at the end of the hint before it.
        try terminal.expect("Stärke mindestens ausreichend\r\n")
        try terminal.expect("Passwort: ")
        try terminal.send("Harbor-Tulip-Kite-93\r")
        try terminal.expect("Passwort bestätigen: ")
        try terminal.send("Harbor-Tulip-Kite-93\r")
        try terminal.expect("Passwort ändern? [J/n/ä] ")
        try terminal.send("j\r")
        #expect(try terminal.wait() == .exited(0))
        #expect(try scratch.verify(email: "taken@example.com", password: "Harbor-Tulip-Kite-93"))
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["SIGNUP_TEST_PG"] != nil, "PostgreSQL cases skipped: SIGNUP_TEST_PG is not set"))
    func passwdAndDeleteAtATerminalOnPostgreSQL() throws {
        let admin = ProcessInfo.processInfo.environment["SIGNUP_TEST_PG"] ?? ""
        let scratch = try ScratchFolder()
        let name = "signup_tty_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        func psql(_ sql: String, database: String) throws -> String {
            try runProcess("/usr/bin/psql", ["-X", "-A", "-t", "-q", "-d", admin + " dbname=\(database)", "-c", sql])
                .output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        _ = try psql("CREATE DATABASE \(name)", database: "postgres")
        defer { _ = try? psql("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", database: "postgres") }
        let db = admin + " dbname=\(name)"
        let created = try runProcess(signupBinary, ["--db", db, "--no-interactive", "--quiet"],
                                     input: "taken@example.com\n\(existingAccountPassword)\n\(existingAccountPassword)\n",
                                     environment: ["HOME": scratch.path, "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin", "SWIFT_BACKTRACE": "enable=no", "SIGNUP_CONFIG": "/dev/null"])
        #expect(created.status == 0, "\(created.output)")
        let before = try psql("SELECT password_hash FROM account", database: name)

        let passwd = try PseudoTerminal(executable: signupBinary, arguments: ["passwd", "taken@example.com", "--db", db],
                                        environment: PseudoTerminal.environment(["HOME": scratch.path]))
        defer { passwd.kill(SIGKILL) }
        try passwd.expect("Password: ")
        try passwd.send("Harbor-Tulip-Kite-93\r")
        try passwd.expect("Confirm password: ")
        try passwd.send("Harbor-Tulip-Kite-93\r")
        try passwd.expect("Change the password? [Y/n/e] ")
        try passwd.send("y\r")
        #expect(try passwd.wait(timeout: 30) == .exited(0))
        #expect(!passwd.text().contains("Harbor-Tulip-Kite-93"))
        #expect(try psql("SELECT password_hash <> '\(before)' AND password_changed_at IS NOT NULL FROM account", database: name) == "t")

        let delete = try PseudoTerminal(executable: signupBinary, arguments: ["delete", "taken@example.com", "--db", db],
                                        environment: PseudoTerminal.environment(["HOME": scratch.path]))
        defer { delete.kill(SIGKILL) }
        try delete.expect("Delete taken@example.com? [y/N] ")
        try delete.send("y\r")
        #expect(try delete.wait(timeout: 30) == .exited(0))
        #expect(try psql("SELECT count(*) FROM account", database: name) == "0")
    }

    @Test func importAtATerminalShowsItsProgressOnStandardError() throws {
        let scratch = try ScratchFolder()
        var csv = "email,password\n"
        for index in 0..<260 { csv += "user\(index)@example.com,Harbor-Tulip-\(index)-Kite\n" }
        let file = scratch.path + "/many.csv"
        try csv.write(toFile: file, atomically: true, encoding: .utf8)
        let terminal = try start(["import", file], scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("256/260 rows", timeout: 60)
        #expect(try terminal.wait(timeout: 60) == .exited(0))
        #expect(terminal.text().contains("260/260 rows"))
        #expect(terminal.text().contains("Imported: created 260"))
        #expect(!terminal.text().contains("Harbor-Tulip-"))
    }
}
