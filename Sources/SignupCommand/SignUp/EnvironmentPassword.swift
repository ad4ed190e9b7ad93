import CSystem
import Glibc
import WizardTerminal

/// `SIGNUP_PASSWORD`, read once at start-up as raw bytes, then scrubbed.
enum EnvironmentPassword {
    /// The variable's name.
    static let name = "SIGNUP_PASSWORD"

    /// The value judged like any line (64 KiB, NUL, UTF-8, never repaired), or nil when unset.
    /// Taking it the first time also scrubs it: `main` does so before anything else runs.
    static let taken: LineInput.Line? = take(name)

    /// Reads the first `NAME=` entry of the environment as bytes, then overwrites the value of
    /// every such entry where it lies and removes the variable.
    ///
    /// Overwriting matters because `unsetenv` only drops the pointer: the bytes stay in the
    /// block the kernel placed at start-up, which `/proc/PID/environ` and `ps eww` show.
    /// Removing it keeps it from every child process.
    static func take(_ name: String) -> LineInput.Line? {
        let prefix = Array((name + "=").utf8)
        var value: LineInput.Line?
        var entry = signup_environment()
        while let pointer = entry?.pointee {
            let length = strlen(pointer)
            let bytes = UnsafeMutableRawBufferPointer(start: pointer, count: length)
            if length >= prefix.count && bytes.prefix(prefix.count).elementsEqual(prefix) {
                let valueBytes = UnsafeMutableRawBufferPointer(rebasing: bytes[prefix.count...])
                if value == nil { value = LineInput.judge(valueBytes) }
                if let base = valueBytes.baseAddress { explicit_bzero(base, valueBytes.count) }
            }
            entry = entry?.successor()
        }
        unsetenv(name)
        return value
    }
}
