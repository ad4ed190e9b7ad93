import AccountStore
import Foundation
import Testing

@Suite("Account store")
struct AccountStoreTests {
    @Test("insert returns an id and the row reads back trimmed, in NFC, with a UTC ISO 8601 time", arguments: Backend.all)
    func insertReadsBack(backend: Backend) throws {
        try backend.withFreshLocation { location throws in
            let store = try location.openForWriting()
            let date = Date(timeIntervalSince1970: 1_795_000_000)
            // "e" followed by a combining acute accent: NFD on the way in.
            let account = try store.create(email: "  Ame\u{301}lie@Example.com \n", passwordHash: fakeHash, at: date)

            #expect(account.id > 0)
            #expect(account.email == "Am\u{E9}lie@Example.com")
            #expect(account.email.unicodeScalars.count == 18)
            #expect(account.createdAt == "2026-11-18T11:06:40Z")
            let parsed = try Date(account.createdAt, strategy: .iso8601)
            #expect(parsed == date)

            #expect(try store.collected() == [account])
            #expect(try store.passwordHash(forEmail: "amélie@example.com") == fakeHash.phc)
            #expect(try store.isTaken(email: "AMÉLIE@EXAMPLE.COM"))
            #expect(try !store.isTaken(email: "someone@example.com"))
            #expect(try store.passwordHash(forEmail: "someone@example.com") == nil)

            let second = try store.create(email: "bob@example.com", passwordHash: fakeHash)
            #expect(second.id > account.id)
            #expect(try store.collected().map(\.email) == ["Am\u{E9}lie@Example.com", "bob@example.com"])
        }
    }

    @Test("the row on disk has the email as entered, its lowercased key and the hash")
    func rowOnDisk() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            do {
                let store = try AccountStore(path: path)
                _ = try store.create(email: "Alice@Example.com", passwordHash: fakeHash)
            }
            let rows = try sqliteRows(path, "SELECT id, email, email_key, password_hash FROM account")
            #expect(rows == ["1|Alice@Example.com|alice@example.com|\(fakeHash.phc)"])
        }
    }

    @Test("the same email in another letter case is taken, and only one row exists", arguments: Backend.all)
    func duplicateInAnotherCase(backend: Backend) throws {
        try backend.withFreshLocation { location throws in
            let store = try location.openForWriting()
            _ = try store.create(email: "alice@example.com", passwordHash: fakeHash)
            #expect(throws: StoreError.emailTaken) {
                try store.create(email: "Alice@Example.com", passwordHash: fakeHash)
            }
            #expect(throws: StoreError.emailTaken) {
                try store.create(email: " ALICE@EXAMPLE.COM ", passwordHash: fakeHash)
            }
            #expect(try store.collected().count == 1)
            #expect(try store.collected().first?.email == "alice@example.com")
        }
    }

    @Test("email keys are trimmed, NFC and lowercased")
    func emailKey() {
        #expect(AccountStore.key(forEmail: "  Alice@Example.COM\t") == "alice@example.com")
        #expect(AccountStore.key(forEmail: "JOSE\u{301}@BU\u{308}CHER.DE") == "jos\u{E9}@b\u{FC}cher.de")
        #expect(AccountStore.key(forEmail: "jos\u{E9}@example.com") == AccountStore.key(forEmail: "jose\u{301}@example.com"))
    }

    @Test("running the migrations again keeps one table and the rows")
    func migrationsTwice() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            let first = try {
                let store = try AccountStore(path: path)
                return try store.create(email: "alice@example.com", passwordHash: fakeHash)
            }()
            let store = try AccountStore(path: path)
            #expect(try store.accounts() == [first])
            _ = try store.create(email: "bob@example.com", passwordHash: fakeHash)

            let tables = try sqliteRows(path, "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'account'")
            #expect(tables == ["account"])
            let migrations = try sqliteRows(path, "SELECT identifier FROM grdb_migrations")
            #expect(migrations == ["v1-accounts", "v2-email-key-casefold", "v3-account-state", "v4-account-origin", "v5-email-key-idna", "v6-mail-sent", "v7-email-key-mailbox", "v8-limit-counts"])
            let columns = try sqliteRows(path, "SELECT name, type, \"notnull\", pk FROM pragma_table_info('account')")
            #expect(columns == [
                "id|INTEGER|0|1", "email|TEXT|1|0", "email_key|TEXT|1|0", "password_hash|TEXT|1|0", "created_at|TEXT|1|0",
                "state|TEXT|1|0", "password_changed_at|TEXT|0|0", "origin|TEXT|0|0",
            ])
        }
    }

    @Test("openExisting where no store exists yet returns nil and creates nothing", arguments: Backend.all)
    func openExistingCreatesNothing(backend: Backend) throws {
        try backend.withFreshLocation { location throws in
            #expect(try location.openExisting() == nil)
            #expect(try location.openExisting() == nil)
            if case .postgres = location {
                let tables = try TestPostgres.psql("SELECT count(*) FROM pg_class WHERE relname IN ('account', 'grdb_migrations')", database: try #require(location.databaseName))
                #expect(tables == ["0"])
            }
        }
    }

    @Test("openExisting on a missing path returns nil and creates nothing")
    func openExistingMissing() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("not/yet/accounts.sqlite")
            #expect(try AccountStore.openExisting(path: path) == nil)
            #expect(!FileManager.default.fileExists(atPath: folder.file("not")))
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        }
    }

    @Test("openExisting reads accounts without writing, and refuses to create")
    func openExistingReads() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            let account = try {
                let store = try AccountStore(path: path)
                return try store.create(email: "alice@example.com", passwordHash: fakeHash)
            }()
            let before = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            do {
                let store = try #require(try AccountStore.openExisting(path: path))
                #expect(try store.accounts() == [account])
                #expect(try store.passwordHash(forEmail: "Alice@example.com") == fakeHash.phc)
                #expect(try store.isTaken(email: "alice@example.com"))
                let error = #expect(throws: StoreError.self) {
                    try store.create(email: "bob@example.com", passwordHash: fakeHash)
                }
                #expect(error?.description.contains("read-only") == true)
            }
            let after = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            #expect(after == before)
        }
    }

    @Test("a zero-byte file is treated as a new database")
    func zeroByteFile() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            #expect(FileManager.default.createFile(atPath: path, contents: Data()))
            #expect(try AccountStore.openExisting(path: path) == nil)
            let store = try AccountStore(path: path)
            _ = try store.create(email: "alice@example.com", passwordHash: fakeHash)
            #expect(try store.accounts().count == 1)
            #expect(try mode(path) == 0o600)
        }
    }

    @Test("a file that is not SQLite is unavailable, not a crash")
    func garbageFile() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            let garbage = Data(String(repeating: "this is not a database\n", count: 200).utf8)
            #expect(FileManager.default.createFile(atPath: path, contents: garbage))
            let reason = "\(path) is not a signup database"
            #expect(throws: StoreError.unavailable(reason: reason, problem: .notASignupDatabase)) { try AccountStore(path: path) }
            #expect(throws: StoreError.unavailable(reason: reason, problem: .notASignupDatabase)) { try AccountStore.openExisting(path: path) }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
        }
    }

    @Test("another program's SQLite database is not used")
    func foreignDatabase() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("other.sqlite")
            try sqliteExecute(path, "CREATE TABLE notes (body TEXT)")
            let reason = "\(path) is not a signup database"
            #expect(throws: StoreError.unavailable(reason: reason, problem: .notASignupDatabase)) { try AccountStore(path: path) }
            #expect(throws: StoreError.unavailable(reason: reason, problem: .notASignupDatabase)) { try AccountStore.openExisting(path: path) }
            #expect(try sqliteRows(path, "SELECT name FROM sqlite_master WHERE type = 'table'") == ["notes"])
        }
    }

    @Test("an SQLite database with no tables yet is treated as new")
    func emptySQLiteDatabase() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            try sqliteExecute(path, "PRAGMA user_version = 1")
            #expect(try AccountStore.openExisting(path: path) == nil)
            let store = try AccountStore(path: path)
            _ = try store.create(email: "alice@example.com", passwordHash: fakeHash)
            #expect(try AccountStore.openExisting(path: path)?.accounts().count == 1)
        }
    }

    @Test("a folder that cannot be created gives a reason naming it")
    func folderCannotBeCreated() throws {
        try withTemporaryFolder { folder throws in
            let blocker = folder.file("file")
            #expect(FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8)))
            let error = #expect(throws: StoreError.self) {
                try AccountStore(path: folder.file("file/signup/accounts.sqlite"))
            }
            #expect(error == .unavailable(reason: "cannot use \(folder.file("file/signup/accounts.sqlite")): \(blocker) is not a folder",
                                          problem: .pathRefused(why: "\(blocker) is not a folder")))
        }
    }

    @Test("a path that is a folder cannot be opened")
    func pathIsAFolder() throws {
        try withTemporaryFolder { folder throws in
            #expect(throws: StoreError.unavailable(reason: "cannot open \(folder.path): it is a folder, not a file")) {
                try AccountStore(path: folder.path)
            }
            #expect(throws: StoreError.unavailable(reason: "cannot open \(folder.path): it is a folder, not a file")) {
                try AccountStore.openExisting(path: folder.path)
            }
        }
    }

    @Test("errors read as sentences")
    func errorDescriptions() {
        #expect(StoreError.emailTaken.description == "An account with this email already exists")
        #expect(StoreError.unavailable(reason: "the disk is full").description == "the disk is full")
    }
}

/// The default database path chosen from `environment`, as text.
private func defaultPath(environment: [String: String]) -> String {
    guard case .sqlite(let path) = try? StoreLocation.chosen(environment: environment) else { return "(none)" }
    return String(decoding: path.bytes, as: UTF8.self)
}

@Suite("Default database path")
struct DefaultPathTests {
    @Test("SIGNUP_DB wins over XDG_DATA_HOME and HOME")
    func signupDB() {
        let path = defaultPath(environment: [
            "SIGNUP_DB": "/srv/signup.sqlite", "XDG_DATA_HOME": "/xdg", "HOME": "/home/alice",
        ])
        #expect(path == "/srv/signup.sqlite")
    }

    @Test("XDG_DATA_HOME wins over HOME")
    func xdgDataHome() {
        #expect(defaultPath(environment: ["XDG_DATA_HOME": "/xdg", "HOME": "/home/alice"])
            == "/xdg/signup/accounts.sqlite")
        #expect(defaultPath(environment: ["XDG_DATA_HOME": "/xdg/", "HOME": "/home/alice"])
            == "/xdg/signup/accounts.sqlite")
    }

    @Test("HOME is the last resort")
    func home() {
        #expect(defaultPath(environment: ["HOME": "/home/alice"])
            == "/home/alice/.local/share/signup/accounts.sqlite")
    }

    @Test("empty variables and a relative XDG_DATA_HOME count as unset")
    func emptyAndRelative() {
        #expect(defaultPath(environment: ["SIGNUP_DB": "", "XDG_DATA_HOME": "", "HOME": "/home/alice"])
            == "/home/alice/.local/share/signup/accounts.sqlite")
        #expect(defaultPath(environment: ["XDG_DATA_HOME": "data", "HOME": "/home/alice"])
            == "/home/alice/.local/share/signup/accounts.sqlite")
    }

    @Test("without HOME the home folder comes from the password database")
    func noHome() {
        let path = defaultPath(environment: [:])
        #expect(path.hasPrefix("/"))
        #expect(path.hasSuffix("/.local/share/signup/accounts.sqlite"))
    }
}
