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
enum Screen {
    static func render(_ bytes: [UInt8]) -> String {
        let scalars = Array(String(decoding: bytes, as: UTF8.self).unicodeScalars)
        var lines: [[String]] = []
        var line: [String] = []
        var column = 0

        func put(_ cell: String) {
            while line.count < column { line.append(" ") }
            if column < line.count { line[column] = cell } else { line.append(cell) }
            column += 1
        }

        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            switch scalar.value {
            case 0x0A:
                lines.append(line)
                line = []
                column = 0
            case 0x0D:
                column = 0
            case 0x08:
                column = max(0, column - 1)
            case 0x09:
                column = (column / 8 + 1) * 8
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
                    case "G": column = max(0, max(n, 1) - 1)
                    case "C": column += max(n, 1)
                    case "D": column = max(0, column - max(n, 1))
                    case "@":  // insert blanks, shifting the rest of the line right
                        if column < line.count { line.insert(contentsOf: Array(repeating: " ", count: max(n, 1)), at: column) }
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
                if scalar.properties.generalCategory == .nonspacingMark || scalar.properties.generalCategory == .enclosingMark,
                   column > 0, column <= line.count {
                    line[column - 1].unicodeScalars.append(scalar)
                } else {
                    put(String(scalar))
                }
            }
        }
        lines.append(line)
        var text = lines.map { cells in
            var row = cells.joined()
            while row.hasSuffix(" ") { row.removeLast() }
            return row
        }
        while text.last == "" { text.removeLast() }
        return text.joined(separator: "\n")
    }
}
