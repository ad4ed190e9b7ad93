import Glibc

/// The command line as the kernel passed it: bytes, not the repaired `String`s of
/// `CommandLine.arguments` (where invalid UTF-8 became U+FFFD).
enum RawArguments {
    /// The bytes of the value `parsed` of option `option` (`--email a` or `--email=a`), the
    /// last one given as the parser keeps the last; nil when not found.
    static func value(of option: String, parsed: String) -> [UInt8]? {
        let arguments = (0..<Int(CommandLine.argc)).map { index -> [UInt8] in
            guard let pointer = CommandLine.unsafeArgv[index] else { return [] }
            return Array(UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)))
        }
        let name = Array(option.utf8)
        let joined = name + [UInt8(ascii: "=")]
        for index in arguments.indices.reversed() {
            let argument = arguments[index]
            if argument.starts(with: joined) {
                let value = Array(argument.dropFirst(joined.count))
                if String(decoding: value, as: UTF8.self) == parsed { return value }
            } else if argument == name, index + 1 < arguments.count,
                      String(decoding: arguments[index + 1], as: UTF8.self) == parsed {
                return arguments[index + 1]
            }
        }
        return nil
    }
}
