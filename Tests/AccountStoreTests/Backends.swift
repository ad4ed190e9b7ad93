import AccountStore
import Foundation
import Testing

/// The two places accounts can live. Store tests that hold for both take `arguments: Backend.all`.
enum Backend: String, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    /// SQLite always; PostgreSQL when `SIGNUP_TEST_PG` names a server (scripts/test starts one).
    static let all: [Backend] = TestPostgres.isAvailable ? [.sqlite, .postgres] : [.sqlite]

    var testDescription: String { rawValue }

    /// Runs `body` with a location where no store exists yet (a new file, or a new database), removed after.
    func withFreshLocation<T>(_ body: (StoreLocation) throws -> T) throws -> T {
        switch self {
        case .sqlite:
            return try withTemporaryFolder { folder in
                try body(StoreLocation(folder.file("accounts.sqlite"), fromCommandLine: true))
            }
        case .postgres:
            return try TestPostgres.withDatabase { conninfo in
                try body(StoreLocation(conninfo, fromCommandLine: true))
            }
        }
    }
}

/// The throwaway server `scripts/test` starts, reached through `SIGNUP_TEST_PG` (a libpq keyword
/// string for a superuser on the server's socket). Tests talk to it with `psql`: a client nobody here wrote.
enum TestPostgres {
    static let admin = ProcessInfo.processInfo.environment["SIGNUP_TEST_PG"].flatMap { $0.isEmpty ? nil : $0 }
    static var isAvailable: Bool { admin != nil }
    static let skipNote: Comment = "PostgreSQL cases skipped: SIGNUP_TEST_PG is not set (scripts/test starts a server and sets it)"

    /// `admin` pointed at another database (a later keyword wins in a libpq string).
    static func conninfo(database: String) -> String {
        (admin ?? "") + " dbname=\(database)"
    }

    /// Rows of `sql` run by psql, columns joined by `|`.
    @discardableResult
    static func psql(_ sql: String, database: String = "postgres") throws -> [String] {
        let result = try run(["psql", "-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-d", conninfo(database: database), "-c", sql])
        try #require(result.status == 0, "psql failed: \(result.error)")
        return result.output.split(separator: "\n").map(String.init)
    }

    /// Runs `body` with the connection string of a new empty database, dropped after.
    static func withDatabase<T>(owner: String? = nil, _ body: (String) throws -> T) throws -> T {
        let name = "signup_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try psql("CREATE DATABASE \(name)" + (owner.map { " OWNER \($0)" } ?? ""))
        defer { _ = try? psql("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
        return try body(conninfo(database: name))
    }
}

extension AccountBackend {
    /// Every account, gathered from ``streamAccounts(_:)``.
    func collected() throws(StoreError) -> [Account] {
        var accounts: [Account] = []
        try streamAccounts { accounts.append($0); return true }
        return accounts
    }
}

@Suite("PostgreSQL availability")
struct PostgresAvailabilityTests {
    @Test("PostgreSQL store cases run", .enabled(if: TestPostgres.isAvailable, TestPostgres.skipNote))
    func serverAnswers() throws {
        #expect(try TestPostgres.psql("SELECT 1") == ["1"])
    }
}

extension StoreLocation {
    /// The PostgreSQL database's name, for psql; nil for SQLite.
    var databaseName: String? {
        guard case .postgres = self, let range = description.range(of: #"dbname=[a-z0-9_]+"#, options: .regularExpression) else {
            return nil
        }
        return String(description[range].dropFirst("dbname=".count))
    }
}

/// Hands values that are not `Sendable` to test threads that each use their own element.
/// A libpq connection must not be shared between threads; the tests never do.
struct ThreadOwned<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
