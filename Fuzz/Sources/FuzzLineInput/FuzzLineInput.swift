// The script line reader (`LineInput`): bytes on a descriptor → lines or judged problems.
//
// Input: one header byte, then the bytes to read. Header bit 0 clear: the bytes come from
// a regular file (one 16 KiB read at a time). Set: from a SOCK_SEQPACKET socket that hands
// out at most (header >> 1) + 1 bytes a read, so a line end, a "\r\n" or a UTF-8 sequence
// can fall across reads.
//
// Checked against a model written from SPEC 6 and the README (split at "\n", "\r\n" or a lone
// "\r", a byte-order mark at the very start dropped, over 64 KiB is too long, then NUL, then
// invalid UTF-8): the same lines in the same order,
// every text line free of NUL and "\n", valid UTF-8 and at most 64 KiB, and end of input
// reached after at most one read per line (then it stays at the end).
import FuzzSupport
import Glibc
import SignupCore
import WizardTerminal

@main
enum FuzzLineInput {
    static func main() { runFuzzer(testOneInput) }
}

/// One regular file reused for every input: truncated and rewritten each time.
nonisolated(unsafe) private var scratchFile: Int32 = -1

/// libFuzzer's entry for one input (also its C name, which a debug link resolves).
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let header = input.byte()
    let payload = input.rest()
    let expected = modelLines(payload)

    let lines: [LineInput.Line]
    if header & 1 == 1, let socket = packetSource(payload, chunk: Int(header >> 1) + 1) {
        lines = readAll(fd: socket, expectedCount: expected.count)
        close(socket)
    } else {
        lines = readAll(fd: fileSource(payload), expectedCount: expected.count)
    }

    for line in lines {
        guard case .text(let text) = line else { continue }
        require(!text.utf8.contains(0), "a text line holds NUL")
        require(!text.utf8.contains(UInt8(ascii: "\n")), "a text line holds a newline")
        require(text.utf8.count <= LineInput.limit, "a text line is \(text.utf8.count) bytes")
        require(String(validating: Array(text.utf8), as: UTF8.self) != nil, "a text line is not valid UTF-8")
    }
    require(lines == expected, "lines differ from the model: got \(summary(lines)), expected \(summary(expected))")
    return 0
}

/// Reads until end of input, at most one read per expected line and a few more; then
/// checks that the end stays the end.
private func readAll(fd: Int32, expectedCount: Int) -> [LineInput.Line] {
    let reader = LineInput(fd: fd)
    var lines: [LineInput.Line] = []
    for _ in 0...(expectedCount + 2) {
        let line = reader.next()
        if line == .endOfInput {
            require(reader.next() == .endOfInput, "a read after the end did not report the end")
            return lines
        }
        lines.append(line)
    }
    require(false, "no end of input after \(lines.count) lines (model: \(expectedCount))")
    return lines
}

/// SPEC 6's lines, written as plainly as possible.
private func modelLines(_ bytes: [UInt8]) -> [LineInput.Line] {
    var pieces: [[UInt8]] = []
    var current: [UInt8] = []
    var index = 0
    while index < bytes.count {
        let byte = bytes[index]
        if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
            pieces.append(current)
            current = []
            if byte == UInt8(ascii: "\r"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") { index += 1 }
        } else {
            current.append(byte)
        }
        index += 1
    }
    if !current.isEmpty { pieces.append(current) }  // a last line without its end still counts
    return pieces.enumerated().map { number, piece in
        var line = piece
        if number == 0, line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }
        if line.count > LineInput.limit { return .unreadable(.tooLong(limit: LineInput.limit)) }
        if line.contains(0) { return .unreadable(.nulByte) }
        guard let text = String(validating: line, as: UTF8.self) else { return .unreadable(.invalidUTF8) }
        return .text(text)
    }
}

private func summary(_ lines: [LineInput.Line]) -> String {
    "[" + lines.map { line in
        switch line {
        case .text(let text): "text(\(text.utf8.count) bytes)"
        case .unreadable(let problem): "\(problem)"
        case .endOfInput: "end"
        }
    }.joined(separator: ", ") + "]"
}

/// The scratch file, holding `bytes`, positioned at its start.
private func fileSource(_ bytes: [UInt8]) -> Int32 {
    if scratchFile < 0 {
        var template = Array("\(temporaryFolder)/fuzz-line-input-XXXXXX".utf8CString)
        scratchFile = mkstemp(&template)
        require(scratchFile >= 0, "cannot make a scratch file")
        unlink(&template)
    }
    require(ftruncate(scratchFile, 0) == 0, "ftruncate failed")
    let written = bytes.withUnsafeBytes { pwrite(scratchFile, $0.baseAddress, $0.count, 0) }
    require(written == bytes.count, "short write to the scratch file")
    lseek(scratchFile, 0, SEEK_SET)
    return scratchFile
}

/// A socket from which each read returns one packet of at most `chunk` bytes, then the end;
/// nil when the bytes would not fit in the socket's buffer (the file is used instead).
private func packetSource(_ bytes: [UInt8], chunk requested: Int) -> Int32? {
    let chunk = max(requested, (bytes.count + 255) / 256)  // at most 256 packets
    guard chunk <= 16 * 1024 else { return nil }  // LineInput reads 16 KiB: a bigger packet would be cut
    var fds: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds) == 0 else { return nil }
    var bufferSize: Int32 = 8 << 20
    _ = setsockopt(fds[1], SOL_SOCKET, SO_SNDBUFFORCE, &bufferSize, socklen_t(MemoryLayout<Int32>.size))
    var offset = 0
    var complete = true
    bytes.withUnsafeBytes { raw in
        while offset < raw.count {
            let count = min(chunk, raw.count - offset)
            guard send(fds[1], raw.baseAddress! + offset, count, Int32(MSG_DONTWAIT)) == count else {
                complete = false
                return
            }
            offset += count
        }
    }
    close(fds[1])  // the reader sees the end after the last packet
    guard complete else {
        close(fds[0])
        return nil
    }
    return fds[0]
}
