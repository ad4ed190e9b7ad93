import Foundation
import SignupCore

/// Where the accounts live, decided once from the text of `--db` or `SIGNUP_DB`.
///
/// The rule: text starting with `postgresql://` or `postgres://`, or starting with a
/// libpq keyword and `=` (`host=db1 dbname=accounts`), is a PostgreSQL connection string;
/// anything else is an SQLite file path. A file whose name starts with `word=` is still
/// reachable as `./word=…`.
public enum StoreLocation: Sendable, Equatable, CustomStringConvertible {
    /// An SQLite database file.
    case sqlite(String)
    /// A PostgreSQL database, reached through libpq.
    case postgres(PostgresLocation)

    /// Where the text of `--db` (`fromCommandLine`) or `SIGNUP_DB` points.
    ///
    /// A connection string that libpq cannot parse, or one holding a password while it
    /// comes from the command line (every user can read a process's arguments), is refused;
    /// the reason never repeats the text.
    public init(_ text: String, fromCommandLine: Bool) throws(StoreLocation.Refusal) {
        guard Self.looksLikePostgres(text) else {
            self = .sqlite(text)
            return
        }
        switch PGConnectionString.parameters(text) {
        case .failure(let failure):
            throw .notAConnectionString(libpqReason: Self.withoutQuotedText(failure.reason))
        case .success(let parameters):
            // `sslpassword` unlocks the client's TLS key: as secret as the password.
            if fromCommandLine, ["password", "sslpassword"].contains(where: { !(parameters[$0] ?? "").isEmpty }) {
                throw .passwordOnCommandLine
            }
            self = .postgres(PostgresLocation(conninfo: text, parameters: parameters))
        }
    }

    /// `--db` when given, else `SIGNUP_DB`, else the default SQLite path.
    public static func resolve(argument: String?, environment: [String: String]) throws(StoreLocation.Refusal) -> StoreLocation {
        if let argument { return try StoreLocation(argument, fromCommandLine: true) }
        return try StoreLocation(AccountStore.defaultPath(environment: environment), fromCommandLine: false)
    }

    /// How messages name this location: the SQLite path, or the PostgreSQL target without its password.
    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let location): location.description
        }
    }

    /// Why `--db` or `SIGNUP_DB` was refused (a usage error, exit 64).
    public enum Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        /// A password in `--db`: argv is visible to every user of the machine.
        case passwordOnCommandLine
        /// libpq cannot parse it; its reason, with quoted parts of the text left out.
        case notAConnectionString(libpqReason: String)

        public var description: String {
            switch self {
            case .passwordOnCommandLine:
                "--db holds a password (not shown): every user of this machine can read a program's arguments. "
                    + "Put it in ~/.pgpass or the file PGPASSFILE names, or pass the connection string in SIGNUP_DB."
            case .notAConnectionString(let reason):
                "the database is not a valid PostgreSQL connection string (libpq: \(reason))"
            }
        }
    }

    static func looksLikePostgres(_ text: String) -> Bool {
        if text.hasPrefix("postgresql://") || text.hasPrefix("postgres://") { return true }
        let keyword = text.drop(while: { $0 == " " || $0 == "\t" }).prefix(while: { $0 != "=" })
        return keyword.count < text.count
            && !keyword.isEmpty
            && keyword.trimmingCharacters(in: .whitespaces).allSatisfy { ("a"..."z").contains($0) || $0 == "_" }
    }

    /// libpq quotes the text it could not parse, and that text may hold a password: keep only
    /// quoted keywords (`invalid connection option "hots"`).
    private static func withoutQuotedText(_ reason: String) -> String {
        let parts = reason.split(separator: "\"", omittingEmptySubsequences: false)
        return parts.enumerated().map { index, part in
            guard index % 2 == 1 else { return String(part) }
            let keywordLike = !part.isEmpty && part.count <= 40 && part.allSatisfy { ("a"..."z").contains($0) || $0 == "_" }
            return keywordLike ? "\"\(part)\"" : "(not shown)"
        }.joined()
    }
}

/// A PostgreSQL connection string (URL or keywords), as libpq takes it.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// The text handed to libpq. It may hold a password (from `SIGNUP_DB`): never print it.
    let conninfo: String
    private let parameters: [String: String]

    init(conninfo: String, parameters: [String: String]) {
        self.conninfo = conninfo
        self.parameters = parameters
    }

    /// `PostgreSQL (host=…, port=…, dbname=…)` with what the string sets, never a password.
    public var description: String {
        let shown = ["service", "host", "hostaddr", "port", "dbname", "user"].compactMap { key in
            parameters[key].map { "\(key)=\($0)" }
        }
        return VisibleText.of("PostgreSQL (" + (shown.isEmpty ? "libpq's defaults" : shown.joined(separator: ", ")) + ")")
    }
}
