import AccountStore
import Foundation
import Testing

/// An account table someone changed by hand: a conflict clause of its own or a trigger must not
/// make a sign-up replace another account, or be reported created while nothing was stored.
@Suite("A table with its own conflict rule or trigger")
struct OddSchemaTests {
    /// A database made by the store, then its account table rebuilt with `ON CONFLICT clause` on the key.
    private func database(keyConflict clause: String, in folder: TemporaryFolder) throws -> String {
        let path = folder.file("odd.sqlite")
        _ = try AccountStore(path: path).create(email: "victim@example.com", passwordHash: fakeHash)
        try sqliteScript(path, """
            CREATE TABLE odd (id INTEGER PRIMARY KEY AUTOINCREMENT, email TEXT NOT NULL,
                email_key TEXT NOT NULL UNIQUE ON CONFLICT \(clause), password_hash TEXT NOT NULL, created_at TEXT NOT NULL,
                state TEXT NOT NULL DEFAULT 'active', password_changed_at TEXT, origin TEXT);
            INSERT INTO odd SELECT id, email, email_key, password_hash, created_at, state, password_changed_at, origin FROM account;
            DROP TABLE account;
            ALTER TABLE odd RENAME TO account;
            """)
        return path
    }

    @Test("a key that replaces on conflict never takes another account's email", arguments: ["REPLACE", "IGNORE"])
    func aConflictClauseOfTheTableIsOverridden(clause: String) throws {
        try withTemporaryFolder { folder throws in
            let path = try database(keyConflict: clause, in: folder)
            let store = try AccountStore(path: path)
            #expect(throws: StoreError.emailTaken) {
                try store.create(email: "VICTIM@example.com", passwordHash: bulkyHash(characters: 43))
            }
            #expect(try sqliteRows(path, "SELECT id, email, password_hash FROM account") == ["1|victim@example.com|\(fakeHash.phc)"])
        }
    }

    @Test("a table with a trigger is refused: a trigger can undo what signup writes, and signup would say it was done")
    func aTableWithATriggerIsRefused() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("trigger.sqlite")
            _ = try AccountStore(path: path).create(email: "first@example.com", passwordHash: fakeHash)
            try sqliteExecute(path, "CREATE TRIGGER keep_active BEFORE UPDATE ON account BEGIN SELECT RAISE(IGNORE); END")
            let before = try sha256(path)
            for open in [{ try AccountStore(path: path) }, { try #require(try AccountStore.openExisting(path: path)) }] as [() throws -> AccountStore] {
                #expect {
                    _ = try open()
                } throws: { error in
                    guard case StoreError.unavailable(let reason, _) = error else { return false }
                    return reason.contains("has a trigger signup did not make (keep_active)")
                }
            }
            #expect(try sha256(path) == before)
        }
    }
}
