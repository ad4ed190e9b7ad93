import SignupCore
#if canImport(Glibc)
import Glibc
#endif

extension AccountStore {
    /// Copies the database into the file `destination`, as one consistent snapshot, through
    /// SQLite's online backup (`sqlite3_backup_*`): sign-ups and readers go on meanwhile.
    ///
    /// The copy is one self-contained file in the rollback journal (no `-wal` or `-shm` to keep
    /// with it), with the database file's owner and group (when run by root) and its mode less
    /// any write bit for group and others (0600 stays 0600, 0640 stays 0640). It is written
    /// beside `destination` under a temporary name and renamed over it once whole, so
    /// `destination` is never a half copy; an existing `destination` is replaced. The checks
    /// of a database path apply to it (no link, nothing another user planted), and it may not
    /// be the database itself. Its folder must exist: a missing one is refused, never replaced by
    /// the deepest folder on the way that does.
    public func backUp(to destination: DatabasePath) throws(StoreError) {
        let target = try FileSystem.resolve(destination, creatingFolders: false, beforeWriting: true)
        // A backup goes where it was told or nowhere: never into the deepest folder that exists.
        if let folder = target.missingFolder {
            throw .unavailable(reason: "cannot back up to \(destination): the folder \(FileSystem.visible(folder)) does not exist")
        }
        var database = stat()
        guard file.canonical.withCString({ lstat($0, &database) }) == 0 else {
            throw .unavailable(reason: "cannot read \(path): \(FileSystem.describe(errno))")
        }
        var existing = stat()
        if target.canonical.withCString({ lstat($0, &existing) }) == 0,
           existing.st_dev == database.st_dev, existing.st_ino == database.st_ino {
            throw .unavailable(reason: "cannot back up \(path) onto itself")
        }
        var template = Array((String(decoding: target.canonical, as: UTF8.self) + ".partial-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw .unavailable(reason: "cannot create \(destination): \(FileSystem.describe(errno))") }
        let partial = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if geteuid() == 0 { _ = fchown(fd, database.st_uid, database.st_gid) }
        _ = fchmod(fd, database.st_mode & 0o640)
        _ = close(fd)  // a new inode: no connection of this process holds a lock on it
        do {
            let copy = try SQLiteConnection(partial, mode: .readWrite, busyTimeout: Self.busyTimeout)
            do {
                try db.access { try db.copy(into: copy, waitingUpTo: Self.busyTimeout) }
                // The copy carries the source's WAL mark when the source is in WAL: a backup is one file.
                _ = try copy.text("PRAGMA journal_mode = DELETE")
                guard try copy.text("PRAGMA quick_check(1)") == "ok" else {
                    throw StoreError.unavailable(reason: "the copy of \(path) did not check out whole; \(destination) was not written")
                }
                try copy.close()
            } catch {
                try? copy.close()
                throw error
            }
            guard rename(partial, String(decoding: target.canonical, as: UTF8.self)) == 0 else {
                throw StoreError.unavailable(reason: "cannot write \(destination): \(FileSystem.describe(errno))")
            }
        } catch {
            for suffix in ["", "-journal", "-wal", "-shm"] { _ = unlink(partial + suffix) }
            throw StoreError.from(error, path: path)
        }
    }

    /// Replaces everything the database holds with what the backup `source` holds (a file made by
    /// ``backUp(to:)``, or any copy of a signup database). The database file stays where it is,
    /// with its inode, owner and mode; readers of another user keep reading it, and see the old
    /// accounts or the restored ones, never a mix. `source` is checked as a database is (another
    /// program's or a newer signup's file is refused) and left as it is.
    ///
    /// A backup with the same migrations as the database (the usual case) is restored row by row
    /// in one transaction (`account`, `mail_sent`): the schema does not change, so a mail server's
    /// prepared statements stay valid and its next login is answered. An older backup is copied
    /// page by page (SQLite's online backup) and then migrated: a reader's statements prepared
    /// before then fail once with "database schema has changed" (SQLITE_SCHEMA), and are prepared
    /// again.
    public func restore(from source: DatabasePath) throws(StoreError) {
        guard !isReadOnly else { throw .unavailable(reason: "the database \(path) is read-only (opened for reading)") }
        var found = stat()
        guard String(decoding: source.bytes, as: UTF8.self).withCString({ lstat($0, &found) }) == 0 else {
            throw .unavailable(reason: "cannot read the backup \(source): \(FileSystem.describe(errno)); nothing was restored")
        }
        var sameMigrations = false
        do {
            // The backup's own connection closes before the rows are read through ATTACH: one
            // connection per file and process (DatabaseFile).
            guard let backup = try AccountStore.openExisting(at: source) else {
                throw StoreError.unavailable(reason: "\(source) holds no signup database; nothing was restored")
            }
            guard backup.file !== file else { throw StoreError.unavailable(reason: "cannot restore \(path) from itself") }
            let theirs = try backup.db.access { try Migrations.applied(backup.db) }
            let ours = try db.access { try Migrations.applied(db) }
            sameMigrations = theirs == ours
            if !sameMigrations {
                try db.access {
                    try backup.db.access { try backup.db.copy(into: db, waitingUpTo: Self.busyTimeout) }
                    try Migrations.migrate(db)
                    try Self.chooseJournal(db, sharedForReading: file.isSharedForReading)
                    _ = try? db.rows("PRAGMA wal_checkpoint(TRUNCATE)") { _ in () }
                }
                return
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.from(error, path: path)
        }
        do {
            try db.access {
                try db.execute("ATTACH DATABASE ? AS backup", [.text(String(decoding: source.bytes, as: UTF8.self))])
                defer { _ = try? db.execute("DETACH DATABASE backup") }
                try db.inTransaction(.immediate) {
                    // The same migrations: the same columns, in the same order.
                    try db.execute("DELETE FROM main.account")
                    try db.execute("INSERT INTO main.account SELECT * FROM backup.account")
                    try db.execute("DELETE FROM main.mail_sent")
                    try db.execute("INSERT INTO main.mail_sent SELECT * FROM backup.mail_sent")
                    return .commit
                }
                // The old pages the -wal held (old hashes among them) go with it.
                _ = try? db.rows("PRAGMA wal_checkpoint(TRUNCATE)") { _ in () }
            }
        } catch {
            throw StoreError.from(error, path: path)
        }
    }
}
