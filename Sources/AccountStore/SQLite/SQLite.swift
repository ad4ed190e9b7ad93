import CSQLite
#if canImport(Glibc)
import Glibc
#endif

// The one door to SQLite: the only code in the package that calls sqlite3_* (as Libpq.swift is
// for PostgreSQL). What it offers is what the store uses: a connection opened with the store's
// flags and settings, statements with Int64, text and NULL, transactions, and errors that keep
// SQLite's extended result code for `StoreError.from(_:path:)`.

/// A failure SQLite reported: its extended result code, and its message (for programmers; never shown).
struct SQLiteError: Error, CustomStringConvertible {
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, `SQLITE_IOERR_WRITE`...).
    let extendedCode: Int32
    let message: String

    /// The primary result code (`SQLITE_CONSTRAINT`, `SQLITE_IOERR`...).
    var code: Int32 { extendedCode & 0xFF }

    /// Another connection holds the lock this call needed (`SQLITE_BUSY`).
    var isBusy: Bool { code == SQLITE_BUSY }

    init(code: Int32, message: String? = nil) {
        extendedCode = code
        self.message = message ?? sqlite3_errstr(code).map { String(cString: $0) } ?? "SQLite error \(code)"
    }

    var description: String { "SQLite error \(extendedCode): \(message)" }
}

/// A value bound to a statement's parameter.
enum SQLiteValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByNilLiteral {
    case integer(Int64)
    case text(String)
    case null

    init(stringLiteral value: String) { self = .text(value) }
    init(integerLiteral value: Int64) { self = .integer(value) }
    init(nilLiteral: ()) { self = .null }
    init(_ value: String?) { self = value.map { .text($0) } ?? .null }
    init(_ value: Int64) { self = .integer(value) }
}

/// One connection to one database file, used by one caller at a time.
///
/// Every use goes through ``access(_:)``, which holds the connection's own mutex (SQLite is built
/// thread-safe, so every connection has one, and it is recursive): a store shared by threads runs
/// one transaction at a time on it.
final class SQLiteConnection: @unchecked Sendable {
    /// The `sqlite3 *`; nil once closed.
    private var handle: OpaquePointer?
    /// Opened `SQLITE_OPEN_READONLY`: reads need no `PRAGMA query_only` then.
    let isReadOnly: Bool

    /// How a connection is opened.
    enum Mode {
        /// Read-write, created when missing (`SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE`).
        case readWrite
        /// `SQLITE_OPEN_READONLY`: never writes, never checkpoints, not even when it closes.
        case readOnly
        /// `SQLITE_OPEN_READONLY | SQLITE_OPEN_URI`, for a `file:` URI (`immutable=1`).
        case readOnlyURI
    }

    /// Opens `name` (a path, `/proc/self/fd/N`, or with `.readOnlyURI` a `file:` URI).
    ///
    /// Set up as the store always has: extended result codes, `busyTimeout` seconds of waiting
    /// for another connection's lock (none when nil), double-quoted strings only as identifiers,
    /// foreign keys enforced, then `settings` (PRAGMAs of this connection only), and last the
    /// schema is read once, so a file that is not a database fails here (`SQLITE_NOTADB`).
    ///
    /// With `keepingSideFiles`, the `-wal` and `-shm` stay beside the file when the last connection
    /// closes (`SQLITE_FCNTL_PERSIST_WAL`), the `-wal` cut to nothing: a reader that may not create
    /// files in the folder (another user's mail server) needs them there to read a WAL database.
    init(_ name: String, mode: Mode, busyTimeout: Double?, settings: [String] = [], keepingSideFiles: Bool = false) throws {
        var flags = mode == .readWrite ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY
        if mode == .readOnlyURI { flags |= SQLITE_OPEN_URI }
        flags |= SQLITE_OPEN_EXRESCODE
        // SQLite opens only the path signup checked (FileSystem.resolve made it canonical, with
        // no link in it): a symbolic link found there now, swapped in since by whoever may write
        // the folder, makes SQLite refuse to open (SQLITE_CANTOPEN_SYMLINK) where it would follow
        // it and create or write the file it names. `/proc/self/fd/N` is a link by nature, to a
        // descriptor signup opened with O_NOFOLLOW (SQLiteName).
        if !name.hasPrefix("/proc/self/fd/") { flags |= SQLITE_OPEN_NOFOLLOW }
        isReadOnly = mode != .readWrite
        // libsqlite3 is loaded here, the first time (Sources/CSQLite): without it no database can be used.
        if let failure = csqlite_failure() { throw StoreError.unavailable(reason: String(cString: failure)) }
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(name, &opened, flags, nil)
        guard code == SQLITE_OK, let opened else {
            // A failed open still gives a handle to release (sqlite3_open_v2's documentation).
            let error = opened.map { SQLiteError(code: code, message: String(cString: sqlite3_errmsg($0))) } ?? SQLiteError(code: code)
            sqlite3_close(opened)
            throw error
        }
        handle = opened
        do {
            if let busyTimeout { sqlite3_busy_timeout(opened, Int32(busyTimeout * 1000)) }
            _ = csqlite_disable_double_quoted_strings(opened)
            if keepingSideFiles {
                var keep: Int32 = 1
                let code = sqlite3_file_control(opened, "main", SQLITE_FCNTL_PERSIST_WAL, &keep)
                guard code == SQLITE_OK else { throw SQLiteError(code: code) }
            }
            try execute("PRAGMA foreign_keys = ON")
            for setting in settings { try execute(setting) }
            // Users of a file that is not a database learn it here, not at the first query.
            try withStatement("SELECT * FROM sqlite_master LIMIT 1") { statement in _ = try statement.step() }
        } catch {
            sqlite3_close(opened)
            handle = nil
            throw error
        }
    }

    /// Whether the `-wal` and `-shm` stay beside the file when the last connection closes WAL
    /// (`SQLITE_FCNTL_PERSIST_WAL`); off, leaving WAL removes them.
    func keepSideFiles(_ keep: Bool) throws(SQLiteError) {
        var flag: Int32 = keep ? 1 : 0
        let code = sqlite3_file_control(try db, "main", SQLITE_FCNTL_PERSIST_WAL, &flag)
        guard code == SQLITE_OK else { throw SQLiteError(code: code) }
    }

    /// Copies this connection's database, page by page, into `destination`'s (SQLite's online
    /// backup, `sqlite3_backup_*`): one consistent snapshot, taken while others go on reading and
    /// writing. Waits (every 20 ms, up to `seconds`) while either side is locked by another writer.
    func copy(into destination: SQLiteConnection, waitingUpTo seconds: Double) throws(SQLiteError) {
        let source = try db, target = try destination.db
        guard let backup = sqlite3_backup_init(target, "main", source, "main") else { throw destination.lastError() }
        let deadline = Self.monotonicSeconds() + seconds
        var code: Int32
        while true {
            code = sqlite3_backup_step(backup, -1)
            let locked = code & 0xFF == SQLITE_BUSY || code & 0xFF == SQLITE_LOCKED
            guard code == SQLITE_OK || (locked && Self.monotonicSeconds() < deadline) else { break }
            if locked { usleep(20_000) }
        }
        let finished = sqlite3_backup_finish(backup)
        guard code == SQLITE_DONE else { throw SQLiteError(code: code, message: String(cString: sqlite3_errstr(code))) }
        guard finished == SQLITE_OK else { throw destination.lastError(finished) }
    }

    deinit {
        // Statements are all finalized by now (each lives in one `withStatement`); close_v2 in any case.
        if let handle { sqlite3_close_v2(handle) }
    }

    /// Closes the connection now, reporting a failure (a read-only connection never writes as it closes).
    func close() throws(SQLiteError) {
        guard let handle else { return }
        let code = sqlite3_close(handle)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle))) }
        self.handle = nil
    }

    /// The open handle; a closed connection fails as SQLite's own misuse would.
    private var db: OpaquePointer {
        get throws(SQLiteError) {
            guard let handle else { throw SQLiteError(code: SQLITE_MISUSE, message: "the connection is closed") }
            return handle
        }
    }

    /// The error the last failed call on this connection left.
    private func lastError(_ code: Int32? = nil) -> SQLiteError {
        guard let handle else { return SQLiteError(code: code ?? SQLITE_MISUSE) }
        let extended = sqlite3_extended_errcode(handle)
        // A code given by the failed call wins if the connection's own was overwritten meanwhile.
        let chosen = code.map { ($0 & 0xFF) == (extended & 0xFF) ? extended : $0 } ?? extended
        return SQLiteError(code: chosen, message: String(cString: sqlite3_errmsg(handle)))
    }

    /// Runs `body` holding this connection's mutex: one caller at a time, from any thread.
    func access<T>(_ body: () throws -> T) throws -> T {
        let mutex = handle.flatMap { sqlite3_db_mutex($0) }
        sqlite3_mutex_enter(mutex)
        defer { sqlite3_mutex_leave(mutex) }
        return try body()
    }

    // MARK: - Statements

    /// A prepared statement, finalized when `withStatement` returns or throws.
    struct Statement: ~Copyable {
        fileprivate let raw: OpaquePointer
        fileprivate let connection: SQLiteConnection

        /// Binds `values` to `?1`, `?2`... after resetting the statement: it can then run again.
        func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
            sqlite3_reset(raw)
            sqlite3_clear_bindings(raw)
            for (offset, value) in values.enumerated() {
                let index = Int32(offset + 1)
                let code: Int32 = switch value {
                case .integer(let integer): sqlite3_bind_int64(raw, index, integer)
                case .null: sqlite3_bind_null(raw, index)
                case .text(let text):
                    // SQLITE_TRANSIENT: SQLite copies the bytes before the call returns. By length,
                    // so a NUL inside the text is kept.
                    text.utf8CString.withUnsafeBufferPointer {
                        sqlite3_bind_text(raw, index, $0.baseAddress, Int32($0.count - 1), csqlite_transient())
                    }
                }
                guard code == SQLITE_OK else { throw connection.lastError(code) }
            }
        }

        /// Advances to the next row: true on a row, false when done.
        func step() throws(SQLiteError) -> Bool {
            switch csqlite_step(raw) {
            case SQLITE_ROW: return true
            case SQLITE_DONE: return false
            case let code: throw connection.lastError(code)
            }
        }

        /// Steps until done, ignoring any rows.
        func run() throws(SQLiteError) {
            while try step() {}
        }

        func int64(_ column: Int32) -> Int64 {
            csqlite_column_int64(raw, column)
        }

        /// A text column of the current row, every byte of it: read by its length, so a NUL inside
        /// is kept; bytes that are not UTF-8 are repaired as Swift repairs any outside text.
        /// NULL reads as "".
        func text(_ column: Int32) -> String {
            guard let bytes = csqlite_column_text(raw, column) else { return "" }
            let count = Int(csqlite_column_bytes(raw, column))
            return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
        }

        /// A text column's bytes as SQLite holds them, for `body` only: they are SQLite's, valid
        /// until the next step. NULL reads as no bytes.
        func withBytes<T>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
            guard let bytes = csqlite_column_text(raw, column) else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
            return body(UnsafeBufferPointer(start: bytes, count: Int(csqlite_column_bytes(raw, column))))
        }

        func isNull(_ column: Int32) -> Bool {
            csqlite_column_type(raw, column) == SQLITE_NULL
        }

        /// A text column, nil when NULL.
        func optionalText(_ column: Int32) -> String? {
            isNull(column) ? nil : text(column)
        }

        deinit { sqlite3_finalize(raw) }
    }

    /// Prepares `sql` (one statement), binds `arguments`, runs `body` with it, and finalizes it on every path.
    func withStatement<T>(_ sql: String, _ arguments: [SQLiteValue] = [], _ body: (borrowing Statement) throws -> T) throws -> T {
        let db = try db
        var raw: OpaquePointer?
        let code = sqlite3_prepare_v2(db, sql, -1, &raw, nil)
        guard code == SQLITE_OK else {
            let error = lastError(code)
            sqlite3_finalize(raw)
            throw error
        }
        guard let raw else { throw SQLiteError(code: SQLITE_MISUSE, message: "no statement in the SQL") }
        let statement = Statement(raw: raw, connection: self)
        if !arguments.isEmpty { try statement.bind(arguments) }
        return try body(statement)
    }

    /// Runs one statement to its end; returns how many rows it changed.
    @discardableResult
    func execute(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> Int {
        try withStatement(sql, arguments) { statement in
            try statement.run()
            return changes
        }
    }

    /// The first column of the first row as text (nil without a row, or when NULL).
    func text(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> String? {
        try rows(sql, arguments) { $0.optionalText(0) }.first ?? nil
    }

    /// The first column of the first row as an integer (nil without a row, or when NULL).
    func integer(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> Int64? {
        try rows(sql, arguments) { $0.isNull(0) ? nil : $0.int64(0) }.first ?? nil
    }

    /// The first column of every row as text (NULL as "").
    func texts(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> [String] {
        try rows(sql, arguments) { $0.text(0) }
    }

    /// Every row of `sql`, each made into a value by `row`.
    func rows<T>(_ sql: String, _ arguments: [SQLiteValue] = [], _ row: (borrowing Statement) -> T) throws -> [T] {
        try withStatement(sql, arguments) { statement in
            var all: [T] = []
            while try statement.step() { all.append(row(statement)) }
            return all
        }
    }

    /// The rowid of the last row this connection inserted.
    var lastInsertedRowID: Int64 { handle.map { sqlite3_last_insert_rowid($0) } ?? 0 }

    /// Rows changed by the last INSERT, UPDATE or DELETE of this connection.
    var changes: Int { handle.map { Int(sqlite3_changes($0)) } ?? 0 }

    /// Whether no transaction is open (SQLite rolls some back by itself after an error).
    var isAutocommit: Bool { handle.map { sqlite3_get_autocommit($0) != 0 } ?? true }

    // MARK: - Transactions

    enum TransactionKind: String {
        case deferred = "DEFERRED"
        /// Takes the write lock at BEGIN (waiting up to the busy timeout), so a transaction
        /// that reads and then writes is never refused half-way for another writer.
        case immediate = "IMMEDIATE"
    }

    enum Completion { case commit, rollback }

    /// Runs `body` in a transaction that it ends by its return value; an error rolls it back.
    ///
    /// A failed COMMIT (a full disk, a lost lock) rolls back what is left of the transaction:
    /// nothing of it is stored, and the first error is the one thrown.
    func inTransaction(_ kind: TransactionKind, _ body: () throws -> Completion) throws {
        try execute("BEGIN \(kind.rawValue) TRANSACTION")
        do {
            switch try body() {
            case .commit: try execute("COMMIT TRANSACTION")
            case .rollback: try rollback()
            }
        } catch {
            try? rollback()
            throw error
        }
    }

    /// Rolls back the open transaction, if SQLite has not already rolled it back after an error.
    private func rollback() throws {
        if !isAutocommit { try execute("ROLLBACK TRANSACTION") }
    }

    /// Runs `body` in a deferred transaction that cannot write: `PRAGMA query_only` on a
    /// read-write connection, so a reader never changes the file (nor leaves its side files).
    func read<T>(_ body: () throws -> T) throws -> T {
        if !isReadOnly { try execute("PRAGMA query_only = 1") }
        defer { if !isReadOnly { _ = try? execute("PRAGMA query_only = 0") } }
        var result: T?
        try inTransaction(.deferred) {
            result = try body()
            return .commit
        }
        return result!
    }
}

extension SQLiteConnection {
    /// Runs `body` again, every 20 ms, while it fails with SQLITE_BUSY, for up to `seconds` in all:
    /// a wait for what SQLite's own busy handler does not wait for.
    func retryingWhileBusy(for seconds: Double, _ body: () throws -> Void) throws {
        let deadline = Self.monotonicSeconds() + seconds
        while true {
            do {
                return try body()
            } catch let error as SQLiteError where error.code == SQLITE_BUSY && Self.monotonicSeconds() < deadline {
                usleep(20_000)
            }
        }
    }

    static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
