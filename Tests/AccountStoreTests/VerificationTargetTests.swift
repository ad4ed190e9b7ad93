import AccountStore
import Foundation
import SignupCore
import Testing

/// What `signup verify` checks a password against, so that an unknown email costs what a real
/// account costs, whatever costs the database's hashes were made with (SPEC 8: "in the same time
/// whether or not the email exists").
@Suite("What a password is checked against")
struct VerificationTargetTests {
    @Test("an unknown email gets a real account's hash, the same one every time", arguments: Backend.all)
    func unknownEmailsGetARealAccountsHash(backend: Backend) throws {
        try backend.withFreshLocation { location in
            let store = try location.openForWriting()
            #expect(try store.verificationTarget(forEmail: "anyone@example.com") == .noAccount(decoy: nil))
            let bob = try PasswordHasher.hash(Secret("Bob-Password-1"))
            let mia = try PasswordHasher.hash(Secret("Mia-Password-2"))
            _ = try store.create(email: "mia@example.com", passwordHash: mia)
            _ = try store.create(email: "bob@example.com", passwordHash: bob)
            #expect(try store.verificationTarget(forEmail: "Bob@Example.com") == .account(hash: bob.phc))
            for probe in ["aaron@example.com", "carol@example.com", "zoe@example.com"] {
                let first = try store.verificationTarget(forEmail: probe)
                guard case .noAccount(let decoy?) = first else { Issue.record("\(probe): \(first)"); continue }
                #expect([bob.phc, mia.phc].contains(decoy))
                #expect(try store.verificationTarget(forEmail: probe) == first, "the same email, the same decoy")
            }
            #expect(try store.passwordHash(forEmail: "carol@example.com") == nil)
        }
    }

    /// The outside review's attack: with the next key's hash as the decoy, every unknown email
    /// sorting between alice and mallory cost mallory's costs, so timing bisected mallory's key.
    /// The decoy must not follow the key order.
    @Test("the decoy does not follow the order of the keys", arguments: Backend.all)
    func theDecoyDoesNotFollowTheKeyOrder(backend: Backend) throws {
        try backend.withFreshLocation { location in
            let store = try location.openForWriting()
            var hashes: [String: String] = [:]
            for email in ["alice@example.com", "mallory.ceo@secret-corp.org", "zzz@example.com"] {
                let hash = try PasswordHasher.hash(Secret("Password-\(email.count)A"))
                _ = try store.create(email: email, passwordHash: hash)
                hashes[email] = hash.phc
            }
            // Sixty unknown emails that all sort between alice and mallory.
            var decoys: Set<String> = []
            for number in 0..<60 {
                guard case .noAccount(let decoy?) = try store.verificationTarget(forEmail: "b\(number)@x.org") else {
                    Issue.record("b\(number)@x.org has no decoy"); continue
                }
                decoys.insert(decoy)
            }
            #expect(decoys.count == 3, "decoys seen: \(decoys.compactMap { d in hashes.first { $0.value == d }?.key })")
        }
    }

    @Test("a decoy is never a match, even for its own account's password")
    func aDecoyNeverMatches() throws {
        let mia = try PasswordHasher.hash(Secret("Mia-Password-2"))
        #expect(PasswordHasher.check(Secret("Mia-Password-2"), against: .account(hash: mia.phc)) == .matches)
        #expect(PasswordHasher.check(Secret("Mia-Password-2"), against: .noAccount(decoy: mia.phc)) == .doesNotMatch)
        #expect(PasswordHasher.check(Secret("Mia-Password-2"), against: .noAccount(decoy: "$2y$10$not-argon2")) == .doesNotMatch)
        #expect(PasswordHasher.check(Secret("Mia-Password-2"), against: .noAccount(decoy: nil)) == .doesNotMatch)
    }
}
