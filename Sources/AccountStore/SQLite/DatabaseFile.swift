import SignupCore
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The one door to an SQLite database file: the process's only connection to it, and the only
/// code that opens a descriptor of signup's own on it or its `-wal`, `-shm` and `-journal`.
///
/// Closing *any* descriptor of a file drops *every* POSIX record lock the process holds on it,
/// SQLite's included (SQLite's "How To Corrupt An SQLite Database File", 2.2). A store that
/// opened the file itself (to check it was cut short, say) while a connection of the same
/// process held its locks let another process checkpoint and truncate the `-wal` under that
/// connection: reported writes were lost and the file damaged. So, by construction:
/// - a process holds at most one connection to a database file (the same device and inode,
///   whatever path names it), shared by every ``AccountStore`` that opens it and closed with
///   the last of them (``Lease``);
/// - the file's own checks (cut short, a crash-left `-wal` read from a private copy, the creation
///   of a new file, the descriptor a path that is not UTF-8 is named through) run only while no
///   connection to that file is open in the process, under the lock every open and every close
///   takes; after that, everything goes through SQLite;
/// - a descriptor that must live beside the connection (that name's) is closed after it.
///
/// The functions that open such descriptors are private to this file: nothing else can call them.
final class DatabaseFile: Sendable {
    /// A file as the kernel knows it, whatever path names it.
    struct Identity: Hashable, Sendable {
        let device: UInt64
        let inode: UInt64
    }

    /// A store's share of the one connection: the connection closes when the last lease goes.
    final class Lease: Sendable {
        let file: DatabaseFile

        fileprivate init(_ file: DatabaseFile) { self.file = file }

        deinit { DatabaseFile.release(file) }
    }

    /// The connection every store of this file in this process uses.
    let db: SQLiteConnection
    private let identity: Identity
    /// The descriptor a path that is not UTF-8 is named through (`/proc/self/fd/N`); closed after `db`.
    private let name: SQLiteName.Descriptor?
    /// Why a writer must be refused, found when the file was first opened for reading: a crash-left
    /// `-wal` whose replay failed on a private copy (``inspect(_:path:rehearsingWrites:)``).
    private let writeRefusal: StoreError?
    /// The file's canonical path, looked at by name only (``isSharedForReading``).
    let canonical: [UInt8]

    private init(db: SQLiteConnection, identity: Identity, name: SQLiteName.Descriptor?, writeRefusal: StoreError?, canonical: [UInt8]) {
        self.db = db
        self.identity = identity
        self.name = name
        self.writeRefusal = writeRefusal
        self.canonical = canonical
    }

    /// Whether the file's mode lets its group or others read it: readers of another user (a mail
    /// server's auth worker) are meant to read it, and may create nothing beside it. By name
    /// (`lstat`), with no descriptor.
    var isSharedForReading: Bool {
        var info = stat()
        guard canonical.withCString({ lstat($0, &info) }) == 0 else { return false }
        return info.st_mode & 0o044 != 0
    }

    /// The open files of this process and how many leases each has. Every open and every close
    /// holds this lock, so no check can open a descriptor of a file while its connection opens or closes.
    private static let openFiles = Mutex<[Identity: (file: DatabaseFile, leases: Int)]>([:])

    /// How long a connection waits for another program's lock before giving up (``AccountStore/busyTimeout``).
    private static var busyTimeout: Double { AccountStore.busyTimeout }

    // MARK: - Opening

    /// The connection to the database at `path` for writing, shared when this process has one:
    /// the folders and the file are made when missing (0700, 0600), and a file first opened here
    /// is checked (``inspect(_:path:rehearsingWrites:)``) before anything is written.
    static func forWriting(_ path: DatabasePath) throws(StoreError) -> Lease {
        try openFiles.withLock { files throws(StoreError) -> Lease in
            var resolved = try FileSystem.resolve(path, creatingFolders: true)
            var attempts = 0
            while try !createFile(resolved, path: path) {
                attempts += 1
                guard attempts < 3 else { throw .unavailable(reason: "cannot create \(path): it keeps appearing and vanishing") }
                resolved = try FileSystem.resolve(path, creatingFolders: true)
            }
            let identity = try Self.identity(of: resolved.canonical, path: path)
            if let shared = files[identity] {
                if let refusal = shared.file.writeRefusal { throw refusal }
                files[identity] = (shared.file, shared.leases + 1)
                return Lease(shared.file)
            }
            alignSideFiles(of: resolved.canonical)
            let name = try SQLiteName.make(resolved.canonical, writable: true, path: path)
            _ = try inspect(name, path: path, rehearsingWrites: true)  // refuses what is not ours before anything is written
            let file = DatabaseFile(db: try openQueue(name.text, path: path), identity: identity, name: name.descriptor, writeRefusal: nil, canonical: resolved.canonical)
            files[identity] = (file, 1)
            return Lease(file)
        }
    }

    /// The connection to an existing database at `path` and what it holds, or nil when there is
    /// no file or an empty one. Creates nothing. On a medium nothing may change, the file is read
    /// as it is (`immutable=1`), unless a non-empty `-wal` holds changes only a writer could apply.
    static func existing(_ path: DatabasePath) throws(StoreError) -> (Lease, Migrations.Contents)? {
        try openFiles.withLock { files throws(StoreError) -> (Lease, Migrations.Contents)? in
            let resolved = try FileSystem.resolve(path, creatingFolders: false)
            guard resolved.entry == .nonEmptyFile else { return nil }
            let identity = try Self.identity(of: resolved.canonical, path: path)
            if let shared = files[identity] {
                let contents = try reading(shared.file.db, path: path) { db in try Migrations.contents(db, path: path) }
                files[identity] = (shared.file, shared.leases + 1)
                return (Lease(shared.file), contents)
            }
            alignSideFiles(of: resolved.canonical)
            let name = try SQLiteName.make(resolved.canonical, writable: false, path: path)
            var file: DatabaseFile
            var contents: Migrations.Contents
            do throws(StoreError) {
                let inspected = try inspect(name, path: path)
                file = DatabaseFile(db: try openQueue(name.text, path: path), identity: identity, name: name.descriptor, writeRefusal: inspected.writeRefusal, canonical: resolved.canonical)
                contents = inspected.contents
            } catch {
                guard !FileSystem.isWritable(resolved.canonical) else { throw error }
                if let size = FileSystem.size(of: resolved.canonical + Array("-wal".utf8)), size > 0 {
                    throw .unavailable(reason: "the database \(path) cannot be read: it is on a medium that cannot be written "
                        + "and its -wal file holds changes that only a writable medium can apply; it was not read stale")
                }
                // Nothing may change this file or its folder (immutable, read-only mount), so WAL's
                // side files cannot be made: read it as the unchanging file it is.
                let db = try openImmutable(name, path: path)
                contents = try reading(db, path: path) { db in try Migrations.contents(db, path: path) }
                file = DatabaseFile(db: db, identity: identity, name: name.descriptor, writeRefusal: nil, canonical: resolved.canonical)
            }
            files[identity] = (file, 1)
            return (Lease(file), contents)
        }
    }

    /// Ends a lease; the last one closes the connection, then the descriptor it was named through.
    private static func release(_ file: DatabaseFile) {
        openFiles.withLock { files in
            guard let entry = files[file.identity], entry.file === file else { return }
            guard entry.leases == 1 else {
                files[file.identity] = (file, entry.leases - 1)
                return
            }
            files[file.identity] = nil
            // A connection that does not close (it cannot, with a statement left open) keeps its
            // locks: the name's descriptor then stays open with it, for the rest of the process.
            do {
                try file.db.close()
                file.name?.close()
            } catch {
                _ = Unmanaged.passRetained(file)
            }
        }
    }

    private static func identity(of file: [UInt8], path: DatabasePath) throws(StoreError) -> Identity {
        var info = stat()
        guard file.withCString({ lstat($0, &info) }) == 0 else {
            throw .cannotUse(path, FileSystem.describe(errno))
        }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    // MARK: - Connections

    /// A read-write connection; it changes nothing by itself.
    ///
    /// Readers are not `SQLITE_OPEN_READONLY` connections on purpose: such a connection cannot
    /// checkpoint the `-wal` when it is the last to close. A read (``SQLiteConnection/read(_:)``)
    /// runs under `PRAGMA query_only`, and a reader store refuses writes itself. The `-wal` and
    /// `-shm` are kept when it closes, the `-wal` cut to nothing (`journal_size_limit = 0`), so
    /// another user's reader that may read the files but not create them can read the database.
    private static func openQueue(_ name: String, path: DatabasePath) throws(StoreError) -> SQLiteConnection {
        do {
            return try SQLiteConnection(name, mode: .readWrite, busyTimeout: busyTimeout, settings: [
                // Settings of this connection only: nothing is written.
                "PRAGMA synchronous = NORMAL",
                // Freed bytes are zeroed: a changed or deleted hash does not linger in free pages.
                "PRAGMA secure_delete = ON",
                "PRAGMA journal_size_limit = 0",
            ], keepingSideFiles: true)
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// A read-only connection through SQLite's `immutable=1` URI: no locks, no `-wal` or `-shm`.
    ///
    /// The one place a URI is made, from an absolute path whose every byte but the
    /// unreserved ones is percent-encoded, so no byte of the path can act as URI syntax.
    private static func openImmutable(_ name: SQLiteName, path: DatabasePath) throws(StoreError) -> SQLiteConnection {
        do {
            return try SQLiteConnection(
                "file:" + SQLiteName.percentEncoded(name.file) + "?immutable=1", mode: .readOnlyURI, busyTimeout: nil)
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    private static func reading<T>(_ db: SQLiteConnection, path: DatabasePath, _ body: (SQLiteConnection) throws -> T) throws(StoreError) -> T {
        do {
            return try db.access { try db.read { try body(db) } }
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    // MARK: - Checks before the first connection (descriptors of our own: only here)

    /// What the file holds, read on a connection of its own that writes nothing, not even when it
    /// closes, and why a writer must be refused (with `rehearsingWrites`, thrown instead).
    ///
    /// Runs before the process's connection to the file opens: a connection reads the file as it
    /// opens, and the last connection to close checkpoints a non-empty `-wal` into the file. When
    /// such a `-wal` is there (a writer is busy, or a crash left it), the file is read through a
    /// read-only connection, which never checkpoints, so a file that is then refused keeps its
    /// bytes. Otherwise a read-write connection is used.
    ///
    /// A non-empty `-wal` with no `-shm` means no connection is open anywhere (a crash left it,
    /// before signup kept the `-shm`), so nothing can change the two files meanwhile: they are
    /// read from a private copy, and nothing at all is added beside a file that is then refused.
    /// What a writer is about to do (migrations, the WAL switch) is then done to that copy: the
    /// writer's connection replays and removes a crash-left `-wal`, so whatever would fail must
    /// fail on the copy.
    private static func inspect(
        _ name: SQLiteName, path: DatabasePath, rehearsingWrites: Bool = false
    ) throws(StoreError) -> (contents: Migrations.Contents, writeRefusal: StoreError?) {
        if isCutShort(name.file) {
            throw .unavailable(reason: "the database \(path) is damaged: it is not a whole number of pages")
        }
        let readOnly = (FileSystem.size(of: name.file + Array("-wal".utf8)) ?? 0) > 0
        var target = name.text
        if readOnly, FileSystem.size(of: name.file + Array("-shm".utf8)) == nil, let copy = privateCopy(of: name.file) {
            target = copy
        }
        defer { if target != name.text { removePrivateCopy(parentText(of: target)) } }
        do {
            // Side files another run kept stay; none are added beside a file that may yet be refused.
            let kept = [name.file + Array("-wal".utf8), name.file + Array("-shm".utf8)].allSatisfy { FileSystem.size(of: $0) != nil }
            let reader = try SQLiteConnection(target, mode: readOnly ? .readOnly : .readWrite, busyTimeout: busyTimeout,
                                              keepingSideFiles: !readOnly && kept)
            let contents: (kind: Migrations.Contents, migrated: Bool) = try reader.read {
                // A crash left this -wal: the writer that opens next replays it into the file and
                // removes it, which a damaged file found later could not undo. Check the whole
                // file first, on the copy, in this rare case only (a live -wal has its -shm).
                if target != name.text, try reader.text("PRAGMA quick_check(1)") != "ok" {
                    throw StoreError.unavailable(reason: "the database \(path) is damaged")
                }
                return (try Migrations.contents(reader, path: path), try Migrations.hasCompletedMigrations(reader))
            }
            try reader.close()
            if target == name.text {
                // A writer with migrations to run writes the file in its own journal mode, which for
                // a file in WAL makes a -wal beside it before a damaged page can refuse the
                // migration: they are rehearsed on a private copy first (rare: once an upgrade).
                guard rehearsingWrites, contents.migrated == false, case .signup = contents.kind,
                      let copy = privateCopy(of: name.file) else { return (contents.kind, nil) }
                target = copy
            }
            do {
                let rehearsal = try openQueue(target, path: path)
                defer { try? rehearsal.close() }
                try Migrations.migrate(rehearsal)
                _ = try rehearsal.text("PRAGMA journal_mode = WAL")
                return (contents.kind, nil)
            } catch {
                if rehearsingWrites { throw error }
                return (contents.kind, StoreError.from(error, path: path))
            }
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// Creates the database file with mode 0600 when it does not exist yet, never through a link,
    /// so SQLite never creates it with its own default mode; false when someone made it meanwhile.
    /// A zero-byte file is treated as new and gets mode 0600 too; any other keeps its mode.
    private static func createFile(_ resolved: FileSystem.Resolved, path: DatabasePath) throws(StoreError) -> Bool {
        switch resolved.entry {
        case .nonEmptyFile:
            return true
        case .emptyFile:
            _ = resolved.canonical.withCString { chmod($0, 0o600) }
            return true
        case .missing:
            let fd = resolved.canonical.withCString { name in
                FileSystem.retryingInterrupts { open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600) }
            }
            if fd < 0 {
                let code = errno
                if code == EEXIST { return false }  // someone made it meanwhile: check it again
                throw .unavailable(reason: "cannot create \(path): \(FileSystem.describe(code))")
            }
            _ = fchmod(fd, 0o600)
            _ = close(fd)  // a new inode: no connection of this process can hold a lock on it
            return true
        }
    }

    /// Gives a kept `-wal` and `-shm` the database file's group and mode (as SQLite gives them when
    /// it makes them), so the readers an administrator lets read the file can read them too, and
    /// nobody the file's mode keeps out can. By name, with no descriptor; only files this process
    /// owns (or root's), and never a link.
    private static func alignSideFiles(of file: [UInt8]) {
        var database = stat()
        guard file.withCString({ lstat($0, &database) }) == 0 else { return }
        for suffix in ["-wal", "-shm"] {
            let side = file + Array(suffix.utf8)
            var info = stat()
            guard side.withCString({ lstat($0, &info) }) == 0, info.st_mode & S_IFMT == S_IFREG,
                  geteuid() == 0 || info.st_uid == geteuid()
            else { continue }
            if geteuid() == 0, info.st_uid != database.st_uid || info.st_gid != database.st_gid {
                _ = side.withCString { lchown($0, database.st_uid, database.st_gid) }
            }
            if info.st_mode & 0o777 != database.st_mode & 0o666 {
                _ = side.withCString { chmod($0, database.st_mode & 0o666) }
            }
        }
    }

    /// Whether `file` starts like an SQLite database but is not a whole number of its pages
    /// (or names no valid page size): damaged, and a writer's rollback would cut it to whole
    /// pages. A file that does not start like SQLite is left for SQLite to refuse.
    private static func isCutShort(_ file: [UInt8]) -> Bool {
        let fd = file.withCString { open($0, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        guard fd >= 0 else { return false }
        defer { _ = close(fd) }  // no connection of this process to the file is open (the door's lock)
        var header = [UInt8](repeating: 0, count: 18)
        guard header.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, 18, 0) }) == 18,
              header.starts(with: Array("SQLite format 3".utf8) + [0])
        else { return false }
        let field = Int(header[16]) << 8 | Int(header[17])
        let pageSize = field == 1 ? 65_536 : field
        guard pageSize >= 512, pageSize & (pageSize - 1) == 0 else { return true }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return false }
        return Int(info.st_size) % pageSize != 0
    }

    /// Copies `file` and its `-wal` into a new private (0700) folder under `$TMPDIR` or `/tmp`,
    /// for reading without creating anything beside the original; nil when that fails.
    /// The caller removes the folder with ``removePrivateCopy(_:)``.
    private static func privateCopy(of file: [UInt8]) -> String? {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        var template = Array((base + "/signup-inspect-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else { return nil }
        let folder = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let copy = folder + "/copy.sqlite"
        for suffix in ["", "-wal"] {
            guard copyBytes(from: file + Array(suffix.utf8), to: copy + suffix) else {
                removePrivateCopy(folder)
                return nil
            }
        }
        return copy
    }

    /// Removes a folder made by ``privateCopy(of:)`` and everything SQLite left in it.
    private static func removePrivateCopy(_ folder: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { _ = unlink(folder + "/copy.sqlite" + suffix) }
        _ = rmdir(folder)
    }

    private static func parentText(of file: String) -> String {
        String(file[..<(file.lastIndex(of: "/") ?? file.startIndex)])
    }

    private static func copyBytes(from source: [UInt8], to destination: String) -> Bool {
        let input = source.withCString { open($0, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        guard input >= 0 else { return false }
        defer { _ = close(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard output >= 0 else { return false }
        defer { _ = close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if got < 0 && errno == EINTR { continue }
            if got < 0 { return false }
            if got == 0 { return true }
            var offset = 0
            while offset < got {
                let wrote = buffer.withUnsafeBytes { write(output, $0.baseAddress! + offset, got - offset) }
                if wrote < 0 && errno == EINTR { continue }
                if wrote <= 0 { return false }
                offset += wrote
            }
        }
    }
}

/// The name SQLite is given for a checked, absolute database path.
///
/// A path whose bytes are not UTF-8 is not given to SQLite as those bytes (as earlier releases,
/// whose SQLite layer took a `String`, could not): it is opened here (`O_NOFOLLOW`) and SQLite is
/// given `/proc/self/fd/N`. SQLite resolves that link to the file's real name, bytes and all,
/// and names `-wal` and `-shm` from it. The descriptor stays open as long as the connection.
struct SQLiteName {
    /// Closes its descriptor when the connection it named is gone (``DatabaseFile``).
    final class Descriptor: Sendable {
        private let fd: Mutex<Int32>
        init(_ fd: Int32) { self.fd = Mutex(fd) }

        /// Closes it now (once): under the door's lock, right after the connection it named.
        func close() {
            fd.withLock { fd in
                if fd >= 0 { _ = Glibc.close(fd) }
                fd = -1
            }
        }

        deinit { close() }
    }

    var text: String
    var file: [UInt8]
    var descriptor: Descriptor?

    fileprivate static func make(_ file: [UInt8], writable: Bool, path: DatabasePath) throws(StoreError) -> SQLiteName {
        if let text = String(validating: file, as: UTF8.self) { return SQLiteName(text: text, file: file) }
        let fd = file.withCString { open($0, (writable ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_CLOEXEC) }
        guard fd >= 0 else { throw .unavailable(reason: "cannot open \(path): \(FileSystem.describe(errno))") }
        return SQLiteName(text: "/proc/self/fd/\(fd)", file: file, descriptor: Descriptor(fd))
    }

    static func percentEncoded(_ bytes: [UInt8]) -> String {
        var out = ""
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return out
    }
}
