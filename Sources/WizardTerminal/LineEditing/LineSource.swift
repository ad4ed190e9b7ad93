import CLibedit

/// How a read ended when it produced no line.
enum ReadEnding: Equatable {
    case endOfInput
    case interrupted
}

/// The read function of libedit and of `ScrollingLineEditor`: turns terminal bytes into the
/// characters they edit (libedit's emacs control keys).
///
/// Text mode passes characters through (UTF-8 decoded, escape sequences whole so arrow
/// keys work, bracketed-paste markers dropped). Secret mode keeps printable bytes in its
/// own buffer and hands libedit nothing but Enter, so nothing is ever drawn for them.
/// Both modes wait in poll(2) on the terminal and on `TerminalGuard`'s wake-up pipe, so a
/// signal (Ctrl-C, continue after Ctrl-Z, window resize) is noticed at once.
final class LineSource {
    enum Mode {
        case text
        case secret
    }

    /// Lines longer than this many UTF-8 bytes are cut to just over it, so callers can reject them.
    static let maximumLineBytes = 65_536
    /// The bytes after ESC in a key's escape sequence arrive together; wait this long for them.
    private static let sequenceTimeout: Int32 = 50
    private static let replacement = Unicode.Scalar(0xFFFD)!

    let input: Int32
    let output: Int32
    var editor: (any LineEditing)?
    private(set) var mode = Mode.text
    private(set) var ending: ReadEnding?
    /// The prompt libedit's prompt callback returns: a NUL-terminated copy owned here.
    private(set) var prompt: UnsafeMutablePointer<CChar>

    private let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)
    private var chunkStart = 0
    private var chunkEnd = 0
    private var pendingEnding: ReadEnding?

    private var queued: [wchar_t] = []
    private var queuedHead = 0
    private var textBytes = 0
    private var textOverflow = false

    private let secret = UnsafeMutableRawBufferPointer.allocate(byteCount: maximumLineBytes + 8, alignment: 1)
    private var secretCount = 0

    /// Whether Up and Down (and Ctrl-P, Ctrl-N) recall history in this read; not at a yes/no question.
    private var historyKeys = true
    /// Whether a byte of this read was not UTF-8 (text mode shows it as U+FFFD).
    private(set) var sawInvalidUTF8 = false
    /// A carriage return just ended a line: a line feed right after it belongs to the same line end.
    private var swallowLineFeed = false

    init(input: Int32, output: Int32) {
        self.input = input
        self.output = output
        prompt = Self.copyCString("")
        chunk.initializeMemory(as: UInt8.self, repeating: 0)
        secret.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit {
        Sys.zero(chunk)
        Sys.zero(secret)
        chunk.deallocate()
        secret.deallocate()
        prompt.deallocate()
    }

    func setPrompt(_ text: String) {
        prompt.deallocate()
        prompt = Self.copyCString(text)
    }

    /// Starts a read in `mode`; without `historyKeys`, Up and Down do nothing.
    func begin(_ mode: Mode, historyKeys: Bool = true) {
        self.mode = mode
        self.historyKeys = historyKeys
        ending = nil
        pendingEnding = nil
        textBytes = 0
        textOverflow = false
        sawInvalidUTF8 = false
        clearSecret()
        // A line feed that did not come with its carriage return is a key of its own (Ctrl-J).
        if swallowLineFeed, chunkStart == chunkEnd, !Sys.hasInput(input) { swallowLineFeed = false }
    }

    /// Forgets every byte read from the terminal but not yet used (type-ahead), zeroing it.
    func discardPending() {
        Sys.zero(chunk)
        chunkStart = 0
        chunkEnd = 0
        queued.removeAll()
        queuedHead = 0
        swallowLineFeed = false
    }

    /// The secret typed in this read, then forgets it; nil when its bytes are not UTF-8.
    func takeSecret() -> String? {
        defer { clearSecret() }
        return String(validating: UnsafeRawBufferPointer(rebasing: secret[0..<secretCount]), as: UTF8.self)
    }

    /// Forgets the secret typed in this read.
    func discardSecret() { clearSecret() }

    /// libedit's read function: 1 with a character in `out`, 0 at end of input, -1 when interrupted.
    func nextCharacter(into out: UnsafeMutablePointer<wchar_t>) -> Int32 {
        switch mode {
        case .text: return nextTextCharacter(into: out)
        case .secret: return nextSecretCharacter(into: out)
        }
    }

    // MARK: - Text

    private func nextTextCharacter(into out: UnsafeMutablePointer<wchar_t>) -> Int32 {
        while true {
            if queuedHead < queued.count {
                out.pointee = queued[queuedHead]
                queuedHead += 1
                if queuedHead == queued.count { queued.removeAll(keepingCapacity: true); queuedHead = 0 }
                return 1
            }
            if let pendingEnding { return finish(pendingEnding) }
            switch nextLineByte() {
            case .ended: return finish(.endOfInput)
            case .interrupted: return finish(.interrupted)
            case .timedOut: continue
            case .byte(let byte):
                switch byte {
                case 0x04 where editor?.lineIsEmpty ?? true:
                    return finish(.endOfInput)  // before libedit prints "^D"
                case 0x1B:
                    queue(EditingKey(sequence: readEscapeSequence()))
                case 0x10 where !historyKeys, 0x0E where !historyKeys:
                    continue  // Ctrl-P, Ctrl-N: no history at a question
                case 0x00..<0x20, 0x7F:
                    out.pointee = wchar_t(byte)
                    return 1
                case 0x20..<0x7F:
                    guard admitsText(1) else { continue }
                    out.pointee = wchar_t(byte)
                    return 1
                default:
                    let (scalar, valid) = decodeScalar(startingWith: byte)
                    if !valid { sawInvalidUTF8 = true }
                    guard admitsText(scalar.utf8.count) else { continue }
                    out.pointee = wchar_t(bitPattern: scalar.value)
                    return 1
                }
            }
        }
    }

    /// Queues the control keys that do `key`'s job in libedit, or nothing.
    private func queue(_ key: EditingKey) {
        switch key {
        case .up where !historyKeys, .down where !historyKeys: return
        case .deleteForward where editor?.lineIsEmpty ?? true: return  // ^D there would end the input
        case .keypad: if !admitsText(1) { return }
        default: break
        }
        queued.append(contentsOf: key.libeditKeys)
    }

    /// Whether the line may grow by `count` bytes; past the limit the rest of the line is dropped.
    private func admitsText(_ count: Int) -> Bool {
        if textOverflow { return false }
        textBytes += count
        guard textBytes > Self.maximumLineBytes else { return true }
        let actual = editor?.lineByteCount ?? textBytes
        if actual > Self.maximumLineBytes {
            textOverflow = true
            return false
        }
        textBytes = actual + count
        return true
    }

    // MARK: - Secret

    private func nextSecretCharacter(into out: UnsafeMutablePointer<wchar_t>) -> Int32 {
        while true {
            if let pendingEnding { return finish(pendingEnding) }
            switch nextLineByte() {
            case .ended: return finish(.endOfInput)
            case .interrupted: return finish(.interrupted)
            case .timedOut: continue
            case .byte(let byte):
                switch byte {
                case 0x0A, 0x0D:
                    out.pointee = 0x0A
                    return 1
                case 0x7F, 0x08: eraseSecretCharacter()
                case 0x15: clearSecret()  // Ctrl-U
                case 0x17: eraseSecretWord()  // Ctrl-W
                case 0x04 where secretCount == 0: return finish(.endOfInput)
                case 0x1B:
                    // No key of any terminal family adds to a secret, except Enter on the keypad.
                    if EditingKey(sequence: readEscapeSequence()) == .enter {
                        out.pointee = 0x0A
                        return 1
                    }
                case 0x09: appendSecret(byte)  // kept, so the password rules can reject it
                case 0x00..<0x20: continue  // other control keys do nothing
                default: appendSecret(byte)
                }
            }
        }
    }

    private func appendSecret(_ byte: UInt8) {
        guard secretCount <= Self.maximumLineBytes else { return }  // keeps max + 1 bytes: "too long"
        secret[secretCount] = byte
        secretCount += 1
    }

    /// Removes the last `Character` (a grapheme: an emoji with its modifiers, a flag, a letter
    /// with its combining accents), as the password rules count them; the last byte when the
    /// secret so far is not UTF-8.
    private func eraseSecretCharacter() {
        guard secretCount > 0 else { return }
        let bytes = UnsafeRawBufferPointer(rebasing: secret[0..<secretCount])
        var remove = 1
        if var text = String(validating: bytes, as: UTF8.self), let last = text.last {
            remove = String(last).utf8.count
            text.withUTF8 { Sys.zero(UnsafeMutableRawBufferPointer(mutating: UnsafeRawBufferPointer($0))) }
        }
        for _ in 0..<min(remove, secretCount) {
            secretCount -= 1
            secret[secretCount] = 0
        }
    }

    private func eraseSecretWord() {
        while secretCount > 0, secret[secretCount - 1] == 0x20 { secretCount -= 1 }
        while secretCount > 0, secret[secretCount - 1] != 0x20 { eraseSecretCharacter() }
    }

    private func clearSecret() {
        Sys.zero(UnsafeMutableRawBufferPointer(rebasing: secret[0..<max(secretCount, 1)]))
        secretCount = 0
    }

    // MARK: - Bytes

    private enum ByteEvent {
        case byte(UInt8)
        case timedOut
        case ended
        case interrupted
    }

    private func finish(_ ending: ReadEnding) -> Int32 {
        self.ending = ending
        pendingEnding = nil
        return ending == .endOfInput ? 0 : -1
    }

    /// The next byte of a line: a line feed right after a carriage return is dropped, so CR LF
    /// (Enter then Ctrl-J, a pasted Windows line, a terminal in LNM mode) is one line end.
    private func nextLineByte() -> ByteEvent {
        while true {
            let event = nextByte()
            guard case .byte(let byte) = event else { return event }
            let afterReturn = swallowLineFeed
            swallowLineFeed = byte == 0x0D
            if byte == 0x0A && afterReturn { continue }
            return event
        }
    }

    /// The next byte from the terminal; `timeout` in milliseconds, -1 to wait for ever.
    private func nextByte(timeout: Int32 = -1) -> ByteEvent {
        while true {
            // Ctrl-C first: bytes read with it or after it (`y⏎` typed at once) are not this
            // answer's, nor the answer to the question the interrupt brings.
            if GuardState.takeInterrupt() {
                discardPending()
                return .interrupted
            }
            if chunkStart < chunkEnd {
                let byte = chunk[chunkStart]
                chunkStart += 1
                return .byte(byte)
            }
            if GuardState.takeResumed() { redraw() }
            if GuardState.takeResized() { editor?.resize() }
            if timeout < 0 { editor?.willWait() }  // every key so far handled: show the line
            let wake = GuardState.wakeRead.load(ordering: .relaxed)
            guard let polled = try? Sys.poll(input: input, wake: wake, timeoutMilliseconds: timeout) else { return .ended }
            if polled.wakeReady { Sys.drain(wake) }
            if polled.timedOut { return .timedOut }
            guard polled.inputReady else { continue }
            Sys.zero(UnsafeMutableRawBufferPointer(rebasing: chunk[0..<chunkEnd]))  // it may have held a secret
            chunkStart = 0
            chunkEnd = 0
            switch try? Sys.read(input, into: chunk) {
            case .bytes(let count)?: chunkEnd = count
            case .interrupted?, .wouldBlock?: continue
            case .endOfFile?, nil:
                Sys.awaitHangUpSignal()
                return .ended
            }
        }
    }

    /// Draws the prompt and the line again after a stop: from the start of the row the cursor is on.
    private func redraw() {
        guard let editor else { return }
        let carriageReturn: [UInt8] = [0x0D]
        carriageReturn.withUnsafeBytes { try? Sys.writeAll(output, $0) }
        editor.refresh()
    }

    /// A byte that follows the first of a sequence, or nil when none came (an ending is kept for later).
    private func followingByte() -> UInt8? {
        switch nextByte(timeout: Self.sequenceTimeout) {
        case .byte(let byte): return byte
        case .timedOut: return nil
        case .ended: pendingEnding = pendingEnding ?? .endOfInput; return nil
        case .interrupted: pendingEnding = .interrupted; return nil
        }
    }

    private func unreadByte() { chunkStart -= 1 }

    /// Reads the rest of a sequence that began with ESC, and returns it whole (ESC included).
    private func readEscapeSequence() -> [UInt8] {
        var sequence: [UInt8] = [0x1B]
        guard var next = followingByte() else { return sequence }  // a lone Escape key
        while next == 0x1B, sequence.count < 4 {  // ESC ESC [ A: Alt with an arrow key
            sequence.append(next)
            guard let after = followingByte() else { return sequence }
            next = after
        }
        sequence.append(next)
        switch next {
        case UInt8(ascii: "["):  // CSI: parameters, then a final byte
            guard let first = followingByte() else { break }
            sequence.append(first)
            // The Linux console's F1-F5 are ESC [ [ A…E; `$` ends rxvt's Shift keys (ESC[2$).
            if first == UInt8(ascii: "[") {
                if let key = followingByte() { sequence.append(key) }
                break
            }
            // An X10 mouse report: ESC [ M and three raw bytes (button, column, row).
            if first == UInt8(ascii: "M") {
                for _ in 0..<3 { if let byte = followingByte() { sequence.append(byte) } }
                break
            }
            if Self.endsKeySequence(first) { break }
            guard (0x20...0x7E).contains(first) else { unreadByte(); sequence.removeLast(); break }
            // However long the parameters run, they are swallowed up to the final byte: only the
            // first 64 bytes are kept (enough to name any key), none become text.
            while let byte = followingByte() {
                guard (0x20...0x7E).contains(byte) else { unreadByte(); break }
                if sequence.count < 64 { sequence.append(byte) }
                if Self.endsKeySequence(byte) { break }
            }
        case UInt8(ascii: "O"):  // SS3: an optional modifier (ESC O 5 D), then a final byte
            while sequence.count < 8, let byte = followingByte() {
                guard (0x20...0x7E).contains(byte) else { unreadByte(); break }
                sequence.append(byte)
                if !(0x30...0x3B).contains(byte) { break }
            }
        case UInt8(ascii: "N"):  // SS2: one character from another set
            if let byte = followingByte() { sequence.append(byte) }
        case UInt8(ascii: "]"), UInt8(ascii: "P"), UInt8(ascii: "X"), UInt8(ascii: "^"), UInt8(ascii: "_"):
            // OSC, DCS, SOS, PM, APC: a string up to BEL or ST (ESC \ or C1 0x9C), such as a
            // terminal's answer to a colour or title query. None of it is a key or text.
            skipControlString()
        default:
            break  // Alt with a key
        }
        return sequence
    }

    /// Swallows the body of a control string up to its terminator, or until input pauses or ends.
    private func skipControlString() {
        while let byte = followingByte() {
            switch byte {
            case 0x07, 0x9C:
                return
            case 0x1B:
                guard let after = followingByte() else { return }
                if after != UInt8(ascii: "\\") { unreadByte() }
                return
            default:
                continue
            }
        }
    }

    /// A CSI final byte, or rxvt's `$`.
    private static func endsKeySequence(_ byte: UInt8) -> Bool {
        (0x40...0x7E).contains(byte) || byte == UInt8(ascii: "$")
    }

    /// Decodes one UTF-8 scalar whose first byte is `first`; bad input becomes U+FFFD, marked not valid.
    private func decodeScalar(startingWith first: UInt8) -> (Unicode.Scalar, valid: Bool) {
        let bad = (Self.replacement, valid: false)
        let (length, initial, minimum): (Int, UInt32, UInt32)
        switch first {
        case 0xC2...0xDF: (length, initial, minimum) = (1, UInt32(first & 0x1F), 0x80)
        case 0xE0...0xEF: (length, initial, minimum) = (2, UInt32(first & 0x0F), 0x800)
        case 0xF0...0xF4: (length, initial, minimum) = (3, UInt32(first & 0x07), 0x10000)
        default: return bad
        }
        var value = initial
        for _ in 0..<length {
            guard let byte = followingByte() else { return bad }
            guard byte & 0xC0 == 0x80 else { unreadByte(); return bad }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return bad }
        return (scalar, valid: true)
    }

    private static func copyCString(_ text: String) -> UnsafeMutablePointer<CChar> {
        let bytes = text.utf8CString
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
        bytes.withUnsafeBufferPointer { copy.initialize(from: $0.baseAddress!, count: bytes.count) }
        return copy
    }
}
