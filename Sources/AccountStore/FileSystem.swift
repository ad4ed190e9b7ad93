#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The store's only door to libc: folders, the database file and its size.
///
/// Every call retries `EINTR` and turns `-1`/errno into a ``StoreError`` whose
/// reason names the path.
enum FileSystem {
    /// What is at a path, as far as opening a database is concerned.
    enum Entry: Equatable {
        case missing
        case emptyFile
        case nonEmptyFile
        case other
    }

    /// Serializes "does the file exist, else create it" within this process.
    ///
    /// Closing any descriptor of a file drops every POSIX lock this process holds
    /// on it, SQLite's included. Creating and closing under this lock means no
    /// other store in the process can have opened (and locked) a file we are
    /// still holding a descriptor to.
    private static let creation = Mutex(())

    static func entry(at path: String) -> Entry {
        var info = stat()
        let result = retryingInterrupts { stat(path, &info) }
        guard result == 0 else { return .missing }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .other }
        return info.st_size == 0 ? .emptyFile : .nonEmptyFile
    }

    /// Creates `folder` and any missing parents with mode 0700.
    ///
    /// Folders that already exist keep their mode.
    static func createFolders(_ folder: String) throws(StoreError) {
        guard !folder.isEmpty else { return }
        var missing: [String] = []
        var current = folder
        while !current.isEmpty, current != "/", entry(at: current) == .missing {
            missing.append(current)
            current = parent(of: current)
        }
        for path in missing.reversed() {
            if retryingInterrupts({ mkdir(path, 0o700) }) != 0 {
                let code = errno
                if code == EEXIST { continue }  // someone else just made it
                throw .unavailable(reason: "cannot create the folder \(path): \(describe(code))")
            }
            // mkdir's mode went through the umask; state it exactly.
            _ = chmod(path, 0o700)
        }
        var info = stat()
        if stat(folder, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR {
            throw .unavailable(reason: "cannot use the folder \(folder): it is not a folder")
        }
    }

    /// Creates the database file with mode 0600 when it does not exist yet, so
    /// SQLite never creates it with its own default mode. A zero-byte file is
    /// treated as new and gets mode 0600 too.
    static func createDatabaseFile(_ path: String) throws(StoreError) {
        try creation.withLock { _ throws(StoreError) in
            switch entry(at: path) {
            case .nonEmptyFile, .other:
                return
            case .emptyFile:
                _ = chmod(path, 0o600)
            case .missing:
                let fd = retryingInterrupts { open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
                if fd < 0 {
                    let code = errno
                    if code == EEXIST { return }
                    throw .unavailable(reason: "cannot create \(path): \(describe(code))")
                }
                _ = fchmod(fd, 0o600)
                _ = close(fd)
            }
        }
    }

    /// The current user's home folder from the password database (`getpwuid_r`).
    static func homeFolder() -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(getuid(), &entry, &buffer, buffer.count, &result) == 0,
              result != nil, let directory = entry.pw_dir
        else { return nil }
        let home = String(cString: directory)
        return home.isEmpty ? nil : home
    }

    /// Whether this process may write `path` and create files beside it (what SQLite's WAL needs).
    ///
    /// `access(2)` also answers for root, which permission bits do not stop but an
    /// immutable file, folder or read-only mount do.
    static func isWritable(_ path: String) -> Bool {
        access(path, W_OK) == 0 && access(parent(of: path), W_OK) == 0
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    static func describe(_ code: Int32) -> String {
        guard let message = strerror(code) else { return "error \(code)" }
        return String(cString: message)
    }

    private static func retryingInterrupts(_ call: () -> Int32) -> Int32 {
        while true {
            let result = call()
            if result == -1 && errno == EINTR { continue }
            return result
        }
    }
}
