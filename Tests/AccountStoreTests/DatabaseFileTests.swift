import AccountStore
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The account table as version 1 made it, for databases written by "another version".
let version1Schema = """
    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
    INSERT INTO grdb_migrations VALUES ('v1-accounts');
    CREATE TABLE "account" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "email" TEXT NOT NULL,
        "email_key" TEXT NOT NULL UNIQUE, "password_hash" TEXT NOT NULL, "created_at" TEXT NOT NULL);
    """

/// Makes a database as version 1 left it, with `rows` (SQL value tuples) in its account table.
func makeVersion1Database(_ path: String, rows: String) throws {
    try sqliteScript(path, version1Schema + "INSERT INTO account (email, email_key, password_hash, created_at) VALUES " + rows + ";")
}

/// A file's bytes, its folder's names and its journal mode: what "left untouched" means.
struct Fingerprint: Equatable {
    var digest: String
    var walDigest: String?
    var folderNames: [String]
    var journalMode: [String]

    init(_ path: String) throws {
        // Python's read-only connection may leave a -wal and -shm of its own behind (it cannot
        // remove them): read first, so the names are the folder as it stays.
        journalMode = try sqliteRows(path, "PRAGMA journal_mode")
        digest = try sha256(path)
        walDigest = FileManager.default.fileExists(atPath: path + "-wal") ? try sha256(path + "-wal") : nil
        folderNames = try names(in: (path as NSString).deletingLastPathComponent)
    }
}

/// Databases that are newer, another program's, or missing their unique key: refused, untouched.
@Suite("Hostile database files")
struct DatabaseFileTests {
    @Test("a migration this version does not know is refused by writers and readers, and the file is left byte for byte",
          arguments: ["wal", "delete"])
    func newerDatabase(journal: String) throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            do { _ = try AccountStore(path: path).create(email: "alice@example.com", passwordHash: fakeHash) }
            try sqliteScript(path, "PRAGMA journal_mode = \(journal); INSERT INTO grdb_migrations VALUES ('v9-future-layout');")
            let before = try Fingerprint(path)
            #expect(before.journalMode == [journal])

            let error = #expect(throws: StoreError.self) { try AccountStore(path: path) }
            #expect(error?.description.contains("newer version of signup") == true)
            #expect(error?.description.contains("v9-future-layout") == true)
            #expect(throws: StoreError.self) { try AccountStore.openExisting(path: path) }
            let after = try Fingerprint(path)
            #expect(after == before, "\(before) → \(after)")
        }
    }

    @Test("a newer database with a -wal a crash left is refused without checkpointing it: file and -wal keep their bytes")
    func newerDatabaseWithLeftoverWAL() throws {
        try withTemporaryFolder { folder throws in
            let source = folder.file("source.sqlite")
            do { _ = try AccountStore(path: source).create(email: "alice@example.com", passwordHash: fakeHash) }
            // While a connection stays open, the newer program's commit lives in the -wal only: copy that state.
            let open = try AccountStore(path: source)
            try sqliteScript(source, "INSERT INTO grdb_migrations VALUES ('v9-future-layout');")
            try FileManager.default.createDirectory(atPath: folder.file("copy"), withIntermediateDirectories: false)
            let path = folder.file("copy/accounts.sqlite")
            for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: source + suffix, toPath: path + suffix) }
            _ = open
            let before = try Fingerprint(path)
            #expect(before.walDigest != nil)

            let error = #expect(throws: StoreError.self) { try AccountStore(path: path) }
            #expect(error?.description.contains("v9-future-layout") == true)
            #expect(throws: StoreError.self) { try AccountStore.openExisting(path: path) }
            #expect(try sha256(path) == before.digest)
            #expect(try sha256(path + "-wal") == before.walDigest)
        }
    }

    @Test("another program's database is refused before anything is written: same bytes, same journal mode, no side file")
    func foreignDatabaseUntouched() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("other.sqlite")
            try sqliteScript(path, "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me');")
            let before = try Fingerprint(path)
            #expect(before.journalMode == ["delete"])
            #expect(throws: StoreError.unavailable(reason: "\(path) is not a signup database", problem: .notASignupDatabase)) { try AccountStore(path: path) }
            #expect(throws: StoreError.self) { try AccountStore.openExisting(path: path) }
            #expect(try Fingerprint(path) == before)
        }
    }

    @Test("an account table without its unique key on email_key is refused, and nothing is written", arguments: [
        "CREATE INDEX account_email_key ON account(email_key)",
        // A partial unique index leaves most rows unchecked: duplicates would pass.
        "CREATE UNIQUE INDEX account_email_key ON account(email_key) WHERE id < 0",
        "CREATE UNIQUE INDEX account_email_key ON account(email_key, id)",
        "CREATE UNIQUE INDEX account_email ON account(email)",
    ])
    func missingUniqueKey(index: String) throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            try sqliteScript(path, """
                CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                INSERT INTO grdb_migrations VALUES ('v1-accounts'), ('v2-email-key-casefold');
                CREATE TABLE account (id INTEGER PRIMARY KEY AUTOINCREMENT, email TEXT NOT NULL, email_key TEXT NOT NULL,
                    password_hash TEXT NOT NULL, created_at TEXT NOT NULL);
                \(index);
                """)
            let before = try Fingerprint(path)
            let error = #expect(throws: StoreError.self) { try AccountStore(path: path) }
            #expect(error?.description.contains("no unique key on email_key") == true)
            #expect(throws: StoreError.self) { try AccountStore.openExisting(path: path) }
            #expect(try Fingerprint(path) == before)
        }
    }

    @Test("on a read-only medium, a non-empty -wal beside the file is refused rather than read stale",
          .enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
    func readOnlyMediumWithWAL() throws {
        try withTemporaryFolder { folder throws in
            try withTmpfs(in: folder, "medium", size: "1m") { medium throws in
                let source = folder.file("accounts.sqlite")
                do { _ = try AccountStore(path: source).create(email: "alice@example.com", passwordHash: fakeHash) }
                // While a writer is open, bob's row is committed in the -wal only: copy that state.
                let writer = try AccountStore(path: source)
                _ = try writer.create(email: "bob@example.com", passwordHash: fakeHash)
                for suffix in ["", "-wal"] {
                    try FileManager.default.copyItem(atPath: source + suffix, toPath: medium + "/accounts.sqlite" + suffix)
                }
                #expect((try FileManager.default.attributesOfItem(atPath: medium + "/accounts.sqlite-wal")[.size] as? Int ?? 0) > 0)
                let remount = try run(["mount", "-o", "remount,ro", medium])
                try #require(remount.status == 0, "remount ro: \(remount.error)")

                let path = medium + "/accounts.sqlite"
                let error = #expect(throws: StoreError.self) { try AccountStore.openExisting(path: path) }
                #expect(error?.description.contains("-wal") == true)
                #expect(error?.description.contains("not read stale") == true)
            }
        }
    }

    @Test("a read-only medium without a -wal, or with the empty one signup keeps, is read as it is",
          .enabled(if: getuid() == 0, "mounting a tmpfs needs root"), arguments: [false, true])
    func readOnlyMediumWithoutWAL(keepingSideFiles: Bool) throws {
        try withTemporaryFolder { folder throws in
            try withTmpfs(in: folder, "medium", size: "1m") { medium throws in
                let path = medium + "/accounts.sqlite"
                do { _ = try AccountStore(path: path).create(email: "alice@example.com", passwordHash: fakeHash) }
                if !keepingSideFiles {
                    for suffix in ["-wal", "-shm"] { try FileManager.default.removeItem(atPath: path + suffix) }
                }
                // Nothing is added beside it.
                let left = try names(in: medium)
                #expect(left == (keepingSideFiles ? ["accounts.sqlite", "accounts.sqlite-shm", "accounts.sqlite-wal"] : ["accounts.sqlite"]))
                let remount = try run(["mount", "-o", "remount,ro", medium])
                try #require(remount.status == 0, "remount ro: \(remount.error)")
                #expect(try AccountStore.openExisting(path: path)?.accounts().map(\.email) == ["alice@example.com"])
                #expect(try names(in: medium) == left)
            }
        }
    }

    @Test("a full disk under an existing database says the disk is full", .enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
    func fullDiskWithExistingDatabase() throws {
        try withTemporaryFolder { folder throws in
            try withTmpfs(in: folder, "tiny", size: "256k") { tiny throws in
                let path = tiny + "/accounts.sqlite"
                do { _ = try AccountStore(path: path).create(email: "alice@example.com", passwordHash: fakeHash) }
                // Fill every remaining block.
                #expect(FileManager.default.createFile(atPath: tiny + "/filler", contents: nil))
                let filler = try #require(FileHandle(forWritingAtPath: tiny + "/filler"))
                while (try? filler.write(contentsOf: Data(count: 4096))) != nil {}
                try? filler.close()

                var failure: StoreError?
                do throws(StoreError) {
                    let store = try AccountStore(path: path)
                    for number in 0..<64 {
                        _ = try store.create(email: "n\(number)@example.com", passwordHash: bulkyHash(characters: 2048))
                    }
                } catch {
                    failure = error
                }
                #expect(failure == .unavailable(reason: "the disk is full (database \(path))", problem: .diskFull))
            }
        }
    }

    @Test("values another program stored as bytes that are not UTF-8, or as numbers, are read, migrated and listed, never a crash")
    func oddValues() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            try makeVersion1Database(path, rows: """
                    (X'41FF40782E6F7267', 'k1', X'FF', 12345),
                    ('bob@example.com', 'bob@example.com', 'h2', '2026-01-01T00:00:00Z')
                """)
            let reader = try #require(try AccountStore.openExisting(path: path))
            #expect(try reader.accounts().map(\.email) == ["A\u{FFFD}@x.org", "bob@example.com"])
            #expect(try reader.passwordHash(forEmail: "a\u{FFFD}@x.org") == "\u{FFFD}")
            let store = try AccountStore(path: path)
            #expect(try store.accounts().map(\.createdAt) == ["12345", "2026-01-01T00:00:00Z"])
            #expect(try store.passwordHash(forEmail: "BOB@example.com") == "h2")
        }
    }

    @Test("a version-1 database at a path that is not UTF-8 is read by today's keys, and stays readable as stores come and go")
    func version1AtANonUTF8Path() throws {
        try withTemporaryFolder { folder throws in
            let bytes = Array(folder.path.utf8) + Array("/d".utf8) + [0xFF] + Array(".sqlite".utf8)
            let script = """
                import os, sqlite3
                db = sqlite3.connect(os.fsdecode(bytes.fromhex(os.environ["DBHEX"])))
                db.executescript(os.environ["SQL"]); db.commit()
                """
            let sql = version1Schema + "INSERT INTO account (email, email_key, password_hash, created_at) "
                + "VALUES ('ΟΔΥΣΣΕΑΣ@example.gr', 'οδυσσεασ@example.gr', 'h1', '2026-01-01T00:00:00Z');"
            let made = try run(["python3", "-c", script], environment: ["DBHEX": bytes.map { String(format: "%02x", $0) }.joined(), "SQL": sql])
            try #require(made.status == 0, "python3: \(made.error)")
            let path = try DatabasePath(bytes)
            for _ in 0..<2 {
                let reader = try #require(try AccountStore.openExisting(at: path))
                #expect(try reader.passwordHash(forEmail: "ΟΔΥΣΣΕΑΣ@EXAMPLE.GR") == "h1")
                #expect(try reader.accounts().count == 1)
            }
            let store = try AccountStore(at: path)
            #expect(throws: StoreError.emailTaken) { try store.create(email: "οδυσσεασ@example.gr", passwordHash: fakeHash) }
        }
    }
}
