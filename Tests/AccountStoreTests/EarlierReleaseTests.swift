import AccountStore
import Foundation
import SignupCore
import Testing

/// Database files made by earlier releases' `signup` (Resources/README.md says how): today's
/// store must open every one unchanged, read what it holds and continue from it.
@Suite("Database files made by earlier releases")
struct EarlierReleaseTests {
    static let fixtures = ["made-by-0.1.0.sqlite"]

    /// What every fixture holds: its accounts in id order (email, state, password changed).
    static let expected: [(email: String, state: AccountState, changed: Bool)] = [
        ("alice@example.com", .active, false),
        ("Bob@Example.com", .disabled, false),
        ("Ölaf.Straße@Example.org", .active, false),
        ("carol@example.net", .active, true),
        ("erin@example.com", .active, false),
        ("dave@example.com", .pending, false),
    ]

    /// A copy of `fixture` in `folder`: the resource itself is never opened.
    static func copy(_ fixture: String, into folder: TemporaryFolder) throws -> String {
        let source = try #require(Bundle.module.url(forResource: fixture, withExtension: nil, subdirectory: "Resources"))
        let path = folder.file("accounts.sqlite")
        try FileManager.default.copyItem(atPath: source.path, toPath: path)
        // As signup made it: private (a file its group may read is kept in the rollback journal).
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return path
    }

    @Test("read: every account with its state, a known password verifies, and the file is unchanged", arguments: fixtures)
    func reads(fixture: String) throws {
        try withTemporaryFolder { folder throws in
            let path = try Self.copy(fixture, into: folder)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            do {
                let reader = try #require(try AccountStore.openExisting(path: path))
                let accounts = try reader.accounts()
                #expect(accounts.map(\.id) == Array(1...Int64(Self.expected.count)))
                #expect(accounts.map(\.email) == Self.expected.map(\.email))
                #expect(accounts.map(\.state) == Self.expected.map(\.state))
                #expect(accounts.map { $0.passwordChangedAt != nil } == Self.expected.map(\.changed))
                #expect(accounts.allSatisfy { $0.createdAt.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/) != nil })
                var pending: [String] = []
                try reader.streamAccounts(inState: .pending) { pending.append($0.email); return true }
                #expect(pending == ["dave@example.com"])

                // Any letter case of the address finds it, though its stored key is the one v2 made
                // (which folded ß to ss); the look-alike `ölaf.strasse` is another mailbox.
                let target = try reader.verificationTarget(forEmail: "ÖLAF.STRAẞE@example.org")
                #expect(try reader.passwordHash(forEmail: "ölaf.strasse@example.org") == nil)
                guard case .account(let hash, let state) = target else {
                    Issue.record("no account for Ölaf: \(target)")
                    return
                }
                #expect(state == .active)
                #expect(PasswordHasher.verify(Secret("Staple-Pigeon-Lantern-7"), against: hash))
                #expect(!PasswordHasher.verify(Secret("Staple-Pigeon-Lantern-8"), against: hash))
                // carol's changed password, not her first.
                guard case .account(let carol, _) = try reader.verificationTarget(forEmail: "carol@example.net") else {
                    Issue.record("no account for carol")
                    return
                }
                #expect(PasswordHasher.verify(Secret("Harbor-Ginger-Tundra-5"), against: carol))
                #expect(!PasswordHasher.verify(Secret("Quartz-Meadow-Violin-4"), against: carol))
                #expect(try reader.verificationTarget(forEmail: "bob@example.com") == .account(hash: try #require(
                    try sqliteRows(path, "SELECT password_hash FROM account WHERE id = 2").first), state: .disabled))
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "a reader changed the file")
        }
    }

    @Test("write: it opens with v5-email-key-idna, v6-mail-sent, v7-email-key-mailbox and v8-limit-counts to run, which re-keys only Ölaf.Straße, and a new account continues the ids",
          arguments: fixtures)
    func grows(fixture: String) throws {
        try withTemporaryFolder { folder throws in
            let path = try Self.copy(fixture, into: folder)
            let migrations = try sqliteRows(path, "SELECT identifier FROM grdb_migrations ORDER BY rowid")
            #expect(migrations == ["v1-accounts", "v2-email-key-casefold", "v3-account-state", "v4-account-origin"])
            let schema = try sqliteRows(path, "SELECT sql FROM sqlite_master ORDER BY name")
            let keys = try sqliteRows(path, "SELECT id, email_key FROM account ORDER BY id")

            let store = try AccountStore(path: path)
            // Its domains are ASCII: the IDNA keys are the keys it had. Only the sharp s of Ölaf's
            // key, which v2 folded to ss, comes back.
            #expect(try sqliteRows(path, "SELECT id, email_key FROM account ORDER BY id")
                == keys.map { $0.replacingOccurrences(of: "ölaf.strasse@", with: "ölaf.straße@") })
            #expect(keys.contains { $0.contains("ölaf.strasse@") })
            #expect(throws: StoreError.emailTaken) {
                try store.create(email: " ALICE@example.com ", passwordHash: fakeHash)
            }
            let hash = try PasswordHasher.hash(Secret("Nimbus-Walrus-Pepper-6"))
            let created = try store.create(email: "frank@example.com", passwordHash: hash, state: .pending)
            #expect(created.id == Int64(Self.expected.count + 1))
            #expect(try store.setState(.active, email: "Frank@Example.com") == .pending)
            #expect(try store.setState(.active, email: "bob@example.com") == .disabled)
            try store.changePassword(email: "alice@example.com", to: hash, at: Date(), whenLocked: {})

            let accounts = try store.accounts()
            #expect(accounts.map(\.email) == Self.expected.map(\.email) + ["frank@example.com"])
            #expect(accounts.map(\.state) == [.active, .active, .active, .active, .active, .pending, .active])
            #expect(try store.verificationTarget(forEmail: "alice@example.com") == .account(hash: hash.phc))
            #expect(try store.verificationTarget(forEmail: "frank@example.com") == .account(hash: hash.phc))

            // Same schema but the tables of the limits (v6, v8); the bookkeeping gains the key migration, so an
            // earlier release, which would compute other keys for international domains, refuses the file as a newer one's.
            #expect(try sqliteRows(path, "SELECT identifier FROM grdb_migrations ORDER BY rowid")
                == migrations + ["v5-email-key-idna", "v6-mail-sent", "v7-email-key-mailbox", "v8-limit-counts"])
            let grown = try sqliteRows(path, "SELECT sql FROM sqlite_master ORDER BY name")
            #expect(grown.filter { !Self.isLimitTable($0) } == schema)
            #expect(grown.filter(Self.isLimitTable).sorted() == Self.limitTablesSchema)
            #expect(try sqliteRows(path, "PRAGMA journal_mode") == ["wal"])
        }
    }

    /// The statements of `v6-mail-sent` and `v8-limit-counts`, as sqlite_master keeps them.
    static let limitTablesSchema = [
        "CREATE INDEX code_checked_email_key ON code_checked (email_key, purpose, checked_at)",
        "CREATE INDEX mail_sent_email_key ON mail_sent (email_key, purpose, sent_at)",
        "CREATE INDEX mail_sent_origin_sent_at ON mail_sent (origin, sent_at)",
        "CREATE TABLE code_checked (email_key TEXT NOT NULL, purpose TEXT NOT NULL, checked_at TEXT NOT NULL)",
        "CREATE TABLE mail_sent (origin TEXT NOT NULL, sent_at TEXT NOT NULL, purpose TEXT NOT NULL DEFAULT 'sign-up', email_key TEXT)",
    ]

    /// Whether `row` (of sqlite_master) is one of the limits' tables or indexes.
    static func isLimitTable(_ row: String) -> Bool {
        row.contains("mail_sent") || row.contains("code_checked")
    }

    @Test("a new file gets the schema an earlier release made, byte for byte, and its bookkeeping and the key migration", arguments: fixtures)
    func newFileMatches(fixture: String) throws {
        try withTemporaryFolder { folder throws in
            let old = try Self.copy(fixture, into: folder)
            let new = folder.file("new.sqlite")
            _ = try AccountStore(path: new).create(email: "alice@example.com", passwordHash: fakeHash)
            let schema = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name"
            // The earlier release's schema, byte for byte, and the tables of the limits (v6-mail-sent, v8-limit-counts).
            #expect(try sqliteRows(new, schema).filter { !Self.isLimitTable($0) } == sqliteRows(old, schema))
            #expect(try sqliteRows(new, "SELECT sql FROM sqlite_master WHERE tbl_name IN ('mail_sent', 'code_checked')").sorted() == Self.limitTablesSchema)
            let applied = "SELECT identifier FROM grdb_migrations ORDER BY rowid"
            #expect(try sqliteRows(new, applied) == sqliteRows(old, applied) + ["v5-email-key-idna", "v6-mail-sent", "v7-email-key-mailbox", "v8-limit-counts"])
        }
    }
}
