import AccountStore
import ArgumentParser
import Glibc

/// `--db` as the bytes the user gave, and the store location it chooses (SPEC 8).
enum StoreOption {
    /// The location for this run: `--db`, else `SIGNUP_DB`, XDG_DATA_HOME or HOME, all read as raw bytes.
    ///
    /// `given` is the parsed option, used only to know whether `--db` was given: its
    /// text went through `CommandLine.arguments`, which replaces bytes that are not
    /// UTF-8, so the value itself is read again from `argv`. A location that cannot be
    /// used is a usage error that does not repeat the value.
    static func location(given: String?) throws -> StoreLocation {
        do {
            return try StoreLocation.chosen(option: given == nil ? nil : rawValue(of: "--db") ?? Array(given!.utf8))
        } catch {
            // PostgreSQL named but libpq missing: the store cannot be reached (74), the text is fine.
            if case .unavailable(let reason) = error, reason.hasPrefix(StoreLocation.postgresUnavailable) {
                IO.write("error: --db or SIGNUP_DB: \(reason)\n", to: 2)
                throw ExitCode(ExitStatus.storage)
            }
            throw ValidationError("--db or SIGNUP_DB: \(error.description)")
        }
    }

    /// The bytes of the last `--db VALUE` or `--db=VALUE` before `--`, as in `argv`.
    static func rawValue(of option: String) -> [UInt8]? {
        let arguments = (0..<Int(CommandLine.argc)).map { index -> [UInt8] in
            guard let pointer = CommandLine.unsafeArgv[index] else { return [] }
            return Array(UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer)))
        }
        let name = Array(option.utf8)
        var value: [UInt8]?
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            if argument == Array("--".utf8) { break }
            if argument == name, index + 1 < arguments.count {
                value = arguments[index + 1]
                index += 2
                continue
            }
            if argument.starts(with: name + [UInt8(ascii: "=")]) { value = Array(argument.dropFirst(name.count + 1)) }
            index += 1
        }
        return value
    }
}
