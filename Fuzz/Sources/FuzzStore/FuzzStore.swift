// The account store opening any file at its path (SPEC 8: foreign, newer, damaged files).
//
// Input: a flags byte, then the file's bytes. Bit 0: open with `AccountStore(path:)` (what
// a sign-up does) instead of `openExisting(path:)` (what `list` and `verify` do); bit 1:
// both, writer first; bit 2: put SQLite's 16-byte magic before the bytes; bit 3: split the
// bytes at a point given by the next byte, the second part being a `-wal` file beside it.
//
// Checked: never a crash; whenever the store refuses the file (throws), the database file is
// byte for byte what it was, a `-wal` beside it too, and no `-wal`, `-shm` or `-journal` is
// left that was not there; a store that opens can list, look up and try to create an account.
import AccountStore
import FuzzSupport
import Glibc

@main
enum FuzzStore {
    static func main() { runFuzzer(testOneInput) }
}

private let folder: String = {
    var template = Array("\(temporaryFolder)/fuzz-store-XXXXXX".utf8CString)
    guard mkdtemp(&template) != nil else { fatalError("mkdtemp failed") }
    return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
}()
private let path = folder + "/accounts.sqlite"
private let sideFiles = ["-wal", "-shm", "-journal"].map { path + $0 }
private let magic = Array("SQLite format 3\u{0}".utf8)
/// A stand-in hash (a store takes nothing but a `PasswordHash`): 16 bytes of salt, 32 of hash.
private let storedHash = try! PasswordHash(
    parsing: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g")

/// libFuzzer's entry for one input (also its C name, which a debug link resolves).
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let flags = input.byte()
    let split = flags & 8 != 0 ? Int(input.byte()) * 64 : nil
    var bytes = input.rest()
    if flags & 4 != 0 { bytes = magic + bytes }
    var wal: [UInt8]?
    if let split, split < bytes.count {
        wal = Array(bytes[split...])
        bytes = Array(bytes[..<split])
    }

    clean()
    write(bytes, to: path)
    if let wal { write(wal, to: path + "-wal") }

    let openers: [Bool] = flags & 2 != 0 ? [true, false] : [flags & 1 != 0]
    for forWriting in openers {
        let before = snapshot()  // again for the second opener: a skipped known defect may have changed it
        if forWriting {
            do {
                let store = try AccountStore(path: path)
                _ = try? store.accounts()
                _ = try? store.isTaken(email: "alice@example.com")
                _ = try? store.create(email: "fuzz@example.com", passwordHash: storedHash)
            } catch {
                requireUntouched(before, "AccountStore(path:) refused it (\(error))", known: "foreign-wal")
                continue
            }
        } else {
            do {
                if let store = try AccountStore.openExisting(path: path) {
                    _ = try? store.accounts()
                    _ = try? store.passwordHash(forEmail: "alice@example.com")
                }
            } catch {
                // With a -wal beside it, SQLite's checkpoint on close rewrites a foreign file
                // (Fuzz/Regressions/FuzzStore/foreign-wal-checkpointed-by-reader).
                requireUntouched(before, "openExisting(path:) refused it (\(error))", known: wal == nil ? nil : "reader-checkpoint")
                continue
            }
        }
        break  // opened: the file may now have changed, as it should
    }
    clean()
    return 0
}

/// The bytes of the database file and of each side file, nil when absent.
private func snapshot() -> [String: [UInt8]?] {
    Dictionary(uniqueKeysWithValues: ([path] + sideFiles).map { ($0, read($0)) })
}

private func requireUntouched(_ before: [String: [UInt8]?], _ what: String, known tag: String? = nil) {
    let after = snapshot()
    for file in [path] + sideFiles where after[file]! != before[file]! {
        let name = String(file.dropFirst(folder.count + 1))
        let change = before[file]! == nil ? "created" : after[file]! == nil ? "removed" : "changed"
        require(false, "\(what), yet \(name) was \(change)", known: tag)
    }
}

private func clean() {
    for file in [path] + sideFiles { unlink(file) }
}

private func write(_ bytes: [UInt8], to file: String) {
    let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    require(fd >= 0, "cannot write the scratch database")
    let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    close(fd)
    require(written == bytes.count, "short write to the scratch database")
}

/// Plain read(2): Foundation's `FileManager.contents(atPath:)` leaks 4 KiB a call here, which
/// LeakSanitizer would report against the store.
private func read(_ file: String) -> [UInt8]? {
    let fd = open(file, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        require(n >= 0, "cannot read \(file) back")
        if n == 0 { return bytes }
        bytes += chunk[..<n]
    }
}
