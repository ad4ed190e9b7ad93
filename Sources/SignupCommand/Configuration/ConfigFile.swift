import AccountStore
import Glibc
import SignupCore

/// One configuration file (`signup.conf(5)`): `key = value` lines, `#` comments, blank lines.
///
/// Read with plain POSIX calls, no Foundation: a missing file costs one failed `lstat`, and the
/// start-up to the first prompt stays as it was. A file another user could have written is
/// refused by the database's rules (``TrustedFile``), before a byte of it is read.
struct ConfigFile {
    /// The keys a file may set, in the order `signup config` shows them.
    static let keys = [
        "database", "policy", "policy-file", "argon2.memory", "argon2.passes", "argon2.parallelism",
        "public.answer-seconds", "public.session-seconds", "public.per-client", "public.overall", "public.limit-window",
        "public.account-window", "public.mails-per-account", "public.codes-per-account", "public.prove-address", "mail.command", "mail.from", "syslog.facility",
    ]

    /// The largest file read: a configuration is a few lines.
    static let limit = 64 * 1024

    /// The path the file was read from (raw bytes, absolute).
    let path: [UInt8]
    /// Each key the file sets: its value (trimmed, never empty) and its line.
    private(set) var values: [String: (text: String, line: Int)] = [:]

    /// The path as text for messages, control characters made visible.
    var visiblePath: String { VisibleText.of(String(decoding: path, as: UTF8.self)) }

    /// The folder holding the file: relative paths in it are taken from there.
    var folder: [UInt8] {
        guard let slash = path.lastIndex(of: UInt8(ascii: "/")) else { return [] }
        return Array(path[...slash])
    }

    /// The value of `key` and its line, when the file sets it.
    subscript(key: String) -> (text: String, line: Int)? { values[key] }

    /// The file at `path`, or nil when there is none there (ENOENT or ENOTDIR, one `lstat`).
    /// `name` says how it was chosen, for a file that cannot be opened: its path is named only
    /// once it was found (a path typed on the command line may be a secret in the wrong place).
    static func read(_ path: [UInt8], missingIsError name: String?) throws(ConfigError) -> ConfigFile? {
        var info = stat()
        let found = !path.isEmpty && !path.contains(0)
            && (path + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { lstat($0.baseAddress!, &info) } } == 0
        if !found {
            let code = path.isEmpty || path.contains(0) ? ENOENT : errno
            guard let name else {
                if code == ENOENT || code == ENOTDIR { return nil }
                throw ConfigError(Translation.english("{file} cannot be read: {reason}", ["file": visible(path), "reason": String(cString: strerror(code))]))
            }
            throw ConfigError(Translation.english("the {option} file cannot be opened: {reason}", ["option": name, "reason": String(cString: strerror(code))]))
        }
        let absolute: [UInt8]
        do throws(StoreError) {
            absolute = try DatabasePath(path).bytes
        } catch {
            throw ConfigError(Translation.english("{file} cannot be used: {reason}", ["file": visible(path), "reason": error.description]))
        }
        let identity: TrustedFile.Identity
        do throws(StoreError) {
            identity = try TrustedFile.check(absolute)
        } catch {
            // A path the store refuses says why without the path, which the message already names.
            let reason = if case .unavailable(_, .pathRefused(let why)) = error { why } else { error.description }
            throw ConfigError(Translation.english("{file} cannot be used: {reason}", ["file": visible(absolute), "reason": reason]))
        }
        let fd = IO.open(absolute, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else {
            throw ConfigError(Translation.english("{file} cannot be read: {reason}", ["file": visible(absolute), "reason": String(cString: strerror(errno))]))
        }
        defer { close(fd) }
        // The file opened is the file checked: nobody swapped it in between.
        var opened = stat()
        guard fstat(fd, &opened) == 0, UInt64(opened.st_dev) == identity.device, UInt64(opened.st_ino) == identity.inode else {
            throw ConfigError(Translation.english("{file} cannot be used: it changed while it was read", ["file": visible(absolute)]))
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while bytes.count <= limit {
            let got = IO.read(fd, into: &chunk, count: chunk.count)
            if got == 0 { break }
            guard got > 0 else {
                throw ConfigError(Translation.english("{file} cannot be read: {reason}", ["file": visible(absolute), "reason": String(cString: strerror(errno))]))
            }
            bytes += chunk[..<got]
        }
        guard bytes.count <= limit else {
            throw ConfigError(Translation.english("{file} is larger than 64 KiB: it is not read", ["file": visible(absolute)]))
        }
        return try ConfigFile(path: absolute, bytes: bytes)
    }

    /// Parses `bytes`: every line is blank, a comment (`#` first, after blanks) or `key = value`.
    init(path: [UInt8], bytes: [UInt8]) throws(ConfigError) {
        self.path = path
        let file = VisibleText.of(String(decoding: path, as: UTF8.self))
        var content = bytes[...]
        if content.starts(with: [0xEF, 0xBB, 0xBF]) { content = content.dropFirst(3) }
        for (index, raw) in content.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let at = ["file": file, "line": "\(index + 1)"]
            guard !raw.contains(0) else { throw ConfigError(Translation.english("{file}, line {line}: the line holds a NUL byte", at)) }
            guard let text = String(validating: raw, as: UTF8.self) else {
                throw ConfigError(Translation.english("{file}, line {line}: the line is not UTF-8", at))
            }
            let trimmed = text.trimmingBlanksAndNewlines()
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let equals = trimmed.firstIndex(of: "=") else {
                throw ConfigError(Translation.english("{file}, line {line}: a line without \"=\" (each setting is key = value)", at))
            }
            let key = trimmed[..<equals].trimmingBlanks()
            let value = trimmed[trimmed.index(after: equals)...].trimmingBlanks()
            // The key is shown only when it is a plain word: a line could be a secret typed in the wrong place.
            let shownKey = key.count <= 40 && key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) }) ? key : "(not shown)"
            guard Self.keys.contains(key) else {
                throw ConfigError(Translation.english("{file}, line {line}: unknown key {key}", at.merging(["key": shownKey]) { a, _ in a }))
            }
            if let first = values[key] {
                throw ConfigError(Translation.english("{file}, line {line}: {key} is set twice (first on line {first})",
                                                      at.merging(["key": key, "first": "\(first.line)"]) { a, _ in a }))
            }
            guard !value.isEmpty else {
                throw ConfigError(Translation.english("{file}, line {line}: {key} has no value", at.merging(["key": key]) { a, _ in a }))
            }
            values[key] = (value, index + 1)
        }
        if let policy = values["policy"], let file = values["policy-file"] {
            throw ConfigError(Translation.english("{file}, line {line}: policy and policy-file (line {first}) name two policies: keep one", [
                "file": self.visiblePath, "line": "\(max(policy.line, file.line))", "first": "\(min(policy.line, file.line))"]))
        }
    }

    private static func visible(_ path: [UInt8]) -> String {
        VisibleText.of(String(decoding: path, as: UTF8.self))
    }
}

/// A configuration that cannot be used: a usage error (exit 64) that names the file and line,
/// never a value (a `database` may hold a password).
struct ConfigError: Error {
    /// The English text made from a catalog template (`Translation.english`).
    let english: String

    init(_ english: String) {
        self.english = english
    }

    /// The message in the reader's language, without `error: `.
    var text: String { About.text(english) }
}
