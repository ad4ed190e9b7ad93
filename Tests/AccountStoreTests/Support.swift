import AccountStore
import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A fresh folder for one test, removed with everything in it afterwards.
struct TemporaryFolder: Sendable {
    let path: String

    /// Creates `signup-store-<uuid>` under `base` (the system's temporary folder by default).
    init(base: String = NSTemporaryDirectory()) throws {
        path = (base as NSString).appendingPathComponent("signup-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ relative: String) -> String {
        (path as NSString).appendingPathComponent(relative)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Runs `body` with a fresh temporary folder and removes it on every path.
func withTemporaryFolder<T>(base: String = NSTemporaryDirectory(), _ body: (TemporaryFolder) throws -> T) throws -> T {
    let folder = try TemporaryFolder(base: base)
    defer { folder.remove() }
    return try body(folder)
}

/// What a child process did.
struct ProcessResult {
    var status: Int32
    var output: String
    var error: String
}

/// Runs `arguments` through `/usr/bin/env` with extra environment variables and waits.
func run(_ arguments: [String], environment extra: [String: String] = [:]) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(extra) { _, new in new }
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(
        status: process.terminationStatus,
        output: String(decoding: outputData, as: UTF8.self),
        error: String(decoding: errorData, as: UTF8.self)
    )
}

/// argon2-cffi's verdict on `password` against the PHC string `phc`, both passed in the
/// environment: `match` or `mismatch` on a line of its output (an independent implementation).
func argon2cffiVerdict(_ phc: String, _ password: String) throws -> ProcessResult {
    try run(["python3", "-c", """
        import os, argon2
        try:
            argon2.PasswordHasher().verify(os.environ["PHC"], os.environ["PW"])
            print("match")
        except argon2.exceptions.VerifyMismatchError:
            print("mismatch")
        """], environment: ["PHC": phc, "PW": password])
}

/// Rows of `sql` on the SQLite file at `path`, each row's columns joined by `|`,
/// read by Python's sqlite3 module: an independent reader of the file.
func sqliteRows(_ path: String, _ sql: String) throws -> [String] {
    let script = """
        import os, sqlite3
        db = sqlite3.connect("file:" + os.environ["DB"] + "?mode=ro", uri=True)
        for row in db.execute(os.environ["SQL"]):
            print("|".join(str(c) for c in row))
        """
    let result = try run(["python3", "-c", script], environment: ["DB": path, "SQL": sql])
    try #require(result.status == 0, "python3 sqlite3 failed: \(result.error)")
    return result.output.split(separator: "\n").map(String.init)
}

/// Runs `sql` on the database at `path` with Python's own sqlite3, creating the file: another program's writes.
func sqliteExecute(_ path: String, _ sql: String) throws {
    let script = "import os, sqlite3; db = sqlite3.connect(os.environ['DB']); db.execute(os.environ['SQL']); db.commit()"
    let result = try run(["python3", "-c", script], environment: ["DB": path, "SQL": sql])
    try #require(result.status == 0, "python3 sqlite3 failed: \(result.error)")
}

/// The permission bits of the file or folder at `path`.
func mode(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return try #require(attributes[.posixPermissions] as? Int)
}

/// Makes `path` unwritable even for root (`chattr +i`), or for others with `chmod 0444`.
///
/// Returns an undo closure, or nil when this file system cannot do it.
func makeReadOnly(_ path: String) throws -> (() -> Void)? {
    if getuid() != 0 {
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        return { try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path) }
    }
    guard (try? run(["chattr", "+i", path]))?.status == 0 else { return nil }
    return { _ = try? run(["chattr", "-i", path]) }
}

/// Starts `count` threads that run `body` at the same moment, and waits for all of them.
///
/// Real threads rather than tasks: the cooperative pool has as many threads as
/// cores, which would serialize most of the race on a small machine.
func runConcurrently(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let start = DispatchGroup()
    start.enter()
    let finished = DispatchGroup()
    for index in 0..<count {
        finished.enter()
        let thread = Thread {
            start.wait()
            body(index)
            finished.leave()
        }
        thread.start()
    }
    start.leave()
    finished.wait()
}

/// A thread-safe list of values gathered from several threads.
final class Collected<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])

    func append(_ value: Value) {
        values.withLock { $0.append(value) }
    }

    var all: [Value] { values.withLock { $0 } }
}

/// A stand-in hash for tests that do not need a real one (hashing costs ~20 ms).
let fakeHash = try! PasswordHash(parsing: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g")

/// A well-formed Argon2id PHC string of about `characters` characters (hash part: `h`s, whole
/// base64 groups), for tests that need big rows: a store takes nothing but a ``PasswordHash``.
func bulkyHash(characters: Int) -> PasswordHash {
    try! PasswordHash(parsing: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$" + String(repeating: "h", count: characters / 4 * 4))
}

/// Runs several statements on the database at `path` with Python's sqlite3 (`executescript`): another program's writes.
func sqliteScript(_ path: String, _ sql: String) throws {
    let script = "import os, sqlite3; db = sqlite3.connect(os.environ['DB']); db.executescript(os.environ['SQL']); db.commit()"
    let result = try run(["python3", "-c", script], environment: ["DB": path, "SQL": sql])
    try #require(result.status == 0, "python3 sqlite3 failed: \(result.error)")
}

/// The user `nobody`: another local user for tests that run as root.
let nobody: (uid: uid_t, gid: gid_t, name: String) = (65534, 65534, "nobody")

/// Gives `path` (not following a link) to `nobody`.
func giveToNobody(_ path: String) throws {
    try #require(lchown(path, nobody.uid, nobody.gid) == 0, "lchown \(path): \(errno)")
}

/// Sets the permission bits of `path` exactly (no umask).
func setMode(_ path: String, _ mode: mode_t) throws {
    try #require(chmod(path, mode) == 0, "chmod \(path): \(errno)")
}

/// The SHA-256 of the file at `path`, by sha256sum.
func sha256(_ path: String) throws -> String {
    let result = try run(["sha256sum", path])
    try #require(result.status == 0, "sha256sum: \(result.error)")
    return String(result.output.prefix(64))
}

/// The names in `folder`, sorted.
func names(in folder: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
}

/// Mounts a fresh tmpfs at a new folder `name` in `folder` and runs `body`; unmounts on every path.
func withTmpfs<T>(in folder: TemporaryFolder, _ name: String, size: String, _ body: (String) throws -> T) throws -> T {
    let mountPoint = folder.file(name)
    try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
    let mount = try run(["mount", "-t", "tmpfs", "-o", "size=\(size),mode=0755", "tmpfs", mountPoint])
    try #require(mount.status == 0, "mount -t tmpfs failed: \(mount.error)")
    defer { _ = try? run(["umount", mountPoint]) }
    return try body(mountPoint)
}
