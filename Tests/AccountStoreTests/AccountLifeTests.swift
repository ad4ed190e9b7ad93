import AccountStore
import Foundation
import SignupCore
import Testing

/// The rest of an account's life through the library, on both stores: a new password, a state,
/// a deletion, a batch, an upgrade that never overwrites a concurrent change.
@Suite("An account's life in the store")
struct AccountLifeTests {
    private static func hash(_ password: String) throws -> PasswordHash {
        try PasswordHasher.hash(Secret(password))
    }

    @Test("a new password replaces the old one and records when", arguments: Backend.all)
    func changePassword(backend: Backend) throws {
        try backend.withFreshLocation { location in
            let store = try location.openForWriting()
            let old = try Self.hash("Old-Password-1")
            _ = try store.create(email: "alice@example.com", passwordHash: old)
            #expect(try store.collected().first?.passwordChangedAt == nil)
            let new = try Self.hash("New-Password-2")
            try store.changePassword(email: "ALICE@example.com", to: new, at: Date(timeIntervalSince1970: 1_800_000_000), whenLocked: {})
            #expect(try store.passwordHash(forEmail: "alice@example.com") == new.phc)
            #expect(try store.collected().first?.passwordChangedAt == "2027-01-15T08:00:00Z")
            #expect(throws: StoreError.noAccount) { try store.changePassword(email: "bob@example.com", to: new) }
            #expect(try store.collected().count == 1)
        }
    }

    @Test("a disabled or pending account keeps its row; verify's target carries the state", arguments: Backend.all)
    func states(backend: Backend) throws {
        try backend.withFreshLocation { location in
            let store = try location.openForWriting()
            let hash = try Self.hash("Some-Password-1")
            _ = try store.create(email: "alice@example.com", passwordHash: hash)
            _ = try store.create(email: "bob@example.com", passwordHash: hash, at: Date(), state: .pending, whenLocked: {})
            #expect(try store.setState(.disabled, email: "Alice@Example.com") == .active)
            #expect(try store.setState(.disabled, email: "alice@example.com") == .disabled)
            #expect(try store.verificationTarget(forEmail: "alice@example.com") == .account(hash: hash.phc, state: .disabled))
            #expect(try store.verificationTarget(forEmail: "bob@example.com") == .account(hash: hash.phc, state: .pending))
            var pending: [String] = []
            try store.streamAccounts(inState: .pending) { pending.append($0.email); return true }
            #expect(pending == ["bob@example.com"])
            #expect(try store.collected().map(\.state) == [.disabled, .pending])
            #expect(try store.setState(.active, email: "bob@example.com") == .pending)
            #expect(throws: StoreError.noAccount) { try store.setState(.disabled, email: "carol@example.com") }
        }
    }

    @Test("delete removes the row; a second delete finds no account", arguments: Backend.all)
    func delete(backend: Backend) throws {
        try backend.withFreshLocation { location in
            let store = try location.openForWriting()
            _ = try store.create(email: "alice@example.com", passwordHash: Self.hash("Some-Password-1"))
            _ = try store.create(email: "bob@example.com", passwordHash: Self.hash("Some-Password-1"))
            try store.delete(email: "ALICE@example.com")
            #expect(try store.collected().map(\.email) == ["bob@example.com"])
            #expect(throws: StoreError.noAccount) { try store.delete(email: "alice@example.com") }
        }
    }

    @Test("a rehash replaces only the hash that was verified", arguments: Backend.all)
    func rehashIsACompareAndSwap(backend: Backend) throws {
        try backend.withFreshLocation { location in
            let store = try location.openForWriting()
            let verified = try Self.hash("Some-Password-1")
            _ = try store.create(email: "alice@example.com", passwordHash: verified)
            // Another administrator changed the password after it was verified:
            let changed = try Self.hash("Other-Password-2")
            try store.changePassword(email: "alice@example.com", to: changed)
            #expect(try store.rehash(email: "alice@example.com", verified: verified.phc, to: Self.hash("Some-Password-1")) == false)
            #expect(try store.passwordHash(forEmail: "alice@example.com") == changed.phc)
            let upgraded = try Self.hash("Other-Password-2")
            #expect(try store.rehash(email: "alice@example.com", verified: changed.phc, to: upgraded))
            #expect(try store.passwordHash(forEmail: "alice@example.com") == upgraded.phc)
        }
    }

    @Test("a batch says created, taken or updated for each row, in one transaction", arguments: Backend.all)
    func batch(backend: Backend) throws {
        try backend.withFreshLocation { location in
            let store = try location.openForWriting()
            let hash = try Self.hash("Some-Password-1")
            _ = try store.create(email: "taken@example.com", passwordHash: hash)
            let other = try Self.hash("Other-Password-2")
            let rows = [NewAccount(email: "a@example.com", passwordHash: other), NewAccount(email: "TAKEN@example.com", passwordHash: other)]
            let first = try store.insertBatch(rows, update: false, at: Date())
            #expect(first.count == 2 && first[1] == .taken)
            if case .created = first[0] {} else { Issue.record("the new row was not created: \(first[0])") }
            #expect(try store.passwordHash(forEmail: "taken@example.com") == hash.phc)
            #expect(try store.insertBatch(rows, update: true, at: Date()) == [.updated, .updated])
            #expect(try store.passwordHash(forEmail: "taken@example.com") == other.phc)
            #expect(try store.collected().count == 2)
        }
    }

    @Test("a version 2 database gains states on open; read before that, every account is active")
    func olderDatabaseMigrates() throws {
        try withTemporaryFolder { folder in
            let path = folder.file("accounts.sqlite")
            try makeVersion1Database(path, rows: "('alice@example.com', 'alice@example.com', 'x', '2026-01-01T00:00:00Z')")
            try sqliteExecute(path, "INSERT INTO grdb_migrations VALUES ('v2-email-key-casefold')")
            let reader = try #require(try AccountStore.openExisting(path: path))
            #expect(try reader.collected().map(\.state) == [.active])
            #expect(try reader.verificationTarget(forEmail: "alice@example.com") == .account(hash: "x", state: .active))
            #expect(try sqliteRows(path, "SELECT count(*) FROM grdb_migrations") == ["2"])
            let store = try AccountStore(path: path)
            #expect(try store.setState(.disabled, email: "alice@example.com") == .active)
            #expect(try sqliteRows(path, "SELECT state FROM account") == ["disabled"])
        }
    }

    @Test("an old hash's bytes are not left in the file or its -wal after passwd and delete")
    func oldHashesDoNotLinger() throws {
        try withTemporaryFolder { folder in
            let path = folder.file("accounts.sqlite")
            let store = try AccountStore(path: path)
            let first = try Self.hash("First-Password-1")
            let second = try Self.hash("Second-Password-2")
            _ = try store.create(email: "alice@example.com", passwordHash: first)
            // Enough other rows that the table spans pages and the WAL holds several versions of them.
            for index in 0..<50 { _ = try store.create(email: "user\(index)@example.com", passwordHash: Self.hash("Some-Password-1")) }
            try store.changePassword(email: "alice@example.com", to: second)
            try store.delete(email: "alice@example.com")
            for file in [path, path + "-wal"] {
                let bytes = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
                for old in [first, second] {
                    let salt = String(old.phc.split(separator: "$")[4])
                    #expect(bytes.range(of: Data(salt.utf8)) == nil, "an old hash is still in \(file)")
                }
            }
        }
    }
}

/// Two administrators at once: each change ends in exactly one truthful outcome.
@Suite("An account's life, concurrently")
struct AccountLifeConcurrencyTests {
    @Test("passwd racing delete: the delete lands, passwd either changed the password first or finds no account", arguments: Backend.all)
    func passwdRacingDelete(backend: Backend) throws {
        try backend.withFreshLocation { location in
            let outcomes = Collected<String>()
            for round in 0..<10 {
                let email = "user\(round)@example.com"
                _ = try location.openForWriting().create(email: email, passwordHash: fakeHash)
                runConcurrently(2) { index in
                    do {
                        let store = try location.openForWriting()
                        if index == 0 {
                            try store.changePassword(email: email, to: fakeHash)
                            outcomes.append("changed")
                        } else {
                            try store.delete(email: email)
                            outcomes.append("deleted")
                        }
                    } catch StoreError.noAccount {
                        outcomes.append("no account")
                    } catch {
                        outcomes.append("error: \(error)")
                    }
                }
            }
            #expect(outcomes.all.filter { $0 == "deleted" }.count == 10, "\(outcomes.all)")
            #expect(outcomes.all.filter { $0 == "changed" || $0 == "no account" }.count == 10, "\(outcomes.all)")
            #expect(try location.openForWriting().collected().isEmpty)
        }
    }

    @Test("an import batch racing a sign-up of the same email: exactly one creates it", arguments: Backend.all)
    func batchRacingCreate(backend: Backend) throws {
        try backend.withFreshLocation { location in
            let outcomes = Collected<String>()
            _ = try location.openForWriting()
            for round in 0..<10 {
                let email = "user\(round)@example.com"
                runConcurrently(2) { index in
                    do {
                        let store = try location.openForWriting()
                        if index == 0 {
                            let result = try store.insertBatch([NewAccount(email: email, passwordHash: fakeHash)], update: false, at: Date())
                            outcomes.append(result == [.taken] ? "taken" : "created")
                        } else {
                            _ = try store.create(email: email, passwordHash: fakeHash)
                            outcomes.append("created")
                        }
                    } catch StoreError.emailTaken {
                        outcomes.append("taken")
                    } catch {
                        outcomes.append("error: \(error)")
                    }
                }
            }
            #expect(outcomes.all.filter { $0 == "created" }.count == 10, "\(outcomes.all)")
            #expect(outcomes.all.filter { $0 == "taken" }.count == 10, "\(outcomes.all)")
            #expect(try location.openForWriting().collected().count == 10)
        }
    }
}
