/// What a person would read on a simple terminal after the raw bytes of a session.
///
/// Raw pty output differs with `TERM`: libedit redraws an edited line with `\b`, `\r`,
/// spaces and, under `TERM=xterm`, CSI cursor sequences (`ESC[8G`, `ESC[K`); colour comes as
/// SGR sequences (`ESC[31m`). Comparing raw bytes would make transcripts depend on all of
/// that. So the bytes are replayed on a line-at-a-time model of a screen:
///
/// - `\n` starts a new line (`\r\n` is one line ending);
/// - `\r` moves to column 0, `\b` one column left, `\t` to the next multiple of 8;
/// - printable characters overwrite the cell under the cursor, then move right;
///   a combining mark joins the cell before it;
/// - CSI `n G` (column), `n C` (right), `n D` (left), `n @` (insert blanks), `n P` (delete),
///   `n X` (erase), `K` (erase to the end of the line, `1K` to its start, `2K` all of it) edit the line; every other escape sequence (SGR
///   colours, OSC titles, `ESC` + one character, other CSI) and control character is dropped;
/// - each line loses its trailing spaces; trailing empty lines are dropped.
///
/// Lines never scroll or move up: the wizard writes one short line at a time.
///
/// With a `width` (``render(_:width:resizes:)``) the screen also wraps as xterm does: a
/// character that does not fit in the last column goes to the start of a new row (a wide
/// character, CJK or emoji, takes two columns); `\b` never goes up a row. A resize cuts
/// every row to the new width without re-wrapping, as xterm does, and leaves the cursor on
/// its row.
public struct Screen: Sendable {
    /// The screen of a terminal without a width (no wrapping) after `bytes`.
    public static func render(_ bytes: [UInt8]) -> String {
        var screen = Screen(width: nil)
        screen.feed(bytes)
        return screen.text
    }

    /// The screen of a terminal `width` columns wide after `bytes`; each resize takes effect
    /// after the first `at` bytes.
    public static func render(_ bytes: [UInt8], width: Int, resizes: [(at: Int, width: Int)] = []) -> String {
        var screen = Screen(width: width)
        var start = 0
        for resize in resizes.sorted(by: { $0.at < $1.at }) {
            screen.feed(Array(bytes[start..<resize.at]))
            screen.resize(to: resize.width)
            start = resize.at
        }
        screen.feed(Array(bytes[start...]))
        return screen.text
    }

    /// Columns, or nil for rows that never wrap.
    public private(set) var width: Int?
    private var lines: [[String]] = []
    private var line: [String] = []
    private var column = 0

    /// An empty screen `width` columns wide (nil: rows never wrap).
    public init(width: Int?) { self.width = width }

    /// The rows shown: trailing spaces and trailing empty rows dropped.
    public var text: String {
        var text = (lines + [line]).map { cells in
            var row = cells.joined()
            while row.hasSuffix(" ") { row.removeLast() }
            return row
        }
        while text.last == "" { text.removeLast() }
        return text.joined(separator: "\n")
    }

    /// The window resized: every row cut to `newWidth`, as xterm does.
    public mutating func resize(to newWidth: Int) {
        width = newWidth
        lines = lines.map { Array($0.prefix(newWidth)) }
        line = Array(line.prefix(newWidth))
        column = min(column, newWidth - 1)
    }

    /// Columns a character takes with a width: 2 for East Asian wide characters and emoji.
    public static func columns(_ scalar: Unicode.Scalar) -> Int {
        let wide: [ClosedRange<UInt32>] = [0x1100...0x115F, 0x2E80...0x303E, 0x3041...0xA4CF, 0xAC00...0xD7A3,
                                           0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
                                           0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD]
        return wide.contains { $0.contains(scalar.value) } ? 2 : 1
    }

    private mutating func newRow() {
        lines.append(line)
        line = []
        column = 0
    }

    private mutating func put(_ cell: String, columns: Int) {
        if let width, column + columns > width { newRow() }
        while line.count < column { line.append(" ") }
        for offset in 0..<columns {
            let piece = offset == 0 ? cell : ""
            if column < line.count { line[column] = piece } else { line.append(piece) }
            column += 1
        }
    }

    /// Replays `bytes` written to the terminal.
    public mutating func feed(_ bytes: [UInt8]) {
        let scalars = Array(String(decoding: bytes, as: UTF8.self).unicodeScalars)
        let lastColumn = width.map { $0 - 1 } ?? Int.max
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            switch scalar.value {
            case 0x0A:
                newRow()
            case 0x0D:
                column = 0
            case 0x08:
                column = max(0, min(column, lastColumn) - 1)
            case 0x09:
                column = min((column / 8 + 1) * 8, lastColumn)
            case 0x1B:
                guard index < scalars.count else { break }
                let kind = scalars[index]
                index += 1
                if kind == "[" {
                    // CSI: parameter and intermediate bytes, then one final byte in 0x40...0x7E.
                    var parameters = ""
                    while index < scalars.count, !(0x40...0x7E).contains(scalars[index].value) {
                        parameters.unicodeScalars.append(scalars[index])
                        index += 1
                    }
                    guard index < scalars.count else { break }
                    let final = scalars[index]
                    index += 1
                    let n = Int(parameters) ?? 0
                    switch final {
                    case "G": column = min(max(0, max(n, 1) - 1), lastColumn)
                    case "C": column = min(column + max(n, 1), lastColumn)
                    case "D": column = max(0, column - max(n, 1))
                    case "@":  // insert blanks, shifting the rest of the line right
                        if column < line.count { line.insert(contentsOf: Array(repeating: " ", count: max(n, 1)), at: column) }
                        if let width, line.count > width { line.removeLast(line.count - width) }
                    case "P":  // delete characters, shifting the rest left
                        if column < line.count { line.removeSubrange(column..<min(line.count, column + max(n, 1))) }
                    case "X":  // erase characters
                        if column < line.count { for cell in column..<min(line.count, column + max(n, 1)) { line[cell] = " " } }
                    case "K":
                        switch n {
                        case 1: for cell in 0..<min(column + 1, line.count) { line[cell] = " " }
                        case 2: line = []
                        default: if column < line.count { line.removeSubrange(column...) }
                        }
                    default: break
                    }
                } else if kind == "]" {
                    // OSC: up to BEL or ESC \.
                    while index < scalars.count, scalars[index] != "\u{07}", scalars[index] != "\u{1B}" { index += 1 }
                    if index < scalars.count { index += scalars[index] == "\u{07}" ? 1 : 2 }
                } else if kind == "(" || kind == ")" {
                    index += 1  // a character-set designation: one more byte
                }
            case 0x00..<0x20, 0x7F:
                break
            default:
                let category = scalar.properties.generalCategory
                if category == .nonspacingMark || category == .enclosingMark, column > 0, column <= line.count {
                    var owner = column - 1
                    while owner > 0, line[owner].isEmpty { owner -= 1 }  // the first cell of a wide character
                    line[owner].unicodeScalars.append(scalar)
                } else {
                    put(String(scalar), columns: width == nil ? 1 : Self.columns(scalar))
                }
            }
        }
    }
}
