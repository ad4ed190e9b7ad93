import Foundation
import Glibc
import Testing
import WizardTesting

/// The no-escape mode (`--plain`, `NO_COLOR`, `TERM` dumb, unset or unknown) at a terminal
/// narrower than the email: the line never wraps, it scrolls sideways, and every redraw is
/// one coherent row made of `\r`, text, spaces and `\b` only.
@Suite struct NoEscapeEditingTests {
    /// Every way of asking for the no-escape mode, as environment changes over the pinned one
    /// (which has `TERM=xterm NO_COLOR=1`) and arguments.
    static let modes: [String: (arguments: [String], environment: [String: String?])] = [
        "NO_COLOR": ([], [:]),
        "--plain": (["--plain"], ["NO_COLOR": .none]),
        "TERM=dumb": ([], ["TERM": "dumb", "NO_COLOR": .none]),
        "TERM unset": ([], ["TERM": .none, "NO_COLOR": .none]),
        "TERM=nosuchterm": ([], ["TERM": "nosuchterm", "NO_COLOR": .none]),
    ]

    static let longEmail = "averyveryverylongname.with.many.parts@example.com"  // 49 characters
    /// `longEmail` after Left ×20, Backspace ×2 (the "ma" of "many") and "xy".
    static let editedEmail = "averyveryverylongname.with.xyny.parts@example.com"
    static let left = "\u{1B}[D"

    static func start(mode: String, scratch: ScratchFolder, columns: UInt16) throws -> PseudoTerminal {
        let (arguments, changes) = modes[mode]!
        var overrides = changes
        overrides["HOME"] = .some(scratch.path)
        overrides["COLUMNS"] = .some(String(columns))
        overrides["SIGNUP_PASSWORD"] = .some("Quartz-Lantern-58")
        return try PseudoTerminal(executable: signupBinary, arguments: ["--db", scratch.database] + arguments,
                                  environment: PseudoTerminal.environment(overrides), columns: columns)
    }

    /// `start` at 40 columns, once the email prompt is shown.
    static func startAtEmail(mode: String, scratch: ScratchFolder) throws -> PseudoTerminal {
        let terminal = try start(mode: mode, scratch: scratch, columns: 40)
        try terminal.expect("Email: ", timeout: 10)
        return terminal
    }

    /// Enter, then `y` at the review; the account must be created.
    static func finish(_ terminal: PseudoTerminal, typing text: String = "") throws {
        try terminal.send(text + "\r")
        try terminal.expect("Create account? [Y/n/e] ", timeout: 10)
        try terminal.send("y\r")
        #expect(try terminal.wait(timeout: 10) == .exited(0))
    }

    /// Types `longEmail` at 40 columns, Left ×20, (narrows the window to `shrinkTo` columns,)
    /// then Backspace ×2 and "xy"; the email row must be `row` and nothing else, with no
    /// escape byte anywhere, and the account must hold `editedEmail`.
    static func editLongEmail(mode: String, shrinkTo narrower: UInt16? = nil, row: String) throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.startAtEmail(mode: mode, scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        try terminal.send(Self.longEmail + String(repeating: Self.left, count: 20))
        var resizes: [(at: Int, width: Int)] = []
        if let narrower {
            terminal.settle()
            resizes.append((at: terminal.transcript.count, width: Int(narrower)))
            try terminal.setWindowSize(rows: 24, columns: narrower)  // the kernel sends SIGWINCH
            terminal.settle()  // the row is drawn again for the new width
        }
        try terminal.send("\u{7F}\u{7F}xy")
        try Self.finish(terminal)
        #expect(!terminal.transcript.contains(0x1B), "\(mode): an escape sequence reached the terminal")
        let rows = Screen.render(terminal.transcript, width: 40, resizes: resizes).components(separatedBy: "\n")
        let screen = "\(mode):\n\(rows.joined(separator: "\n"))"
        #expect(rows.filter { $0.hasPrefix("Email: ") } == [row], "\(screen)")
        #expect(rows.count > 2 && rows[0].hasPrefix("Create your account") && rows[1] == row && rows[2] == "Review",
                "a stale row: \(screen)")
        #expect(try scratch.storedEmails() == [Self.editedEmail])
    }

    @Test(arguments: modes.keys.sorted())
    func aLongEmailEditedInTheMiddleStaysOneCoherentRow(mode: String) throws {
        // 32 columns for the text (40, less "Email: ", less the last column, never written).
        // The cursor left them at the 33rd character: the window jumped half its width, to
        // start at the 18th; Left, Backspace and typing stayed inside it.
        try Self.editLongEmail(mode: mode, row: "Email: name.with.xyny.parts@example.com")
    }

    @Test(arguments: modes.keys.sorted())
    func shrinkingTheWindowWhileEditingALongEmailLeavesNoStaleRow(mode: String) throws {
        // 22 columns after the shrink; the cursor (after "ma" in "many") was still inside them.
        // The terminal cut the row at 30 columns; the 30th, never written at 40, is blanked.
        try Self.editLongEmail(mode: mode, shrinkTo: 30, row: "Email: name.with.xyny.parts@e")
    }

    /// CJK characters take two columns each: the row still never reaches the last column.
    @Test func wideCharactersAreMeasuredByTheirColumns() throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.startAtEmail(mode: "TERM=dumb", scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        try terminal.send("一二三四五六七八九十百千万亿兆京垓秭穰沟@example.com\r")
        terminal.settle()  // asked again or reviewed: the row typed on is what counts
        terminal.kill(SIGTERM)
        _ = try terminal.wait(timeout: 10)
        #expect(!terminal.transcript.contains(0x1B))
        let rows = Screen.render(terminal.transcript, width: 40).components(separatedBy: "\n")
        // 32 columns: sixteen wide characters. The 17th sent the window to start at the 10th
        // (九), half a window back; the 31st (m) sent it to the 19th (穰).
        #expect(rows.count > 2 && rows[1] == "Email: 穰沟@example.com", "\(rows.joined(separator: "\n"))")
        #expect(!rows[2].contains("example") && !rows[2].contains("沟"), "the line wrapped:\n\(rows.joined(separator: "\n"))")
    }

    /// At 12 columns "Email: " would leave 4 for the text: the prompt gets a row of its own and
    /// the line is edited on the row below it, still one row that never wraps.
    @Test func aPromptTooWideForTheRowGetsARowOfItsOwn() throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.start(mode: "TERM=dumb", scratch: scratch, columns: 12)
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        try Self.finish(terminal, typing: "bob@example.com")
        #expect(!terminal.transcript.contains(0x1B))
        let rows = Screen.render(terminal.transcript, width: 12).components(separatedBy: "\n")
        // 11 columns; the 12th character sent the window half of them back, to "m".
        let at = rows.firstIndex(of: "Email:") ?? rows.count  // after the banner, wrapped at 12 columns
        #expect(rows.count > at + 2 && rows[at + 1] == "mple.com" && rows[at + 2] == "Review", "\(rows.joined(separator: "\n"))")
        #expect(try scratch.storedEmails() == ["bob@example.com"])
    }

    /// Random editing keys in batches on a line longer than the row: after each batch the email
    /// row is one row showing a piece of the line (all of it when it fits) that never reaches
    /// the last column, and Enter stores exactly the line a plain model of the keys predicts.
    @Test(arguments: [1, 2, 3])
    func randomEditsAlwaysShowOneCoherentRow(seed: UInt64) throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.startAtEmail(mode: "NO_COLOR", scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        var random = SplitMix(seed: seed)
        var model: [Character] = Array("someone.with.a.long.name@example.com")
        var cursor = model.count
        try terminal.send(String(model))
        for batch in 0..<8 {
            var keys = ""
            for _ in 0..<(1 + random.next(12)) {
                switch random.next(9) {
                case 0: keys += Self.left; cursor = max(0, cursor - 1)
                case 1: keys += "\u{1B}[C"; cursor = min(model.count, cursor + 1)
                case 2: keys += "\u{1B}[H"; cursor = 0
                case 3: keys += "\u{1B}[F"; cursor = model.count
                case 4: keys += "\u{7F}"; if cursor > 0 { model.remove(at: cursor - 1); cursor -= 1 }
                case 5: keys += "\u{1B}[3~"; if cursor < model.count { model.remove(at: cursor) }
                default:
                    let letter = Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8(random.next(26))))
                    keys.append(letter)
                    model.insert(letter, at: cursor)
                    cursor += 1
                }
            }
            try terminal.send(keys)
            terminal.settle(quiet: 0.3)
            let rows = Screen.render(terminal.transcript, width: 40).components(separatedBy: "\n")
            let emailRows = rows.filter { $0.hasPrefix("Email: ") }
            let shown = String(emailRows.last?.dropFirst(7) ?? "")
            let line = String(model)
            #expect(emailRows.count == 1 && rows.count == 2, "seed \(seed) batch \(batch): \(rows)")
            #expect(shown.count <= 32 && (line.count <= 32 ? shown == line : line.contains(shown)),
                    "seed \(seed) batch \(batch): shows \(shown.debugDescription) of \(line.debugDescription)")
        }
        try Self.finish(terminal)
        #expect(try scratch.storedEmails() == [String(model)])
    }

    /// A C1 control (U+009B is CSI on some terminals) and a bidirectional override typed into the
    /// email are drawn visible while it is edited, never sent as they are.
    @Test func controlCharactersTypedAreDrawnVisible() throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.startAtEmail(mode: "TERM=dumb", scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        try terminal.send("a\u{9B}b\u{202E}c" + Self.left + "d\r")
        terminal.settle()
        terminal.kill(SIGTERM)
        _ = try terminal.wait(timeout: 10)
        #expect(!terminal.transcript.containsBytes([0xC2, 0x9B]) && !terminal.transcript.containsBytes([0xE2, 0x80, 0xAE]))
        #expect(!terminal.transcript.contains(0x1B))
        let rows = Screen.render(terminal.transcript, width: 40).components(separatedBy: "\n")
        #expect(rows.count > 1 && rows[1] == "Email: a<U+009B>b<U+202E>dc", "\(rows.joined(separator: "\n"))")
    }

    /// Up recalls the email typed earlier in this session; Down goes back to the line being typed.
    @Test func upAndDownRecallThisSessionsEmails() throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.startAtEmail(mode: "--plain", scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        try terminal.send("bob@\r")
        try terminal.expect("Email: ", timeout: 10)
        try terminal.send("zz\u{1B}[A\u{1B}[B\u{7F}\u{1B}[A" + "example.com")
        try Self.finish(terminal)
        #expect(try scratch.storedEmails() == ["bob@example.com"])
        let rows = Screen.render(terminal.transcript, width: 40).components(separatedBy: "\n")
        #expect(rows.contains("Email: bob@example.com"), "\(rows.joined(separator: "\n"))")
    }

    /// Ctrl-Z then `fg` in the middle of a long line: the row comes back with the same window,
    /// and editing goes on where it was.
    @Test func ctrlZThenFgRedrawsTheWindowOfALongLine() throws {
        let scratch = try ScratchFolder()
        let shell = try PseudoTerminal(
            executable: "/bin/bash", arguments: ["--norc", "--noprofile", "-i"],
            environment: PseudoTerminal.environment(["PS1": "$ ", "HOME": scratch.path, "COLUMNS": "40",
                                                     "SIGNUP_PASSWORD": "Quartz-Lantern-58"]),
            columns: 40)
        defer { shell.kill(SIGKILL) }
        try shell.expect("$ ")
        try shell.send("'\(signupBinary)' --db '\(scratch.database)'\r")
        try shell.expect("Email: ")
        try shell.send(Self.longEmail + String(repeating: Self.left, count: 20))
        shell.settle()
        try shell.stopAndContinue(redrawing: "Email: ")
        try shell.send("\u{7F}\u{7F}xy\r")
        try shell.expect("[Y/n/e] ")
        try shell.send("y\r")
        try shell.expect("$ ")
        let rows = Screen.render(shell.transcript, width: 40).components(separatedBy: "\n")
        #expect(rows.filter { $0.hasPrefix("Email: ") }.last == "Email: name.with.xyny.parts@example.com", "\(rows.joined(separator: "\n"))")
        #expect(try scratch.storedEmails() == [Self.editedEmail])
    }

    @Test func theScreenModelWrapsAndResizesAsXtermDoes() {
        #expect(Screen.render(Array("abcdefgh".utf8), width: 5) == "abcde\nfgh")
        #expect(Screen.render(Array("abcde\u{8}\u{8}X\r\n".utf8), width: 5) == "abXde")
        #expect(Screen.render(Array("ab一二".utf8), width: 5) == "ab一\n二")
        #expect(Screen.render(Array("abcdefgh\rxy".utf8), width: 10, resizes: [(at: 8, width: 4)]) == "xycd")
    }
}

/// A small seeded generator (SplitMix64), so a failing run can be repeated.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    /// A number in 0..<bound.
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
