import SignupCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The store's door to libc for paths: folders, the database file's status, its side files and its disk.
///
/// Nothing here opens a descriptor of a database file or its side files: closing one would drop
/// the locks of this process's SQLite connection to it. That is ``DatabaseFile``'s alone.
///
/// Every call retries `EINTR` and turns `-1`/errno into a ``StoreError`` whose
/// reason names the path. Paths are bytes (``DatabasePath``), never re-encoded.
package enum FileSystem {
    /// What is at the database path, once every folder on the way was found trustworthy.
    enum Entry: Equatable {
        case missing
        case emptyFile
        case nonEmptyFile
    }

    /// A database path whose folders were walked and checked (see ``resolve(_:creatingFolders:)``).
    struct Resolved {
        /// The same file with every folder symbolic link replaced by what it points to.
        var canonical: [UInt8]
        /// What is at `canonical`.
        var entry: Entry
        /// A folder on the way is missing (and was not to be created): `canonical` is then the
        /// file's name in the deepest folder that exists, which no writer may use.
        var missingFolder: [UInt8]? = nil
    }

    /// The side files SQLite makes beside a database by appending to its name.
    static let sideSuffixes = ["-wal", "-shm", "-journal"]

    // MARK: - The trust walk (SECURITY.md, "Another local user")

    /// Walks `path` from `/`, one entry at a time and without following a link at the
    /// end, and refuses anything another user could have planted or can replace.
    ///
    /// The rule, after OpenSSH's StrictModes:
    /// - no folder on the way may be writable by its group or by others, unless it has
    ///   the sticky bit (`/tmp`), which stops others from replacing what they do not own;
    /// - an entry owned by another user than root or us, in a folder that others can
    ///   write (a sticky one), may have been planted by that user: refused;
    /// - the database's own folder may not be writable by others at all, sticky or not:
    ///   SQLite creates `-wal` and `-shm` there by name, and another user could plant them;
    /// - the database file is a regular file, not a symbolic link (never followed),
    ///   not writable by its group or others;
    /// - side files that already exist (`-wal`, `-shm`, `-journal`) are regular files, not links.
    ///
    /// A symbolic link among the folders is followed only after the same checks on the
    /// link itself (so a link planted in a sticky folder is refused), then its target
    /// is walked the same way. A folder owned by another user (a service account) in a
    /// folder only it and root can write is trusted, as is the file it holds there.
    /// Missing folders are created with mode 0700 when `creatingFolders`; otherwise a
    /// missing folder means the file is missing.
    ///
    /// `beforeWriting` checks as a writer would, without creating anything: a missing file
    /// in a folder others can write is refused, as a writer would refuse it. `database` false
    /// walks a file that is not a database (``TrustedFile``): no side files, messages that
    /// do not speak of SQLite's, and every folder it is looked up in belongs to root or us.
    static func resolve(_ path: DatabasePath, creatingFolders: Bool, beforeWriting: Bool = false, database: Bool = true) throws(StoreError) -> Resolved {
        var pending = components(path.bytes)
        guard let name = pending.popLast(), name != [UInt8(ascii: ".")], name != [UInt8(ascii: "."), UInt8(ascii: ".")],
              path.bytes.last != UInt8(ascii: "/")
        else { throw .unavailable(reason: "\(path) names a folder, not a database file") }
        pending.reverse()  // a stack: the next component is last

        var folders: [[UInt8]] = []  // the canonical folder, one component each
        var infos: [stat] = [try status(at: [UInt8(ascii: "/")], path: path)]
        try checkFolder(infos[0], at: [UInt8(ascii: "/")], path: path)
        var links = 0
        while let next = pending.popLast() {
            if next == [UInt8(ascii: ".")] { continue }
            if next == [UInt8(ascii: "."), UInt8(ascii: ".")] {
                if !folders.isEmpty { folders.removeLast(); infos.removeLast() }
                continue
            }
            if !database { try checkFolderOwner(infos.last!, at: joined(folders), path: path) }
            let here = joined(folders + [next])
            var info = stat()
            if lstatBytes(here, &info) != 0 {
                let code = errno
                guard code == ENOENT, creatingFolders else {
                    if code == ENOENT { return Resolved(canonical: joined(folders + [name]), entry: .missing, missingFolder: here) }
                    throw .unavailable(reason: "cannot use the folder \(visible(here)) for \(path): \(describe(code))")
                }
                try makeFolder(here, path: path)
                pending.append(next)
                continue
            }
            try checkOwner(info, at: here, parent: infos.last!, path: path)
            switch info.st_mode & S_IFMT {
            case S_IFLNK:
                links += 1
                guard links <= 40 else { throw .cannotUse(path, "too many symbolic links among its folders") }
                let target = try readLink(here, path: path)
                if target.first == UInt8(ascii: "/") { folders.removeAll(); infos.removeSubrange(1...) }
                pending += components(target).reversed()
            case S_IFDIR:
                try checkFolder(info, at: here, path: path)
                folders.append(next)
                infos.append(info)
            default:
                throw .cannotUse(path, "\(visible(here)) is not a folder")
            }
        }

        let folder = joined(folders)
        let folderInfo = infos.last!
        if !database { try checkFolderOwner(folderInfo, at: folder, path: path) }
        let file = joined(folders + [name])
        var info = stat()
        let found = lstatBytes(file, &info) == 0
        let missingCode = found ? 0 : errno
        if found { try checkFile(info, at: file, parent: folderInfo, path: path, database: database) }
        // A reader of a missing file uses nothing: only a writer is about to create files in this folder.
        if !found && missingCode == ENOENT && !creatingFolders && !beforeWriting { return Resolved(canonical: file, entry: .missing) }
        if folderInfo.st_mode & 0o022 != 0 {
            throw .cannotUse(path, "its folder \(visible(folder)) can be written by other users "
                + "(mode \(octal(folderInfo.st_mode))), who could "
                + (database ? "plant the database or the -wal and -shm files SQLite makes beside it" : "replace the file"))
        }
        if !database {
            guard found else { throw .cannotUse(path, describe(missingCode)) }
            return Resolved(canonical: file, entry: info.st_size == 0 ? .emptyFile : .nonEmptyFile)
        }
        guard found else {
            guard missingCode == ENOENT else { throw .cannotUse(path, describe(missingCode)) }
            try checkSideFiles(file, owner: nil, path: path)
            return Resolved(canonical: file, entry: .missing)
        }
        try checkSideFiles(file, owner: info.st_uid, path: path)
        return Resolved(canonical: file, entry: info.st_size == 0 ? .emptyFile : .nonEmptyFile)
    }

    private static func checkFile(_ info: stat, at file: [UInt8], parent: stat, path: DatabasePath, database: Bool) throws(StoreError) {
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFLNK:
            throw .cannotUse(path, "it is a symbolic link, and signup never follows one at "
                + (database ? "the database path" : "the path of a file it trusts"))
        case S_IFDIR: throw .unavailable(reason: "cannot open \(path): it is a folder, not a file")
        case S_IFIFO: throw .unavailable(reason: "cannot open \(path): it is a named pipe, not a file")
        case S_IFCHR, S_IFBLK: throw .unavailable(reason: "cannot open \(path): it is a device, not a file")
        default: throw .unavailable(reason: "cannot open \(path): it is not a regular file")
        }
        try checkOwner(info, at: file, parent: parent, path: path)
        if info.st_mode & 0o022 != 0 {
            throw .cannotUse(path, "other users can write it (mode \(octal(info.st_mode)))")
        }
    }

    /// Refuses a `-wal`, `-shm` or `-journal` that is not a plain file, belongs to another user
    /// than root, us or the database's owner, or that its group or others can write: SQLite
    /// replays a `-wal` into the database, so whoever can write it can write accounts.
    private static func checkSideFiles(_ file: [UInt8], owner: uid_t?, path: DatabasePath) throws(StoreError) {
        for suffix in sideSuffixes {
            var info = stat()
            guard lstatBytes(file + Array(suffix.utf8), &info) == 0 else { continue }
            guard info.st_mode & S_IFMT == S_IFREG else {
                let what = info.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : "not a regular file"
                throw .cannotUse(path, "its \(suffix) file is \(what)")
            }
            if info.st_uid != 0, info.st_uid != geteuid(), info.st_uid != owner {
                throw .cannotUse(path, "its \(suffix) file belongs to \(userName(info.st_uid)), "
                    + "who could write accounts through it")
            }
            if info.st_mode & 0o022 != 0 {
                throw .cannotUse(path, "other users can write its \(suffix) file "
                    + "(mode \(octal(info.st_mode))), and so write accounts through it")
            }
        }
    }

    /// Refuses a folder its group or others can write, unless sticky (they cannot replace what they do not own).
    private static func checkFolder(_ info: stat, at folder: [UInt8], path: DatabasePath) throws(StoreError) {
        if info.st_mode & 0o022 != 0 && info.st_mode & S_ISVTX == 0 {
            throw .cannotUse(path, "the folder \(visible(folder)) can be written by other users "
                + "(mode \(octal(info.st_mode))), who could replace what it holds")
        }
    }

    /// For a file that is not a database: refuses a folder it is looked up in (on the way, or
    /// holding a link on the way) that belongs to another user than root or us, who could
    /// remove or replace what it holds. A service account's folder holds its database; it
    /// never holds the settings of someone else.
    private static func checkFolderOwner(_ info: stat, at folder: [UInt8], path: DatabasePath) throws(StoreError) {
        guard info.st_uid != 0, info.st_uid != geteuid() else { return }
        throw .cannotUse(path, "its folder \(visible(folder)) belongs to \(userName(info.st_uid)), "
            + "who could remove or replace the file")
    }

    /// Refuses an entry owned by another user than root or us in a folder that others can write.
    private static func checkOwner(_ info: stat, at entry: [UInt8], parent: stat, path: DatabasePath) throws(StoreError) {
        guard info.st_uid != 0, info.st_uid != geteuid(), parent.st_mode & 0o022 != 0 else { return }
        throw .cannotUse(path, "\(visible(entry)) belongs to \(userName(info.st_uid)) "
            + "in a folder other users can write, so that user may have planted it")
    }

    // MARK: - Creating

    private static func makeFolder(_ folder: [UInt8], path: DatabasePath) throws(StoreError) {
        if retryingInterrupts({ folder.withCString { mkdir($0, 0o700) } }) != 0 {
            let code = errno
            if code == EEXIST { return }  // someone else just made it: it is checked like any other
            throw .unavailable(reason: "cannot create the folder \(visible(folder)): \(describe(code))")
        }
        // mkdir's mode went through the umask; state it exactly.
        _ = folder.withCString { chmod($0, 0o700) }
    }

    // MARK: - Questions

    /// Whether the file at `file` exists and this process may not read it (its mode, an ACL).
    static func isUnreadable(_ file: [UInt8]) -> Bool {
        var info = stat()
        return lstatBytes(file, &info) == 0 && accessBytes(file, R_OK) != 0 && errno == EACCES
    }

    /// Whether this process may write the file at `file` but not the folder it is in.
    static func onlyItsFolderIsReadOnly(_ file: [UInt8]) -> Bool {
        file.withCString { access($0, W_OK) } == 0 && parent(of: file).withCString { access($0, W_OK) } != 0
    }

    /// Whether this process may write `file` and create files beside it (what SQLite's WAL needs).
    ///
    /// `access(2)` also answers for root, which permission bits do not stop but an
    /// immutable file, folder or read-only mount do.
    static func isWritable(_ file: [UInt8]) -> Bool {
        file.withCString { access($0, W_OK) } == 0 && parent(of: file).withCString { access($0, W_OK) } == 0
    }

    /// The size of the file at `file`, or nil when there is none.
    static func size(of file: [UInt8]) -> Int? {
        var info = stat()
        guard lstatBytes(file, &info) == 0 else { return nil }
        return Int(info.st_size)
    }

    /// Whether the file system holding `file` has no block left for us.
    static func isFull(_ file: [UInt8]) -> Bool {
        var info = statvfs()
        guard parent(of: file).withCString({ statvfs($0, &info) }) == 0 else { return false }
        return info.f_bavail == 0
    }

    /// The current user's home folder from the password database (`getpwuid_r`).
    static func homeFolder() -> [UInt8]? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(getuid(), &entry, &buffer, buffer.count, &result) == 0,
              result != nil, let directory = entry.pw_dir
        else { return nil }
        let home = bytes(of: directory)
        return home.first == UInt8(ascii: "/") ? home : nil
    }

    /// The bytes of a C string, as they are (no UTF-8 repair).
    static func bytes(of string: UnsafePointer<CChar>) -> [UInt8] {
        Array(UnsafeBufferPointer(start: UnsafeRawPointer(string).assumingMemoryBound(to: UInt8.self), count: strlen(string)))
    }

    /// Refuses, without writing, a database that does not exist yet (or is an empty file, which a
    /// writer sets to 0600 and fills) where a writer could not make it: the folder it would be
    /// made in, or the nearest existing folder above it, must be writable by this process
    /// (`faccessat` with the effective ids; a read-only mount and an immutable folder stop root too).
    static func checkWritable(_ resolved: Resolved, path: DatabasePath) throws(StoreError) {
        var folder = parent(of: resolved.canonical)
        var info = stat()
        while resolved.entry == .missing && folder != [UInt8(ascii: "/")] && lstatBytes(folder, &info) != 0 {
            folder = parent(of: folder)
        }
        guard accessBytes(folder, W_OK | X_OK) == 0 else {
            let code = errno
            throw .unavailable(reason: "cannot write in the folder \(visible(folder)) for \(path): \(describe(code))")
        }
    }

    private static func accessBytes(_ entry: [UInt8], _ mode: Int32) -> Int32 {
        retryingInterrupts { entry.withCString { faccessat(AT_FDCWD, $0, mode, AT_EACCESS) } }
    }

    static func describe(_ code: Int32) -> String {
        guard let message = strerror(code) else { return "error \(code)" }
        return String(cString: message)
    }

    // MARK: - Bytes

    static func parent(of file: [UInt8]) -> [UInt8] {
        guard let slash = file.lastIndex(of: UInt8(ascii: "/")) else { return Array(".".utf8) }
        return slash == 0 ? [UInt8(ascii: "/")] : Array(file[..<slash])
    }

    static func visible(_ bytes: [UInt8]) -> String {
        (try? DatabasePath(bytes))?.description ?? "?"
    }

    private static func components(_ bytes: [UInt8]) -> [[UInt8]] {
        bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map(Array.init)
    }

    private static func joined(_ components: [[UInt8]]) -> [UInt8] {
        components.isEmpty ? [UInt8(ascii: "/")] : components.flatMap { [UInt8(ascii: "/")] + $0 }
    }

    private static func status(at entry: [UInt8], path: DatabasePath) throws(StoreError) -> stat {
        var info = stat()
        guard lstatBytes(entry, &info) == 0 else {
            throw .cannotUse(path, describe(errno))
        }
        return info
    }

    static func lstatBytes(_ entry: [UInt8], _ info: inout stat) -> Int32 {
        retryingInterrupts { entry.withCString { lstat($0, &info) } }
    }

    private static func readLink(_ link: [UInt8], path: DatabasePath) throws(StoreError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = link.withCString { name in
            buffer.withUnsafeMutableBytes { readlink(name, $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count) }
        }
        guard count > 0 else { throw .unavailable(reason: "cannot read the link \(visible(link)) for \(path): \(describe(errno))") }
        return Array(buffer.prefix(count))
    }

    static func octal(_ mode: mode_t) -> String {
        "0" + String(mode & 0o7777, radix: 8)
    }

    static func userName(_ uid: uid_t) -> String {
        guard let name = accountName(of: uid) else { return "user \(uid)" }
        return "user \(VisibleText.of(name)) (\(uid))"
    }

    /// The name the password database gives `uid`, as it is (not yet made visible); nil when it has none.
    /// The corresponding C function is `getpwuid_r`.
    package static func accountName(of uid: uid_t) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else { return nil }
        return String(cString: name)
    }

    /// Calls `call` again while it fails with `EINTR`.
    static func retryingInterrupts(_ call: () -> Int32) -> Int32 {
        while true {
            let result = call()
            if result == -1 && errno == EINTR { continue }
            return result
        }
    }
}

extension [UInt8] {
    /// Calls `body` with these bytes as a NUL-terminated C string.
    func withCString<R>(_ body: (UnsafePointer<CChar>) -> R) -> R {
        (self + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
        }
    }
}
