import Foundation
import Testing

/// `signup verify` makes a matching hash again with the policy's costs only when nothing gets
/// cheaper, and `list --count-old-hashes` counts the same accounts.
@Suite struct HashUpgradeCommandTests {
    typealias Store = AccountLifeCommandTests.Store

    /// alice's hash replaced by one argon2-cffi makes of the same password with these costs.
    static func storeHash(m: Int, t: Int, in fixture: AccountLifeCommandTests.Fixture) -> String {
        let made = tool(["python3", "-c", "import argon2, os; print(argon2.PasswordHasher(time_cost=\(t), memory_cost=\(m), parallelism=1).hash(os.environ['P']))"],
                        environment: ["P": goodPassword])
        let hash = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(hash.hasPrefix("$argon2id$v=19$m=\(m),t=\(t),p=1$"), "\(made.stderr)")
        if let pg = fixture.pg {
            pg.psql("UPDATE account SET password_hash = '\(hash)'")
        } else {
            let update = tool(["python3", "-c", "import os, sqlite3; db = sqlite3.connect(os.environ['DB']); db.execute('UPDATE account SET password_hash = ?', (os.environ['H'],)); db.commit()"],
                              environment: ["DB": fixture.database, "H": hash])
            #expect(update.status == 0, "\(update.stderr)")
        }
        #expect(fixture.storedHash == hash)
        return hash
    }

    @Test(arguments: Store.available)
    func moreMemoryWithFewerPassesIsKept(store: Store) {
        let fixture = AccountLifeCommandTests.Fixture(store)
        let hash = Self.storeHash(m: 65536, t: 1, in: fixture)
        #expect(fixture.run(["list", "--count-old-hashes"]).stdout == "0\n")
        let verified = fixture.run(["verify", "alice@example.com"], input: goodPassword + "\n")
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(fixture.storedHash == hash, "an m=65536, t=1 hash was replaced by the policy's m=19456, t=2")
    }

    @Test(arguments: Store.available)
    func lessOfBothIsUpgraded(store: Store) {
        let fixture = AccountLifeCommandTests.Fixture(store)
        let hash = Self.storeHash(m: 4096, t: 1, in: fixture)
        let counted = fixture.run(["list", "--count-old-hashes"])
        #expect(counted.stdout == "1\n")
        #expect(counted.stderr.contains("m=19456, t=2, p=1"), "\(counted.stderr)")
        let verified = fixture.run(["verify", "alice@example.com"], input: goodPassword + "\n")
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(fixture.storedHash != hash)
        #expect(fixture.storedHash.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        #expect(fixture.verify("alice@example.com", goodPassword) == 0)
        #expect(fixture.run(["list", "--count-old-hashes"]).stdout == "0\n")
    }
}
