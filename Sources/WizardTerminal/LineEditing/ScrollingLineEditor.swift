import CLibedit
import SignupCore

/// What `LineSource` asks of the editor whose keys it reads: libedit, or `ScrollingLineEditor`.
protocol LineEditing {
    /// Whether the line being edited is empty (Ctrl-D there ends the input).
    var lineIsEmpty: Bool { get }
    /// Bytes in the line being edited, for the 64 KiB limit.
    var lineByteCount: Int { get }
    /// Draws the prompt and the line again, from the start of the row (after Ctrl-Z and `fg`).
    func refresh()
    /// Re-reads the terminal's width after SIGWINCH.
    func resize()
    /// Called when every key typed so far has been handled and the read is about to wait.
    func willWait()
}

extension EditLineHandle: LineEditing {
    func willWait() {}
}

/// The line editor of the no-escape mode (`--plain`, `NO_COLOR`, `TERM` dumb, unset or
/// unknown): one row that never wraps and scrolls sideways, like readline's
/// horizontal-scroll-mode.
///
/// A dumb terminal cannot move the cursor up, so a line that wrapped onto a second row can
/// never be redrawn: libedit's dumb mode garbles it. Here the prompt and the part of the
/// line around the cursor always fit in one row (the last column stays empty, so the
/// terminal never wraps), and every change redraws that row with only `\r`, the prompt, the
/// visible text, spaces over what is left of the previous drawing, and `\b` back to the
/// cursor: no escape sequence at all, and each redraw is one coherent line for a person or
/// a screen reader. The keys come from `LineSource` as the control keys libedit's emacs
/// bindings use (`EditingKey.libeditKeys`), so both editors obey the same keys.
final class ScrollingLineEditor: LineEditing {
    /// How many lines `remember` keeps, oldest forgotten first.
    static let historySize = 100

    private let output: Int32
    private var columns = 80
    /// The prompt as given, less its invisible parts.
    private var fullPrompt = ""
    /// What is drawn before the text on the row: the prompt, or nothing once the prompt was too
    /// wide to leave room for the text and was written on a row of its own above.
    private var prompt = ""
    private var promptWidth = 0
    private var text: [Character] = []
    /// Display form (`VisibleText.of`) and width of each character of `text`.
    private var cells: [(shown: String, width: Int)] = []
    private var cursor = 0
    /// Index of the first character drawn.
    private var scroll = 0
    /// The cells on the row after the prompt, as last drawn, and the cursor's column among them.
    private var drawn: [(shown: String, width: Int)] = []
    private var drawnCursor = 0
    private var dirty = false
    private var history: [String] = []
    private var historyIndex = 0
    private var liveLine: [Character] = []

    init(output: Int32) {
        self.output = output
    }

    var lineIsEmpty: Bool { text.isEmpty }
    var lineByteCount: Int { text.reduce(0) { $0 + $1.utf8.count } }

    func refresh() { draw(full: true) }

    func resize() { draw(full: true) }

    func willWait() { if dirty { draw() } }

    /// Adds `line` to this session's history (memory only), unless it repeats the newest entry.
    func remember(_ line: String) {
        guard history.last != line else { return }
        history.append(line)
        if history.count > Self.historySize { history.removeFirst(history.count - Self.historySize) }
    }

    /// Reads one line, with `initial` on it to start from; nil at end of input or on Ctrl-C
    /// (`source.ending` says which). `prompt` is drawn without its `\u{1}`-wrapped parts.
    func readLine(prompt: String, initial: String, source: LineSource) -> String? {
        fullPrompt = Self.withoutInvisibleParts(prompt)
        self.prompt = fullPrompt
        promptWidth = Self.width(of: fullPrompt)
        columns = Sys.terminalColumns(output)
        if !Self.leavesRoom(promptWidth, columns: columns) { send(promptOnItsOwnRow()) }
        setText(Array(initial))
        historyIndex = history.count
        liveLine = []
        drawn = []
        draw(full: true)
        defer { dirty = false }
        while let key = nextKey(source) {
            switch key {
            case 0x0D, 0x0A:
                if dirty { draw() }
                send("\n")
                return String(text)
            case 0x1B:
                guard let second = nextKey(source) else { return nil }
                metaKey(second)
            default:
                controlOrText(key)
            }
            // At every key, not only when drawn: where the window stands must not depend on how
            // the keys were grouped into reads.
            scrollToCursor()
            dirty = true
        }
        return nil
    }

    // MARK: - Editing

    private func nextKey(_ source: LineSource) -> wchar_t? {
        var key: wchar_t = 0
        return source.nextCharacter(into: &key) == 1 ? key : nil
    }

    private func controlOrText(_ key: wchar_t) {
        switch key {
        case 0x01: cursor = 0  // Ctrl-A, Home
        case 0x05: cursor = text.count  // Ctrl-E, End
        case 0x02: cursor = max(0, cursor - 1)  // Ctrl-B, Left
        case 0x06: cursor = min(text.count, cursor + 1)  // Ctrl-F, Right
        case 0x08, 0x7F: if cursor > 0 { remove((cursor - 1)..<cursor) }  // Backspace
        case 0x04: if cursor < text.count { remove(cursor..<(cursor + 1)) }  // Ctrl-D, Delete
        case 0x0B: remove(cursor..<text.count)  // Ctrl-K
        case 0x15: remove(0..<text.count)  // Ctrl-U: the whole line, as libedit's emacs binding
        case 0x17: remove(wordStart(before: cursor)..<cursor)  // Ctrl-W
        case 0x10: recall(historyIndex - 1)  // Ctrl-P, Up
        case 0x0E: recall(historyIndex + 1)  // Ctrl-N, Down
        case 0x0C: draw(full: true)  // Ctrl-L
        case 0x00..<0x20: break  // other control keys (Tab too) do nothing, as nothing invisible may be typed
        default:
            guard let scalar = Unicode.Scalar(UInt32(bitPattern: key)) else { return }
            insert(scalar)
        }
    }

    /// The second key of libedit's two-key Meta bindings (`EditingKey.libeditKeys`).
    private func metaKey(_ key: wchar_t) {
        switch key {
        case wchar_t(UInt8(ascii: "b")): cursor = wordStart(before: cursor)
        case wchar_t(UInt8(ascii: "f")): cursor = wordEnd(after: cursor)
        case 0x7F: remove(wordStart(before: cursor)..<cursor)
        case wchar_t(UInt8(ascii: "d")): remove(cursor..<wordEnd(after: cursor))
        default: break
        }
    }

    private func insert(_ scalar: Unicode.Scalar) {
        // A combining mark (or a modifier, a joiner) joins the character before it, as on screen.
        if cursor > 0, !scalar.isASCII {
            var joined = String(text[cursor - 1])
            joined.unicodeScalars.append(scalar)
            if joined.count == 1 {
                text[cursor - 1] = Character(joined)
                cells[cursor - 1] = Self.cell(text[cursor - 1])
                return
            }
        }
        let character = Character(scalar)
        text.insert(character, at: cursor)
        cells.insert(Self.cell(character), at: cursor)
        cursor += 1
    }

    private func remove(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        text.removeSubrange(range)
        cells.removeSubrange(range)
        if cursor > range.lowerBound { cursor = max(range.lowerBound, cursor - range.count) }
    }

    private func setText(_ characters: [Character]) {
        text = characters
        cells = characters.map(Self.cell)
        cursor = text.count
        scroll = 0
    }

    private func recall(_ index: Int) {
        guard index >= 0, index <= history.count, index != historyIndex else { return }
        if historyIndex == history.count { liveLine = text }
        historyIndex = index
        setText(index == history.count ? liveLine : Array(history[index]))
    }

    private static func isWordCharacter(_ character: Character) -> Bool { character.isLetter || character.isNumber }

    private func wordStart(before index: Int) -> Int {
        var start = index
        while start > 0, !Self.isWordCharacter(text[start - 1]) { start -= 1 }
        while start > 0, Self.isWordCharacter(text[start - 1]) { start -= 1 }
        return start
    }

    private func wordEnd(after index: Int) -> Int {
        var end = index
        while end < text.count, !Self.isWordCharacter(text[end]) { end += 1 }
        while end < text.count, Self.isWordCharacter(text[end]) { end += 1 }
        return end
    }

    // MARK: - Drawing

    /// Columns the text may use: the row minus the prompt and the last column, which stays
    /// empty so the terminal never wraps (at least one, on a row narrower than the prompt).
    private var textColumns: Int { max(1, columns - 1 - promptWidth) }

    /// Keeps the cursor's character inside the window. A cursor that left it brings it back
    /// half a window away, so a person typing or moving sees the window jump now and then,
    /// not slide at every key; a line that fits shows from its start.
    private func scrollToCursor() {
        let room = textColumns
        if fitsWhole(room) {
            scroll = 0
            return
        }
        let cursorCell = cursor < cells.count ? cells[cursor].width : 0
        if cursor >= scroll, cells[scroll..<cursor].reduce(0, { $0 + $1.width }) + cursorCell <= room { return }
        scroll = cursor
        var before = 0
        while scroll > 0, before + cells[scroll - 1].width + cursorCell <= room / 2 {
            scroll -= 1
            before += cells[scroll].width
        }
    }

    /// Whether a prompt `width` columns wide leaves a useful window for the text on a row of
    /// `columns` (ten columns, or half the row on a very narrow one).
    private static func leavesRoom(_ width: Int, columns: Int) -> Bool {
        width + 1 + min(10, columns / 2) <= columns
    }

    /// Writes the whole prompt on its own row (or rows: it may wrap, it is never redrawn) and
    /// edits the line on the row below, with nothing before it.
    private func promptOnItsOwnRow() -> String {
        prompt = ""
        promptWidth = 0
        return "\r" + fullPrompt + "\n"
    }

    /// Whether the whole line fits in `room` columns; looks at no more than that many characters,
    /// so a key costs the same on a 64 KiB line as on a short one.
    private func fitsWhole(_ room: Int) -> Bool {
        var total = 0
        for cell in cells {
            total += cell.width
            if total > room { return false }
        }
        return true
    }

    /// Brings the row up to date: rewrites it from the first cell that changed (or from `\r`
    /// and the prompt when `full`, or when that is shorter than backing up), blanks what is
    /// left of the previous drawing, then backs up with `\b` to the cursor. Typing at the end
    /// of a line therefore writes just the character, as a terminal's own echo would.
    private func draw(full: Bool = false) {
        dirty = false
        // The width is read at every drawing, not only on SIGWINCH: keys read together with the
        // signal are drawn for the new width too. A terminal that cuts its rows when narrowed
        // keeps what was drawn in the column that is now the last: that column is blanked as
        // well, then the cursor is put back from `\r`, not with `\b` (after the last column,
        // `\b` moves differently on different terminals).
        var full = full
        var blankingLastColumn = false
        var lead = ""
        let measured = Sys.terminalColumns(output)
        if measured != columns {
            let reached = promptWidth + drawn.reduce(0) { $0 + $1.width }
            columns = measured
            full = true
            blankingLastColumn = reached >= columns - 1
            if !prompt.isEmpty, !Self.leavesRoom(promptWidth, columns: columns) {
                lead = "\r" + String(repeating: " ", count: min(reached, columns)) + promptOnItsOwnRow()
                drawn = []
                blankingLastColumn = false
            }
        }
        scrollToCursor()
        let room = textColumns
        var shown: [(shown: String, width: Int)] = []
        var used = 0
        var cursorColumn = 0
        var index = scroll
        while index < cells.count, used + cells[index].width <= room {
            if index == cursor { cursorColumn = used }
            shown.append(cells[index])
            used += cells[index].width
            index += 1
        }
        if cursor >= index { cursorColumn = used }
        let previousWidth = full ? min(room, drawn.reduce(0) { $0 + $1.width }) : drawn.reduce(0) { $0 + $1.width }
        var same = 0
        var sameColumns = 0
        if !full {
            while same < shown.count, same < drawn.count, shown[same].shown == drawn[same].shown {
                sameColumns += shown[same].width
                same += 1
            }
        }
        var line = lead
        var at = full ? Self.restart : drawnCursor
        if same == shown.count, same == drawn.count {
            move(&line, from: &at, to: cursorColumn, over: shown)
        } else {
            move(&line, from: &at, to: sameColumns, over: shown)
            for cell in shown[same...] { line += cell.shown }
            let blanks = max(0, min(previousWidth, room) - used)
            line += String(repeating: " ", count: blanks)
            at = used + blanks
            if blankingLastColumn {
                line += String(repeating: " ", count: max(0, columns - promptWidth - at))
                at = Self.restart
            }
            move(&line, from: &at, to: cursorColumn, over: shown)
        }
        drawn = shown
        drawnCursor = cursorColumn
        if !line.isEmpty { send(line) }
    }

    /// Where the cursor is before a full drawing: anywhere on the row, so it starts with `\r`.
    private static let restart = -1

    /// Moves the cursor from column `at` to `column` of the text, both at cell boundaries of `row`:
    /// back with `\b`, forward by writing the cells in between, or from `\r` and the prompt
    /// when that is shorter.
    private func move(_ line: inout String, from at: inout Int, to column: Int, over row: [(shown: String, width: Int)]) {
        guard at != column else { return }
        if at != Self.restart, column < at, at - column <= promptWidth + column {
            line += String(repeating: "\u{8}", count: at - column)
        } else {
            var start = 0
            if at == Self.restart || column < at {
                line += "\r" + prompt
            } else {
                start = at
            }
            var columns = 0
            for cell in row {
                if columns >= column { break }
                if columns >= start { line += cell.shown }
                columns += cell.width
            }
        }
        at = column
    }

    private func send(_ text: String) {
        var text = text
        text.withUTF8 { try? Sys.writeAll(output, UnsafeRawBufferPointer($0)) }
    }

    /// How `character` is shown (control and bidirectional characters made visible) and its width.
    private static func cell(_ character: Character) -> (shown: String, width: Int) {
        let shown = VisibleText.of(String(character))
        return (shown, width(of: shown))
    }

    /// Columns `text` takes: wide characters count 2, combining marks 0; an emoji sequence
    /// (with a joiner, a skin tone, a presentation selector, a flag) counts as its widest part,
    /// and at least 2 when it asks for emoji presentation or is a flag.
    static func width(of text: String) -> Int {
        text.reduce(0) { sum, character in
            var widest = 0
            var emoji = false
            for scalar in character.unicodeScalars {
                widest = max(widest, Sys.displayWidth(scalar))
                if scalar.value == 0xFE0F || (0x1F1E6...0x1F1FF).contains(scalar.value) { emoji = true }
            }
            return sum + (emoji ? max(widest, 2) : widest)
        }
    }

    /// `prompt` without the parts wrapped in `\u{1}` (invisible escape sequences, such as colour).
    static func withoutInvisibleParts(_ prompt: String) -> String {
        prompt.split(separator: "\u{1}", omittingEmptySubsequences: false)
            .enumerated().filter { $0.offset % 2 == 0 }.map(\.element).joined()
    }
}
