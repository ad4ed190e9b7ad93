import SignupCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where accounts are kept, as named by `--db` or `SIGNUP_DB`: the one place that text is classified.
///
/// The rule: text starting with `postgresql://` or `postgres://`, or starting with a libpq
/// keyword and `=` (`host=db1 dbname=accounts`), is a PostgreSQL connection string; anything
/// else is an SQLite file path, never an SQLite URI. A file whose name starts with `word=` is
/// still reachable as `./word=…`. Nothing else in the program decides what a `--db` value means.
public enum StoreLocation: Sendable, Equatable, CustomStringConvertible {
    /// A SQLite database file.
    case sqlite(DatabasePath)
    /// A PostgreSQL database, reached through libpq.
    case postgres(PostgresLocation)

    /// Classifies the bytes of `--db` (`fromCommandLine`) or `SIGNUP_DB`, exactly as given.
    ///
    /// `file:x`, `:memory:` and `x?mode=ro` are files of those names. A connection string
    /// that libpq cannot parse, or one holding a password while it comes from the command line
    /// (every user can read a process's arguments), is refused; the reason never repeats the text.
    public static func parse(_ bytes: [UInt8], fromCommandLine: Bool = false) throws(StoreError) -> StoreLocation {
        guard let text = String(validating: bytes, as: UTF8.self), looksLikePostgres(text) else {
            return .sqlite(try DatabasePath(bytes))
        }
        switch PGConnectionString.parameters(text) {
        case .failure(let failure) where failure.kind == .libraryMissing:
            // libpq is loaded on first use: without it nothing can say what the text holds, so a
            // command-line string that may hold a password is refused as one would be.
            if fromCommandLine, mayHoldPassword(text) { throw .unavailable(reason: Self.passwordOnCommandLine) }
            throw .unavailable(reason: Self.postgresUnavailable + failure.reason, problem: .postgresMissing)
        case .failure(let failure):
            throw .unavailable(reason: "the database is not a valid PostgreSQL connection string ("
                + parseProblem(failure.reason) + "; the string is not shown: it may hold a password)")
        case .success(let parameters):
            // `sslpassword` unlocks the client's TLS key: as secret as the password.
            if fromCommandLine, ["password", "sslpassword"].contains(where: { !(parameters[$0] ?? "").isEmpty }) {
                throw .unavailable(reason: Self.passwordOnCommandLine)
            }
            return .postgres(PostgresLocation(conninfo: text, parameters: parameters))
        }
    }

    /// Classifies text (tests and library callers); see ``parse(_:fromCommandLine:)``.
    public init(_ text: String, fromCommandLine: Bool) throws(StoreError) {
        self = try Self.parse(Array(text.utf8), fromCommandLine: fromCommandLine)
    }

    /// How the reason starts when PostgreSQL is named but libpq cannot be loaded
    /// (``StoreProblem/postgresMissing``): a storage failure, not a mistake in the text.
    public static let postgresUnavailable = "PostgreSQL cannot be used here: "

    /// Whether a connection string may hold a password, judged without libpq: a `password`
    /// keyword or parameter, or a URI's user information with a `:`.
    static func mayHoldPassword(_ text: String) -> Bool {
        let lowered = text.lowercased()
        if lowered.contains("password") { return true }
        guard let scheme = lowered.firstRange(of: "://") else { return false }
        let rest = lowered[scheme.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        guard let at = authority.lastIndex(of: "@") else { return false }
        return authority[..<at].contains(":")
    }

    /// Why a password in `--db` is refused.
    public static let passwordOnCommandLine = "--db holds a password (not shown): every user of this machine can read "
        + "a program's arguments. Put it in ~/.pgpass or the file PGPASSFILE names, or pass the connection string in SIGNUP_DB."

    /// `--db` when given, else `$SIGNUP_DB`, else `$XDG_DATA_HOME/signup/accounts.sqlite`,
    /// else `$HOME/.local/share/signup/accounts.sqlite`.
    ///
    /// `variable` returns an environment variable's raw bytes. Empty variables count
    /// as unset, and so do a relative `XDG_DATA_HOME` or `HOME` (the XDG spec says to
    /// ignore a relative one). Without `HOME`, the home folder comes from the
    /// password database.
    public static func chosen(option: [UInt8]?, variable: (String) -> [UInt8]?) throws(StoreError) -> StoreLocation {
        if let option { return try parse(option, fromCommandLine: true) }
        if let database = variable("SIGNUP_DB"), !database.isEmpty { return try parse(database) }
        return .sqlite(try DatabasePath.defaultFile(variable: variable))
    }

    /// The same choice from a `[String: String]` environment (tests, and callers that have no raw bytes).
    public static func chosen(option: String? = nil, environment: [String: String]) throws(StoreError) -> StoreLocation {
        try chosen(option: option.map { Array($0.utf8) }, variable: { environment[$0].map { Array($0.utf8) } })
    }

    /// The same choice from this process's own environment, byte for byte (`getenv`).
    public static func chosen(option: [UInt8]?) throws(StoreError) -> StoreLocation {
        try chosen(option: option, variable: { name in
            guard let value = getenv(name) else { return nil }
            return FileSystem.bytes(of: value)
        })
    }

    /// The location for messages, with control characters made visible and never a password.
    public var visible: String {
        switch self {
        case .sqlite(let path): path.description
        case .postgres(let location): location.description
        }
    }

    /// The same as ``visible``.
    public var description: String { visible }

    static func looksLikePostgres(_ text: String) -> Bool {
        // A scheme is case-insensitive to people, if not to libpq: `POSTGRESQL://u:pw@h/db` must
        // not become a file whose folder name holds the password.
        let lowered = text.prefix(13).lowercased()
        if lowered.hasPrefix("postgresql://") || lowered.hasPrefix("postgres://") { return true }
        let keyword = text.drop(while: { $0 == " " || $0 == "\t" }).prefix(while: { $0 != "=" })
        return keyword.count < text.count
            && !keyword.isEmpty
            && keyword.trimmingBlanks().allSatisfy { ("a"..."z").contains($0) || $0 == "_" }
    }

    /// Whether `text` names a PostgreSQL database (a URL, or a libpq keyword and `=`) rather than a file.
    public static func namesPostgreSQL(_ text: String) -> Bool {
        looksLikePostgres(text)
    }

    /// libpq quotes the text it could not parse, and any part of it may be a password: the
    /// problem is named in signup's own words, with no text from the string at all.
    static func parseProblem(_ reason: String) -> String {
        let known: [(libpq: String, said: String)] = [
            ("missing \"=\" after", "a word without \"=\" and a value"),
            ("unterminated quoted string", "a quoted value that does not end"),
            ("invalid connection option", "an option libpq does not know"),
            ("invalid URI query parameter", "an option libpq does not know"),
            ("invalid percent-encoded token", "a percent-encoded character that is not valid"),
            ("forbidden value %00", "a %00 escape"),
            ("end of string reached when looking for matching \"]\"", "an IPv6 address without its \"]\""),
            ("IPv6 host address may not be empty", "an empty IPv6 address"),
            ("unexpected character", "a character that does not belong in a URI"),
            ("extra key/value separator", "an \"=\" too many in a URI parameter"),
            ("missing key/value separator", "a URI parameter without \"=\""),
            ("invalid URI propagated", "a URI libpq cannot read"),
        ]
        return known.first { reason.contains($0.libpq) }?.said ?? "libpq cannot parse it"
    }
}

/// The path of a SQLite database file: absolute, byte for byte, and never an SQLite URI.
///
/// A relative path is made absolute against the current folder when the value is
/// made, so the name SQLite sees always starts with `/`: SQLite reads a name as a
/// URI only when it starts with `file:`, and `:memory:` only when it is exactly that.
/// The bytes are kept as they are: a path that is not UTF-8 names exactly those bytes.
public struct DatabasePath: Sendable, Hashable, CustomStringConvertible {
    /// The absolute path, without NUL bytes.
    public let bytes: [UInt8]

    /// Makes a path from raw bytes; relative ones are taken from the current folder.
    public init(_ bytes: [UInt8]) throws(StoreError) {
        guard !bytes.isEmpty else { throw .unavailable(reason: "the database path is empty") }
        guard !bytes.contains(0) else { throw .unavailable(reason: "the database path contains a NUL byte") }
        if bytes.first == UInt8(ascii: "/") {
            self.bytes = bytes
            return
        }
        guard let folder = Self.currentFolder() else {
            throw .unavailable(reason: "the database path is relative and the current folder is unknown")
        }
        self.bytes = Self.joined(folder, bytes)
    }

    /// Makes a path from text (tests and library callers).
    public init(_ path: String) throws(StoreError) {
        try self.init(Array(path.utf8))
    }

    /// The path as text for messages: invalid UTF-8 shown as U+FFFD, control characters made visible.
    public var description: String {
        VisibleText.of(String(decoding: bytes, as: UTF8.self))
    }

    /// The path as a Swift string when its bytes are UTF-8 (the SQLite store opens a UTF-8 path by its name, any other through a descriptor: `SQLiteName`).
    var utf8Text: String? {
        String(validating: bytes, as: UTF8.self)
    }

    /// `$XDG_DATA_HOME/signup/accounts.sqlite`, else `$HOME/.local/share/signup/accounts.sqlite`.
    static func defaultFile(variable: (String) -> [UInt8]?) throws(StoreError) -> DatabasePath {
        if let data = variable("XDG_DATA_HOME"), data.first == UInt8(ascii: "/") {
            return try DatabasePath(joined(data, Array("signup/accounts.sqlite".utf8)))
        }
        let home = variable("HOME").flatMap { $0.first == UInt8(ascii: "/") ? $0 : nil } ?? FileSystem.homeFolder()
        guard let home else {
            throw .unavailable(reason: "no database path: HOME is not set and the password database has no home folder")
        }
        return try DatabasePath(joined(home, Array(".local/share/signup/accounts.sqlite".utf8)))
    }

    private static func joined(_ folder: [UInt8], _ rest: [UInt8]) -> [UInt8] {
        folder.last == UInt8(ascii: "/") ? folder + rest : folder + [UInt8(ascii: "/")] + rest
    }

    private static func currentFolder() -> [UInt8]? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
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
        // A port is digits (one per host): anything else is no port, and may be a password.
        let shown = ["service", "host", "hostaddr", "port", "dbname", "user"].compactMap { key in
            parameters[key].map { key == "port" && !$0.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ",") }) ? "port=(not shown)" : "\(key)=\($0)" }
        }
        return VisibleText.of("PostgreSQL (" + (shown.isEmpty ? "libpq's defaults" : shown.joined(separator: ", ")) + ")")
    }
}
