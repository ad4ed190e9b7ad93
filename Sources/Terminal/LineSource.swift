import CLibedit

/// How a read ended when it produced no line.
enum ReadEnding: Equatable {
    case endOfInput
    case interrupted
}

/// libedit's read function: turns terminal bytes into the characters libedit edits.
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
    var editor: EditLineHandle?
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

    /// Starts a read in `mode`.
    func begin(_ mode: Mode) {
        self.mode = mode
        ending = nil
        pendingEnding = nil
        textBytes = 0
        textOverflow = false
        clearSecret()
    }

    /// The secret typed in this read, then forgets it.
    func takeSecret() -> String {
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: secret[0..<secretCount]), as: UTF8.self)
        clearSecret()
        return text
    }

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
            switch nextByte() {
            case .ended: return finish(.endOfInput)
            case .interrupted: return finish(.interrupted)
            case .timedOut: continue
            case .byte(let byte):
                switch byte {
                case 0x04 where editor?.lineIsEmpty ?? true:
                    return finish(.endOfInput)  // before libedit prints "^D"
                case 0x1B:
                    let sequence = readEscapeSequence()
                    if !Self.isPasteMarker(sequence) { queued.append(contentsOf: sequence.map { wchar_t($0) }) }
                case 0x00..<0x20, 0x7F:
                    out.pointee = wchar_t(byte)
                    return 1
                case 0x20..<0x7F:
                    guard admitsText(1) else { continue }
                    out.pointee = wchar_t(byte)
                    return 1
                default:
                    let scalar = decodeScalar(startingWith: byte)
                    guard admitsText(scalar.utf8.count) else { continue }
                    out.pointee = wchar_t(bitPattern: scalar.value)
                    return 1
                }
            }
        }
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
            switch nextByte() {
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
                case 0x1B: _ = readEscapeSequence()  // arrows, F-keys, Home/End, paste markers
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

    private func eraseSecretCharacter() {
        while secretCount > 0 {
            secretCount -= 1
            let byte = secret[secretCount]
            secret[secretCount] = 0
            if byte & 0xC0 != 0x80 { break }
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

    /// The next byte from the terminal; `timeout` in milliseconds, -1 to wait for ever.
    private func nextByte(timeout: Int32 = -1) -> ByteEvent {
        while true {
            if chunkStart < chunkEnd {
                let byte = chunk[chunkStart]
                chunkStart += 1
                return .byte(byte)
            }
            if GuardState.takeInterrupt() { return .interrupted }
            if GuardState.takeResumed() { redraw() }
            if GuardState.takeResized() { editor?.resize() }
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
            case .endOfFile?, nil: return .ended
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
        case UInt8(ascii: "["):  // CSI: parameters and intermediates, then a final byte
            while sequence.count < 64, let byte = followingByte() {
                guard (0x20...0x7E).contains(byte) else { unreadByte(); break }
                sequence.append(byte)
                if (0x40...0x7E).contains(byte) { break }
            }
        case UInt8(ascii: "O"):  // SS3: one more byte (F1-F4, keypad arrows)
            if let byte = followingByte() { sequence.append(byte) }
        default:
            break  // Alt with a key
        }
        return sequence
    }

    private static func isPasteMarker(_ sequence: [UInt8]) -> Bool {
        sequence == Array("\u{1B}[200~".utf8) || sequence == Array("\u{1B}[201~".utf8)
    }

    /// Decodes one UTF-8 scalar whose first byte is `first`; bad input becomes U+FFFD.
    private func decodeScalar(startingWith first: UInt8) -> Unicode.Scalar {
        let (length, initial, minimum): (Int, UInt32, UInt32)
        switch first {
        case 0xC2...0xDF: (length, initial, minimum) = (1, UInt32(first & 0x1F), 0x80)
        case 0xE0...0xEF: (length, initial, minimum) = (2, UInt32(first & 0x0F), 0x800)
        case 0xF0...0xF4: (length, initial, minimum) = (3, UInt32(first & 0x07), 0x10000)
        default: return Self.replacement
        }
        var value = initial
        for _ in 0..<length {
            guard let byte = followingByte() else { return Self.replacement }
            guard byte & 0xC0 == 0x80 else { unreadByte(); return Self.replacement }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return Self.replacement }
        return scalar
    }

    private static func copyCString(_ text: String) -> UnsafeMutablePointer<CChar> {
        let bytes = text.utf8CString
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
        bytes.withUnsafeBufferPointer { copy.initialize(from: $0.baseAddress!, count: bytes.count) }
        return copy
    }
}
