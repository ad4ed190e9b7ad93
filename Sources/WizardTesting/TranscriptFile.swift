import Glibc
import Testing

/// A recorded transcript: a text file beside a test that holds what a form showed, compared with
/// what it shows now and re-recorded on request.
///
/// ```swift
/// expectTranscript(terminal.screen, matches: "sign-up.transcript")  // Tests/MyTests/sign-up.transcript
/// ```
///
/// Run the tests with `WIZARD_RECORD=1` to write every compared file from what the form shows
/// (a file that does not exist yet is written too, and the test fails once so it is noticed).
public struct TranscriptFile: Sendable {
    /// The environment variable that makes every comparison write its file instead.
    public static let recordVariable = "WIZARD_RECORD"

    /// The file's path.
    public let path: String

    /// The file `name` in the folder of the test file `filePath` (`#filePath`).
    public init(_ name: String, besideTestFile filePath: String) {
        let folder = filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        path = name.hasPrefix("/") ? name : folder + "/" + name
    }

    /// What a comparison found.
    public enum Comparison: Equatable, Sendable {
        /// The file holds the text.
        case matches
        /// The file holds another text: a line diff, `-` for the file's lines, `+` for the new ones.
        case differs(diff: String)
        /// The file was written with the text: recording was asked for, or there was no file.
        case recorded(wasMissing: Bool)
    }

    /// Whether `WIZARD_RECORD` asks for recording (set and not `0` or empty).
    public static var recordingRequested: Bool {
        guard let value = getenv(recordVariable).map({ String(cString: $0) }) else { return false }
        return !value.isEmpty && value != "0"
    }

    /// Compares `text` (line endings normalised to `\n`, a final line ending added) with the
    /// file; writes the file instead when `recording` or when it does not exist.
    public func compare(_ text: String, recording: Bool = TranscriptFile.recordingRequested) throws -> Comparison {
        let text = Self.normalized(text)
        let recorded = Self.read(path).map(Self.normalized)
        if !recording, let recorded {
            // Both end in one line ending: the diff is of the lines before it.
            return recorded == text ? .matches : .differs(diff: lineDiff(expected: String(recorded.dropLast()), actual: String(text.dropLast())))
        }
        try Self.write(text, to: path)
        return .recorded(wasMissing: recorded == nil)
    }

    static func normalized(_ text: String) -> String {
        var text = text.replacing("\r\n", with: "\n")
        if !text.hasSuffix("\n") { text += "\n" }
        return text
    }

    private static func read(_ path: String) -> String? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count == 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func write(_ text: String, to path: String) throws {
        // The folders on the way (a test's `Transcripts/`), made as needed.
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        for count in 1..<max(parts.count + 1, 1) {
            let folder = parts.prefix(count).joined(separator: "/")
            if !folder.isEmpty { mkdir(folder, 0o755) }
        }
        guard let file = fopen(path, "wb") else {
            throw PseudoTerminal.Failure(message: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        let bytes = Array(text.utf8)
        let written = fwrite(bytes, 1, bytes.count, file)
        guard fclose(file) == 0, written == bytes.count else {
            throw PseudoTerminal.Failure(message: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}

/// Expects `text` (a screen, ``PseudoTerminal/screen``, or a script's output) to match the
/// transcript file `name` beside the calling test file; records an issue with a line diff when
/// it does not. With `WIZARD_RECORD=1` it writes the file instead; a missing file is written and
/// reported once.
public func expectTranscript(
    _ text: String, matches name: String, filePath: String = #filePath, sourceLocation: SourceLocation = #_sourceLocation
) {
    let file = TranscriptFile(name, besideTestFile: filePath)
    do {
        switch try file.compare(text) {
        case .matches, .recorded(wasMissing: false):
            break
        case .recorded(wasMissing: true):
            Issue.record("no transcript \(file.path) yet: written from this run; check it and run again", sourceLocation: sourceLocation)
        case .differs(let diff):
            Issue.record(
                "\(file.path) differs (- recorded, + now; \(TranscriptFile.recordVariable)=1 re-records it):\n\(diff)",
                sourceLocation: sourceLocation)
        }
    } catch {
        Issue.record(error, sourceLocation: sourceLocation)
    }
}

/// A line diff of `expected` against `actual`: `-` lines are expected only, `+` lines actual
/// only, unchanged lines indented by two spaces; control characters shown as `\u{1B}` and
/// trailing spaces as `·`.
public func lineDiff(expected: String, actual: String) -> String {
    let a = expected.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let b = actual.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    // Longest common subsequence table, from the ends.
    var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in stride(from: a.count - 1, through: 0, by: -1) {
        for j in stride(from: b.count - 1, through: 0, by: -1) {
            table[i][j] = a[i] == b[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
        }
    }
    var lines: [String] = []
    var i = 0, j = 0
    while i < a.count || j < b.count {
        if i < a.count, j < b.count, a[i] == b[j] {
            lines.append("  " + a[i]); i += 1; j += 1
        } else if i < a.count, j == b.count || table[i + 1][j] >= table[i][j + 1] {
            lines.append("- " + a[i]); i += 1
        } else {
            lines.append("+ " + b[j]); j += 1
        }
    }
    return lines.map(visible).joined(separator: "\n")
}

/// `text` with control characters shown as `\u{1B}` and trailing spaces shown as `·`.
public func visible(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
        if scalar.value < 0x20 || scalar.value == 0x7F {
            out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        } else {
            out.unicodeScalars.append(scalar)
        }
    }
    let trailing = out.reversed().prefix { $0 == " " }.count
    return String(out.dropLast(trailing)) + String(repeating: "·", count: trailing)
}

extension PseudoTerminal {
    /// What a person reads on the terminal now: the raw bytes replayed on a ``Screen``.
    public var screen: String { Screen.render(transcript) }
}
