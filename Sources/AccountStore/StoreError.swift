import CSQLite

/// Why the account store could not do what it was asked.
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An account with the same email key already exists.
    case emailTaken
    /// No account has this email's key (a change, a state, a delete: nothing was done).
    case noAccount
    /// A public limit was reached (``SignupLimits``): which one, as a value (too many accounts or
    /// mails from this client or from everyone in the window). Nothing was stored; its message
    /// says when to try again.
    case limitReached(LimitRefusal)
    /// The database cannot be used: disk full, read-only, locked, missing folder, not a database.
    ///
    /// The reason is a short sentence for people that names the path; it never
    /// contains a password or a hash.
    case unavailable(reason: String)

    /// A short English sentence for people.
    public var description: String {
        switch self {
        case .emailTaken:
            "An account with this email already exists"
        case .noAccount:
            "No account has this email"
        case .limitReached(let refusal):
            refusal.message
        case .unavailable(let reason):
            reason
        }
    }
}

extension StoreError {
    /// Maps an error thrown while using the database at `path` (``SQLiteError`` from SQLite.swift).
    ///
    /// SQLite's own messages are not passed on: they can quote SQL, and the
    /// person needs to know what to do, not which statement failed.
    static func from(_ error: any Error, path: DatabasePath) -> StoreError {
        if let error = error as? StoreError { return error }
        guard let error = error as? SQLiteError else {
            return .unavailable(reason: "the database \(path) cannot be used")
        }
        if error.extendedCode == CSQLITE_CONSTRAINT_UNIQUE {
            return .emailTaken
        }
        if error.extendedCode == CSQLITE_CANTOPEN_SYMLINK {
            return .unavailable(reason: "cannot use \(path): a symbolic link took the place of a file or folder on its path as it was "
                + "opened, and signup never follows one there; nothing was written")
        }
        switch error.code {
        case SQLITE_READONLY where FileSystem.onlyItsFolderIsReadOnly(path.bytes):
            return .unavailable(reason: "the database \(path) is in a folder that cannot be written: SQLite keeps its -wal and -shm files beside it")
        case SQLITE_READONLY:
            return .unavailable(reason: "the database \(path) is read-only")
        case SQLITE_BUSY, SQLITE_LOCKED, SQLITE_PROTOCOL:
            // SQLITE_PROTOCOL: a lock of the -shm kept from SQLite for as long as it retries (another
            // process holding it, as any reader of the file can).
            return .unavailable(reason: "the database \(path) is locked by another program")
        case SQLITE_FULL:
            return .unavailable(reason: "the disk is full (database \(path))")
        case SQLITE_IOERR where FileSystem.isFull(path.bytes), SQLITE_CANTOPEN where FileSystem.isFull(path.bytes):
            // A full disk also shows as an I/O error (extending -shm) or a file that cannot be made.
            return .unavailable(reason: "the disk is full (database \(path))")
        case SQLITE_CANTOPEN where FileSystem.isUnreadable(path.bytes):
            // Checked before "read-only": a file this user may neither read nor write is not read-only to it.
            return .unavailable(reason: "no permission to read the database \(path)")
        case SQLITE_CANTOPEN where (FileSystem.size(of: path.bytes) ?? 0) > 0 && !FileSystem.isWritable(path.bytes):
            return .unavailable(reason: "the database \(path) is read-only (or its folder is)")
        case SQLITE_CANTOPEN:
            return .unavailable(reason: "cannot open \(path)")
        case SQLITE_NOTADB:
            return .unavailable(reason: "\(path) is not a signup database")
        case SQLITE_CORRUPT:
            return .unavailable(reason: "the database \(path) is damaged")
        case SQLITE_PERM, SQLITE_AUTH:
            return .unavailable(reason: "no permission to use \(path)")
        case SQLITE_IOERR:
            return .unavailable(reason: "cannot read or write \(path) (input/output error)")
        case SQLITE_NOMEM:
            return .unavailable(reason: "out of memory while using \(path)")
        default:
            return .unavailable(reason: "the database \(path) cannot be used (SQLite error \(error.extendedCode))")
        }
    }

    /// The error for a database at `path` that SQLite can read but that is not ours.
    static func notSignupDatabase(_ path: DatabasePath) -> StoreError {
        .unavailable(reason: "\(path) is not a signup database")
    }
}
