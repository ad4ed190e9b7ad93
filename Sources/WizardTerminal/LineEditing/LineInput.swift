import Glibc
import SignupCore

/// Reads lines from a file descriptor for a script: `\n`, `\r\n` or a lone `\r` ends a line,
/// at most 64 KiB a line, invalid UTF-8 and NUL reported instead of passed on.
///
/// A lone `\r` is a line end (old Mac files, a terminal in raw mode, expect's `send "…\r"`):
/// no answer may hold a control character anyway, and read as one line, a password after
/// the `\r` would be echoed as part of the email.
///
/// Reading is bounded: a line over the limit is reported as soon as the limit is passed;
/// what is left of it is skipped only up to ``skipLimit`` (when more lines are wanted) and
/// then the stream is abandoned, so an endless line (`< /dev/zero`) costs a few MiB of
/// reading, never a busy loop or unbounded memory.
public final class LineInput {
    /// The longest line accepted, in bytes, not counting its ending.
    public static let limit = 64 * 1024
    /// How far into an over-long line reading goes to find its end before giving up on the stream.
    public static let skipLimit = 4 * 1024 * 1024

    /// One line's worth of input, judged.
    public enum Line: Equatable, Sendable {
        /// A line of valid UTF-8, without its ending.
        case text(String)
        /// A line that cannot be an answer: not UTF-8, a NUL byte, or longer than ``LineInput/limit``.
        case unreadable(InputProblem)
        /// No more lines: the input ended, or was abandoned after an endless line.
        case endOfInput
    }

    /// The descriptor lines come from.
    public let fd: Int32
    /// Whether only the first line matters (a password file): an over-long one ends the reading at once.
    private let oneLine: Bool
    /// The errno of a read that failed; reading stops and reports end of input after it.
    public private(set) var readError: Int32?
    /// The number of the line (1 for the first) whose end was not found within ``skipLimit``
    /// bytes: reading stopped there, and the end of input reported after it is not the input's
    /// end. A reader that must account for every line says so.
    public private(set) var abandonedAtLine: Int?
    /// How far into an over-long line this reader goes to find its end (``LineInput/skipLimit``
    /// unless told otherwise).
    private let skipLimit: Int
    private var buffer = [UInt8](repeating: 0, count: 16 * 1024)
    private var start = 0
    private var count = 0
    private var atEnd = false
    private var linesRead = 0
    /// The last line ended with `\r`: a `\n` right after it belongs to the same line end.
    private var afterCarriageReturn = false

    /// Lines from `fd`, which stays open: the caller closes it. With `oneLine`, the reader
    /// never reads past what the first line needs. `skipLimit` bounds how far the rest of an
    /// over-long line is read to find its end: a regular file, whose end is near, may be given
    /// `Int.max`, so that every line after an over-long one is still read.
    public init(fd: Int32, oneLine: Bool = false, skipLimit: Int = LineInput.skipLimit) {
        self.fd = fd
        self.oneLine = oneLine
        self.skipLimit = skipLimit
    }

    deinit {
        buffer.withUnsafeMutableBytes { Sys.zero($0) }
    }

    /// Hands the bytes read past the last line back to a seekable descriptor (a regular file),
    /// so whoever reads it next starts right after that line; false when there were none or the
    /// descriptor cannot move back (a pipe, a terminal: its reader must be kept for the next lines).
    func giveBackUnread() -> Bool {
        if afterCarriageReturn, start < count, buffer[start] == UInt8(ascii: "\n") {
            start += 1  // the rest of the last line's CR LF
            afterCarriageReturn = false
        }
        guard !atEnd, start < count, Sys.moveBack(fd, by: count - start) else { return false }
        forgetConsumed()
        start = 0
        count = 0
        return true
    }

    /// Zeroes the bytes of the lines already handed out (they may have held a secret), keeping
    /// the ones read past them for the next line.
    func forgetConsumed() {
        buffer.withUnsafeMutableBytes { Sys.zero(UnsafeMutableRawBufferPointer(rebasing: $0[0..<start])) }
    }

    /// Whether no line is left: the input ended or was abandoned.
    var isAtEnd: Bool { atEnd && start == count }

    /// The next line. A leading UTF-8 byte-order mark at the very start of the stream is
    /// dropped: it marks the encoding of a file, it is not part of the first answer.
    public func next() -> Line {
        var line: [UInt8] = []
        defer { line.withUnsafeMutableBytes { Sys.zero($0) } }
        var scanned = 0
        var overflowed = false
        if afterCarriageReturn {
            afterCarriageReturn = false
            if start == count, !atEnd, !fill() { atEnd = true }
            if start < count, buffer[start] == UInt8(ascii: "\n") { start += 1 }
        }
        while true {
            if start == count {
                if atEnd || !fill() {
                    atEnd = true
                    if line.isEmpty && !overflowed { return .endOfInput }
                    return finish(line, overflowed: overflowed)
                }
            }
            let newline = newlineIndex()
            let chunkEnd = newline ?? count
            if !overflowed {
                // The first line may also hold the byte-order mark that is not part of it.
                if line.count + (chunkEnd - start) > Self.limit + (linesRead == 0 ? Self.byteOrderMark.count : 0) {
                    overflowed = true
                    line.withUnsafeMutableBytes { Sys.zero($0) }
                    line.removeAll()
                    if oneLine {
                        atEnd = true
                        return finish(line, overflowed: true)
                    }
                } else {
                    line.append(contentsOf: buffer[start..<chunkEnd])
                }
            }
            scanned += chunkEnd - start
            start = newline.map { $0 + 1 } ?? count
            if let newline {
                afterCarriageReturn = buffer[newline] == UInt8(ascii: "\r")
                return finish(line, overflowed: overflowed)
            }
            if overflowed && scanned > skipLimit {
                atEnd = true  // out of step with the answers: nothing after this can be trusted
                abandonedAtLine = linesRead + 1
                return finish(line, overflowed: true)
            }
        }
    }

    /// The index of the next `\n` or `\r` in the unread part of the buffer (memchr: skipping an
    /// endless line stays cheap).
    private func newlineIndex() -> Int? {
        buffer.withUnsafeBytes { bytes in
            let base = bytes.baseAddress!
            let search = { (byte: UInt8, length: Int) in
                memchr(base + self.start, Int32(byte), length).map { UnsafeRawPointer($0) - base }
            }
            let newline = search(UInt8(ascii: "\n"), count - start)
            // A `\r` counts only before the first `\n`.
            return search(UInt8(ascii: "\r"), (newline ?? count) - start) ?? newline
        }
    }

    /// Judges a complete line as ``judge(_:)`` does, after its `\r` and a leading byte-order mark.
    private func finish(_ bytes: [UInt8], overflowed: Bool) -> Line {
        defer { linesRead += 1 }
        if overflowed { return .unreadable(.tooLong(limit: Self.limit)) }
        var bytes = bytes[...]
        if linesRead == 0 && bytes.starts(with: Self.byteOrderMark) { bytes.removeFirst(Self.byteOrderMark.count) }
        return Self.judge(bytes)
    }

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// The one judgement of outside bytes as an answer, for every source of text (lines,
    /// `--email`, `SIGNUP_PASSWORD`): longer than ``limit``, holding NUL, or not UTF-8 is a
    /// problem; anything else is the text, never repaired.
    public static func judge<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Line {
        if bytes.count > limit { return .unreadable(.tooLong(limit: limit)) }
        if bytes.contains(0) { return .unreadable(.nulByte) }
        guard let text = String(validating: bytes, as: UTF8.self) else { return .unreadable(.invalidUTF8) }
        return .text(text)
    }

    /// Reads the next chunk; false at end of input or after a read error. A descriptor left
    /// non-blocking by whoever opened it is waited on with `poll`, not spun on.
    private func fill() -> Bool {
        while true {
            let result: ReadResult
            do {
                result = try buffer.withUnsafeMutableBytes { bytes in try Sys.read(fd, into: bytes) }
            } catch {
                readError = (error as? SystemError)?.code ?? EIO
                return false
            }
            switch result {
            case .bytes(let got):
                start = 0
                count = got
                return true
            case .interrupted:
                continue
            case .wouldBlock:
                _ = try? Sys.poll(input: fd, wake: -1, timeoutMilliseconds: -1)
            case .endOfFile:
                return false
            }
        }
    }
}
