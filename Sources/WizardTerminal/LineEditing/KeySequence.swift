import Glibc

/// What an escape sequence from the keyboard means, whatever terminal family sent it.
///
/// xterm, rxvt, screen/tmux, the Linux console and vt100 send the same key in different
/// ways (Home is `ESC[H`, `ESCOH`, `ESC[1~` or `ESC[7~`). `LineSource` names each one here
/// and hands libedit one fixed control key per editing job, so editing never depends on
/// `TERM` or libedit's key tables, and no byte of a sequence can become text.
enum EditingKey: Equatable {
    case left, right, up, down
    case home, end
    case deleteForward
    case wordLeft, wordRight
    case deleteWordBackward, deleteWordForward
    case enter
    /// A key of the numeric keypad in application mode, which types this character.
    case keypad(UInt8)
    /// A key with no editing job here (F1–F12, Insert, Page Up/Down, paste markers, focus
    /// reports, unknown sequences): dropped.
    case ignored

    /// Names the sequence `bytes` (ESC included), as read by `LineSource.readEscapeSequence`.
    init(sequence bytes: [UInt8]) {
        guard bytes.count >= 2, bytes[0] == 0x1B else { self = .ignored; return }
        var body = bytes[1...]
        while body.first == 0x1B { body = body.dropFirst() }  // ESC ESC [ A: Alt with an arrow
        guard let introducer = body.first else { self = .ignored; return }
        switch introducer {
        case UInt8(ascii: "["):
            self = Self.csi(Array(body.dropFirst()))
        case UInt8(ascii: "O"):
            self = Self.ss3(Array(body.dropFirst()))
        case UInt8(ascii: "b"), UInt8(ascii: "B"): self = body.count == 1 ? .wordLeft : .ignored
        case UInt8(ascii: "f"), UInt8(ascii: "F"): self = body.count == 1 ? .wordRight : .ignored
        case UInt8(ascii: "d"), UInt8(ascii: "D"): self = body.count == 1 ? .deleteWordForward : .ignored
        case 0x7F, 0x08: self = body.count == 1 ? .deleteWordBackward : .ignored
        default: self = .ignored
        }
    }

    /// `ESC [ params final`; the Linux console's F1–F5 are `ESC [ [ A…E`.
    private static func csi(_ rest: [UInt8]) -> EditingKey {
        guard let final = rest.last else { return .ignored }
        if rest.first == UInt8(ascii: "[") { return .ignored }  // Linux console F1-F5
        let parameters = rest.dropLast().split(separator: UInt8(ascii: ";")).map { Int(String(decoding: $0, as: UTF8.self)) }
        let first = parameters.first.flatMap { $0 }
        let modifier = parameters.count > 1 ? parameters[1] ?? 1 : 1
        // 5 Ctrl, 3 Alt, 7 Ctrl-Alt (xterm); the word keys of most terminals.
        let byWord = [3, 5, 7].contains(modifier)
        switch final {
        case UInt8(ascii: "A"): return modifier == 1 ? .up : .ignored
        case UInt8(ascii: "B"): return modifier == 1 ? .down : .ignored
        case UInt8(ascii: "C"): return byWord ? .wordRight : .right
        case UInt8(ascii: "D"): return byWord ? .wordLeft : .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "a"), UInt8(ascii: "b"): return .ignored  // rxvt Shift-Up/Down
        case UInt8(ascii: "c"): return .right  // rxvt Shift-Right
        case UInt8(ascii: "d"): return .left  // rxvt Shift-Left
        case UInt8(ascii: "~"), UInt8(ascii: "^"), UInt8(ascii: "$"), UInt8(ascii: "@"):
            // vt220 keys; rxvt marks Ctrl with ^, Shift with $, both with @.
            switch first {
            case 1, 7: return .home
            case 4, 8: return .end
            case 3: return .deleteForward
            default: return .ignored  // 2 Insert, 5/6 Page Up/Down, 11-34 function keys, 200/201 paste
            }
        default:
            return .ignored
        }
    }

    /// `ESC O final`, possibly with a modifier (`ESC O 5 D`): vt100 cursor and keypad keys, rxvt Ctrl-arrows.
    private static func ss3(_ rest: [UInt8]) -> EditingKey {
        guard let final = rest.last else { return .ignored }
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return rest.count > 1 ? .wordRight : .right
        case UInt8(ascii: "D"): return rest.count > 1 ? .wordLeft : .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "a"), UInt8(ascii: "b"): return .ignored  // rxvt Ctrl-Up/Down
        case UInt8(ascii: "c"): return .wordRight  // rxvt Ctrl-Right
        case UInt8(ascii: "d"): return .wordLeft  // rxvt Ctrl-Left
        case UInt8(ascii: "M"): return .enter  // keypad Enter
        case UInt8(ascii: "j")...UInt8(ascii: "y"):
            // Keypad * + , - . / 0-9 in application mode.
            return rest.count == 1 ? .keypad(final - UInt8(ascii: "j") + UInt8(ascii: "*")) : .ignored
        default:
            return .ignored  // P Q R S: F1-F4
        }
    }

    /// The characters libedit's emacs bindings turn into this key's job, whatever `TERM` says.
    var libeditKeys: [wchar_t] {
        switch self {
        case .left: [0x02]  // ^B ed-prev-char
        case .right: [0x06]  // ^F ed-next-char
        case .up: [0x10]  // ^P ed-prev-history
        case .down: [0x0E]  // ^N ed-next-history
        case .home: [0x01]  // ^A ed-move-to-beg
        case .end: [0x05]  // ^E ed-move-to-end
        case .deleteForward: [0x04]  // ^D em-delete-or-list (never on an empty line: see LineSource)
        case .wordLeft: [0x1B, wchar_t(UInt8(ascii: "b"))]  // M-b ed-prev-word
        case .wordRight: [0x1B, wchar_t(UInt8(ascii: "f"))]  // M-f em-next-word
        case .deleteWordBackward: [0x1B, 0x7F]  // M-DEL ed-delete-prev-word
        case .deleteWordForward: [0x1B, wchar_t(UInt8(ascii: "d"))]  // M-d em-delete-next-word
        case .enter: [0x0D]
        case .keypad(let character): [wchar_t(character)]
        case .ignored: []
        }
    }
}
