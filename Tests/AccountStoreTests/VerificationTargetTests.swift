import AccountStore
import Foundation
import SignupCore
import Testing

/// What `signup verify` checks a password against, so that an unknown email costs what a real
/// account costs, whatever costs the database's hashes were made with ("in the same time
/// whether or not the email exists").
@Suite("What a password is checked against")
struct VerificationTargetTests {
    @Test("an unknown email gets the newest account's hash", arguments: Backend.all)
    func unknownEmailsGetTheNewestAccountsHash(backend: Backend) throws {
        try backend.withFreshLocation { location in
            let store = try location.openForWriting()
            #expect(try store.verificationTarget(forEmail: "anyone@example.com") == .noAccount(decoy: nil))
            let bob = try PasswordHasher.hash(Secret("Bob-Password-1"))
            let mia = try PasswordHasher.hash(Secret("Mia-Password-2"))
            _ = try store.create(email: "mia@example.com", passwordHash: mia)
            _ = try store.create(email: "bob@example.com", passwordHash: bob)
            #expect(try store.verificationTarget(forEmail: "Bob@Example.com") == .account(hash: bob.phc))
            for probe in ["aaron@example.com", "carol@example.com", "zoe@example.com"] {
                #expect(try store.verificationTarget(forEmail: probe) == .noAccount(decoy: bob.phc))
            }
            #expect(try store.passwordHash(forEmail: "carol@example.com") == nil)
        }
    }

    /// Outside reviews five and six: a decoy that followed the key order let timing bisect the
    /// keys, and one picked by a keyed function of the email and the id range changed with every
    /// new account, so an unknown email's time flipped where a known one's did not. Every
    /// unknown email gets the same account, whatever it sorts next to and whatever the ids are.
    @Test("every unknown email gets the same decoy, whatever the keys and ids", arguments: Backend.all)
    func everyUnknownEmailGetsTheSameDecoy(backend: Backend) throws {
        try backend.withFreshLocation { location in
            let store = try location.openForWriting()
            for email in ["alice@example.com", "mallory.ceo@secret-corp.org", "zzz@example.com"] {
                _ = try store.create(email: email, passwordHash: PasswordHasher.hash(Secret("Password-\(email.count)A")))
            }
            func decoys() throws -> Set<VerificationTarget> {
                Set(try (0..<40).map { try store.verificationTarget(forEmail: "b\($0)@x.org") }
                    + ["a@a.org", "n@x.org", "zzzz@z.org"].map { try store.verificationTarget(forEmail: $0) })
            }
            #expect(try decoys().count == 1, "emails between two keys, before the first and after the last")
            let before = try decoys()
            _ = try store.create(email: "attacker@evil.example", passwordHash: PasswordHasher.hash(Secret("Attacker-Password-9")))
            let after = try decoys()
            #expect(after.count == 1 && after != before, "a new account is the new decoy, for every unknown email at once")
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
