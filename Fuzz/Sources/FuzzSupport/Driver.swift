import CLibFuzzer
import Glibc

/// Runs libFuzzer with this process's arguments, calling `body` with each input.
///
/// SwiftPM renames an executable's `main` and points the linker's `main` at it, so
/// libFuzzer's own `main` is never linked: each target's `@main` calls this instead.
public func runFuzzer(_ body: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    let status = withUnsafeMutablePointer(to: &argv) { argvPointer in
        argvPointer.withMemoryRebound(to: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?.self, capacity: 1) {
            LLVMFuzzerRunDriver(&argc, $0, body)
        }
    }
    exit(status)
}

/// Stops the run with a finding when `condition` is false: libFuzzer keeps the input.
///
/// `known` tags an invariant that a known, reported defect breaks; `FUZZ_SKIP=tag,tag` in
/// the environment skips those, so a run can look past them for new findings. Unset, every
/// invariant is checked. The message goes to standard error; it may hold fuzz text, never a
/// real secret.
public func require(
    _ condition: @autoclosure () -> Bool,
    _ message: @autoclosure () -> String,
    known tag: String? = nil,
    file: StaticString = #fileID,
    line: UInt = #line
) {
    if let tag, skippedInvariants.contains(tag) { return }
    guard !condition() else { return }
    report("invariant broken at \(file):\(line): \(message())")
    abort()
}

private let skippedInvariants: Set<String> = {
    guard let value = getenv("FUZZ_SKIP") else { return [] }
    return Set(String(decoding: UnsafeRawBufferPointer(start: value, count: strlen(value)), as: UTF8.self)
        .split(separator: ",").map(String.init))
}()

/// `$TMPDIR`, else `/tmp`: where targets make their scratch files (scripts/fuzz points it
/// at a folder it removes afterwards).
public let temporaryFolder: String = {
    guard let value = getenv("TMPDIR"), value.pointee != 0 else { return "/tmp" }
    return String(decoding: UnsafeRawBufferPointer(start: value, count: strlen(value)), as: UTF8.self)
}()

/// Writes one line to standard error.
public func report(_ text: String) {
    let line = Array("fuzz: \(text)\n".utf8)
    line.withUnsafeBytes { bytes in
        var offset = 0
        while offset < bytes.count {
            let n = write(2, bytes.baseAddress! + offset, bytes.count - offset)
            if n <= 0 { return }
            offset += n
        }
    }
}

/// Whether Foundation's normalization may serve as an oracle for `text`: its NFC on Linux cuts a
/// scalar beyond U+FFFF to 16 bits before a combining mark (U+10041 U+0301 becomes "Á"), where
/// the library's utf8proc keeps it. For such text the oracle, not the library, is wrong.
public func foundationNormalizes(_ text: String) -> Bool {
    !text.unicodeScalars.contains { $0.value > 0xFFFF }
}
