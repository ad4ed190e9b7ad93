import Foundation
import Glibc
import Testing
import WizardTesting

/// A PostgreSQL failure at a terminal: `Try again?` with the answers kept, as for SQLite.
@Suite("PostgreSQL at a terminal", .enabled(
    if: ProcessInfo.processInfo.environment["SIGNUP_TEST_PG"] != nil,
    "PostgreSQL cases skipped: SIGNUP_TEST_PG is not set (scripts/test starts a server and sets it)"
))
struct PostgresTerminalTests {
    private let admin = ProcessInfo.processInfo.environment["SIGNUP_TEST_PG"] ?? ""

    private func psql(_ sql: String, database: String = "postgres") throws -> String {
        let result = try runProcess("/usr/bin/psql", ["-X", "-A", "-t", "-q", "-d", admin + " dbname=\(database)", "-c", sql])
        #expect(result.status == 0, "psql: \(result.output)")
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aMissingDatabaseOffersTryAgainAndTheRetryUsesTheSameAnswers() throws {
        let scratch = try ScratchFolder()
        let name = "signup_tty_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        defer { _ = try? psql("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
        let password = "Quartz-Lantern-58"
        let terminal = try PseudoTerminal(
            executable: signupBinary, arguments: ["--db", admin + " dbname=\(name)"],
            environment: PseudoTerminal.environment(["HOME": scratch.path])
        )
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ")
        try terminal.send("alice@example.com\r")
        try terminal.expect("Password: ")
        try terminal.send(password + "\r")
        try terminal.expect("Confirm password: ")
        try terminal.send(password + "\r")
        try terminal.expect("[Y/n/e]")
        try terminal.send("y\r")
        try terminal.expect("database \"\(name)\" does not exist")
        try terminal.expect("Try again? [Y/n]")
        // The admin fixes the server; the person answers yes and types nothing again.
        _ = try psql("CREATE DATABASE \(name)")
        try terminal.send("y\r")
        #expect(try terminal.wait(timeout: 30) == .exited(0))
        #expect(terminal.text().contains("Account created for alice@example.com"))
        #expect(!terminal.text().contains(password))
        #expect(try psql("SELECT email FROM account", database: name) == "alice@example.com")
    }
}
