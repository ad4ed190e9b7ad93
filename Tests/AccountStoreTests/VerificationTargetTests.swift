import AccountStore
import Foundation
import SignupCore
import Testing

/// What `signup verify` checks a password against, so that an unknown email costs what a real
/// account costs, whatever costs the database's hashes were made with (SPEC 8: "in the same time
/// whether or not the email exists").
@Suite("What a password is checked against")
struct VerificationTargetTests {
    @Test("an unknown email gets another account's real hash: the next key's, else the first", arguments: Backend.all)
    func unknownEmailsGetARealAccountsHash(backend: Backend) throws {
        try backend.withFreshLocation { location in
            let store = try location.openForWriting()
            #expect(try store.verificationTarget(forEmail: "anyone@example.com") == .noAccount(decoy: nil))
            let bob = try PasswordHasher.hash(Secret("Bob-Password-1"))
            let mia = try PasswordHasher.hash(Secret("Mia-Password-2"))
            _ = try store.create(email: "mia@example.com", passwordHash: mia)
            _ = try store.create(email: "bob@example.com", passwordHash: bob)
            #expect(try store.verificationTarget(forEmail: "Bob@Example.com") == .account(hash: bob.phc))
            #expect(try store.verificationTarget(forEmail: "carol@example.com") == .noAccount(decoy: mia.phc))
            #expect(try store.verificationTarget(forEmail: "aaron@example.com") == .noAccount(decoy: bob.phc))
            #expect(try store.verificationTarget(forEmail: "zoe@example.com") == .noAccount(decoy: bob.phc), "past the last key: the first")
            #expect(try store.passwordHash(forEmail: "carol@example.com") == nil)
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
