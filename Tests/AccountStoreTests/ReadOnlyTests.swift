import AccountStore
import Foundation
import SignupCore
import Testing

@Suite("Read-only databases")
struct ReadOnlyTests {
    @Test("creating an account in a read-only database is unavailable, with a reason and no password")
    func readOnlyFile() throws {
        let password = "Readonly-Walrus-55"
        let phc = try PasswordHasher.hash(Secret(password))
        // chattr +i needs a file system that supports it; tmpfs may when /tmp does not.
        for base in [NSTemporaryDirectory(), "/dev/shm"] {
            let done = try withTemporaryFolder(base: base) { folder throws in
                let path = folder.file("accounts.sqlite")
                do {
                    let store = try AccountStore(path: path)
                    _ = try store.create(email: "alice@example.com", passwordHash: phc)
                }
                guard let undo = try makeReadOnly(path) else { return false }
                defer { undo() }

                let store = try AccountStore(path: path)
                #expect(try store.accounts().count == 1)
                let error = #expect(throws: StoreError.self) {
                    try store.create(email: "bob@example.com", passwordHash: phc)
                }
                let reason = error?.description ?? ""
                #expect(reason == "the database \(path) is read-only")
                // A program decides on the problem, never on the words.
                #expect(error == .unavailable(reason: reason, problem: .readOnly))
                #expect(!reason.contains(password))
                #expect(!reason.contains(phc.phc))
                return true
            }
            if done { return }
        }
        Issue.record("cannot make a file read-only here: chattr +i failed in \(NSTemporaryDirectory()) and /dev/shm")
    }
}
