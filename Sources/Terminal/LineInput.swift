import SignupCore

/// Reads lines from a file descriptor for a script: `\n` or `\r\n` endings, at most
/// 64 KiB a line, invalid UTF-8 and NUL reported instead of passed on.
public final class LineInput {
    /// The longest line accepted, in bytes, not counting its ending.
    public static let limit = 64 * 1024

    /// One line's worth of input, judged.
    public enum Line: Equatable, Sendable {
        case text(String)
        case unreadable(InputProblem)
        case endOfInput
    }

    /// The descriptor lines come from.
    public let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false

    /// Lines from `fd`, which stays open: the caller closes it.
    public init(fd: Int32) {
        self.fd = fd
    }

    /// The next line; bytes past the limit are read and dropped up to the line's end.
    public func next() -> Line {
        var line: [UInt8] = []
        var overflowed = false
        while true {
            if start == buffer.count {
                if atEnd || !fill() {
                    atEnd = true
                    if line.isEmpty && !overflowed { return .endOfInput }
                    return judge(line, overflowed: overflowed)
                }
            }
            let end = buffer[start...].firstIndex(of: UInt8(ascii: "\n"))
            let chunkEnd = end ?? buffer.count
            if !overflowed {
                line.append(contentsOf: buffer[start..<chunkEnd])
                if line.count > Self.limit + 1 {
                    overflowed = true
                    line.removeAll()
                }
            }
            start = end.map { $0 + 1 } ?? buffer.count
            if end != nil { return judge(line, overflowed: overflowed) }
        }
    }

    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let got = chunk.withUnsafeMutableBytes { bytes -> Int in
            while true {
                switch try? Sys.read(fd, into: bytes) {
                case .bytes(let count)?: return count
                case .interrupted?: continue
                case .endOfFile?, .wouldBlock?, nil: return 0
                }
            }
        }
        guard got > 0 else { return false }
        buffer = Array(chunk[..<got])
        start = 0
        return true
    }

    private func judge(_ bytes: [UInt8], overflowed: Bool) -> Line {
        var bytes = bytes
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        if overflowed || bytes.count > Self.limit { return .unreadable(.tooLong(limit: Self.limit)) }
        if bytes.contains(0) { return .unreadable(.nulByte) }
        guard let text = String(validating: bytes, as: UTF8.self) else { return .unreadable(.invalidUTF8) }
        return .text(text)
    }
}
