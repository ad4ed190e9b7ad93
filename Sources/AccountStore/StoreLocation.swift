import SignupCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where accounts are kept, as named by `--db` or `SIGNUP_DB`: the one place that text is classified.
///
/// Every backend is a case of its own; today the only one is a SQLite file. Nothing
/// else in the program decides what a `--db` value means.
public enum StoreLocation: Sendable, Equatable {
    /// A SQLite database file.
    case sqlite(DatabasePath)

    /// Classifies the bytes of `--db` or `SIGNUP_DB`, exactly as given.
    ///
    /// Anything that is not another backend's name is a file path, never an SQLite
    /// URI: `file:x`, `:memory:` and `x?mode=ro` are files of those names.
    public static func parse(_ bytes: [UInt8]) throws(StoreError) -> StoreLocation {
        .sqlite(try DatabasePath(bytes))
    }

    /// `--db` when given, else `$SIGNUP_DB`, else `$XDG_DATA_HOME/signup/accounts.sqlite`,
    /// else `$HOME/.local/share/signup/accounts.sqlite` (SPEC 8).
    ///
    /// `variable` returns an environment variable's raw bytes. Empty variables count
    /// as unset, and so do a relative `XDG_DATA_HOME` or `HOME` (the XDG spec says to
    /// ignore a relative one). Without `HOME`, the home folder comes from the
    /// password database.
    public static func chosen(option: [UInt8]?, variable: (String) -> [UInt8]?) throws(StoreError) -> StoreLocation {
        if let option { return try parse(option) }
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

    /// The location for messages, with control characters made visible.
    public var visible: String {
        switch self {
        case .sqlite(let path): path.description
        }
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

    /// The path as a Swift string when its bytes are UTF-8 (SQLite through GRDB takes a `String`).
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
