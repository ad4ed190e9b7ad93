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
    /// contains a password or a hash. The problem is the same failure as a value, for a program
    /// to decide on: a reason's words are never matched.
    case unavailable(reason: String, problem: StoreProblem = .other)

    /// A short English sentence for people.
    public var description: String {
        switch self {
        case .emailTaken:
            "An account with this email already exists"
        case .noAccount:
            "No account has this email"
        case .limitReached(let refusal):
            refusal.message
        case .unavailable(let reason, _):
            reason
        }
    }

    /// A path signup will not use, and why (`cannot use PATH: WHY`): the reason for people, and
    /// the why alone as ``StoreProblem/pathRefused(why:)`` for a message that names the path itself.
    static func cannotUse(_ path: some CustomStringConvertible, _ why: String) -> StoreError {
        .unavailable(reason: "cannot use \(path): \(why)", problem: .pathRefused(why: why))
    }
}

/// What kind of failure made a database unusable (`StoreError.unavailable(reason:problem:)`).
public enum StoreProblem: Sendable, Equatable {
    /// The database, or the folder SQLite keeps its -wal and -shm files in, cannot be written.
    case readOnly
    /// Another program holds the database's lock for longer than the store waits.
    case locked
    /// The disk holding the database is full.
    case diskFull
    /// This user may not read or use the database.
    case noPermission
    /// The file is not a signup database, or it is damaged.
    case notASignupDatabase
    /// The PostgreSQL server cannot be reached, or the connection was lost.
    case unreachable
    /// PostgreSQL is named, but it cannot be used on this machine (libpq cannot be loaded).
    case postgresMissing
    /// A path signup does not use (a planted link, a folder or file other users can change, a
    /// file that is missing or is not a file); `why` says so without the path.
    case pathRefused(why: String)
    /// Any other failure; the reason says what.
    case other
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
            return .cannotUse(path, "a symbolic link took the place of a file or folder on its path as it was "
                + "opened, and signup never follows one there; nothing was written")
        }
        switch error.code {
        case SQLITE_READONLY where FileSystem.onlyItsFolderIsReadOnly(path.bytes):
            return .unavailable(reason: "the database \(path) is in a folder that cannot be written: SQLite keeps its -wal and -shm files beside it", problem: .readOnly)
        case SQLITE_READONLY:
            return .unavailable(reason: "the database \(path) is read-only", problem: .readOnly)
        case SQLITE_BUSY, SQLITE_LOCKED, SQLITE_PROTOCOL:
            // SQLITE_PROTOCOL: a lock of the -shm kept from SQLite for as long as it retries (another
            // process holding it, as any reader of the file can).
            return .unavailable(reason: "the database \(path) is locked by another program", problem: .locked)
        case SQLITE_FULL:
            return .unavailable(reason: "the disk is full (database \(path))", problem: .diskFull)
        case SQLITE_IOERR where FileSystem.isFull(path.bytes), SQLITE_CANTOPEN where FileSystem.isFull(path.bytes):
            // A full disk also shows as an I/O error (extending -shm) or a file that cannot be made.
            return .unavailable(reason: "the disk is full (database \(path))", problem: .diskFull)
        case SQLITE_CANTOPEN where FileSystem.isUnreadable(path.bytes):
            // Checked before "read-only": a file this user may neither read nor write is not read-only to it.
            return .unavailable(reason: "no permission to read the database \(path)", problem: .noPermission)
        case SQLITE_CANTOPEN where (FileSystem.size(of: path.bytes) ?? 0) > 0 && !FileSystem.isWritable(path.bytes):
            return .unavailable(reason: "the database \(path) is read-only (or its folder is)", problem: .readOnly)
        case SQLITE_CANTOPEN:
            return .unavailable(reason: "cannot open \(path)")
        case SQLITE_NOTADB:
            return .unavailable(reason: "\(path) is not a signup database", problem: .notASignupDatabase)
        case SQLITE_CORRUPT:
            return .unavailable(reason: "the database \(path) is damaged", problem: .notASignupDatabase)
        case SQLITE_PERM, SQLITE_AUTH:
            return .unavailable(reason: "no permission to use \(path)", problem: .noPermission)
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
        .unavailable(reason: "\(path) is not a signup database", problem: .notASignupDatabase)
    }
}
