import Foundation
import Testing

/// `signup reset`: a forgotten password given back with a code mailed to the address, the same
/// conversation whatever the address is (active, absent, disabled, pending).
@Suite struct ResetCommandTests {
    static let newPassword = "Velvet-Harbor-93"
    static let newPasswords = "\(newPassword)\n\(newPassword)\n"

    /// A stranger who does not know the code asks to reset `email` at `db`.
    static func attempt(_ box: Sandbox, _ email: String, db: String, environment: [String: String]) -> (run: Run, mail: String) {
        forgetMails(box)
        let run = box.run(["reset", "--public", "--db", db], environment: environment, secrets: [newPassword],
                          via: AddressProofTests.feeding(box, before: email + "\n", code: "123456", after: newPasswords))
        return (run, AddressProofTests.mail(box))
    }

    static func forgetMails(_ box: Sandbox) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: box.folder.path)) ?? [] where name.hasPrefix("mail-") {
            try? FileManager.default.removeItem(atPath: box.folder.appendingPathComponent(name).path)
        }
    }

    static func accounts(_ box: Sandbox, db: String) {
        for email in ["activ@example.com", "disab@example.com", "pendi@example.com"] {
            #expect(box.run(["--db", db], input: lines("\(email)\n\(goodPassword)\n\(goodPassword)\n")).status == 0)
        }
        #expect(box.run(["disable", "disab@example.com", "--db", db]).status == 0)
        #expect(box.run(["--public", "--no-prove-address", "--db", db], input: lines("pendi2@example.com\n\(goodPassword)\n\(goodPassword)\n")).status == 0)
    }

    /// An active, an absent, a disabled and a pending account: byte for byte the same conversation
    /// for a stranger without the code (the addresses are as long as each other), and only the
    /// active account's address gets a code.
    @Test func everyAddressGetsTheSameConversation() {
        let (box, environment) = AddressProofTests.mailBox()
        Self.accounts(box, db: box.db)
        var runs: [String: (run: Run, mail: String)] = [:]
        for email in ["activ@example.com", "absnt@example.com", "disab@example.com", "pendi2@example.com"] {
            runs[email] = Self.attempt(box, email, db: box.db, environment: environment)
        }
        let active = runs["activ@example.com"]!
        #expect(active.run.status == 65)
        for email in ["absnt@example.com", "disab@example.com", "pendi2@example.com"] {
            let other = runs[email]!
            #expect(other.run.status == active.run.status)
            #expect(other.run.stdoutBytes == active.run.stdoutBytes)
            #expect(other.run.stderr.replacingOccurrences(of: email, with: "activ@example.com") == active.run.stderr, "\(email)")
            #expect(other.mail.contains("Subject: Password reset on ") && !other.mail.contains("\n    "), "\(email): \(other.mail)")
        }
        #expect(active.mail.contains("Subject: Your password reset code for "))
        #expect(box.run(["verify", "activ@example.com", "--db", box.db], input: lines(goodPassword + "\n")).status == 0)
    }

    /// `straße.de` and `strasse.de` are two domains with two owners: the owner of one, typing the
    /// look-alike of an account's address and the code his own mailbox receives, gets no code and
    /// changes nothing; so for final sigma in the local part.
    @Test(arguments: [("victim@strasse.de", "victim@straße.de"), ("victim@strasse.de", "Victim@XN--STRAE-OQA.de"),
                      ("οδυσσεασ@example.gr", "οδυσσεας@example.gr")])
    func aLookAlikeOfAnotherOwnersAddressTakesNothing(victim: String, twin: String) {
        let (box, environment) = AddressProofTests.mailBox()
        #expect(box.run(["--db", box.db], input: lines("\(victim)\n\(goodPassword)\n\(goodPassword)\n")).status == 0)
        let run = box.run(["reset", "--public", "--db", box.db], environment: environment, secrets: [Self.newPassword],
                          via: AddressProofTests.feeding(box, before: twin + "\n", code: "123456", after: Self.newPasswords))
        let mail = AddressProofTests.mail(box)
        #expect(run.status == 65, "\(run.stderr)")
        #expect(mail.contains("Subject: Password reset on ") && !mail.contains("\n    "), "\(mail)")
        #expect(!mail.contains("reset code"))
        #expect(box.run(["verify", victim, "--db", box.db], input: lines(Self.newPassword + "\n"), secrets: [Self.newPassword]).status == 1)
        #expect(box.run(["verify", victim, "--db", box.db], input: lines(goodPassword + "\n")).status == 0)
        #expect(box.accounts().count == 1)
    }

    @Test func aDisabledOrPendingAccountCannotBeReset() {
        let (box, environment) = AddressProofTests.mailBox()
        Self.accounts(box, db: box.db)
        for email in ["disab@example.com", "pendi2@example.com"] {
            Self.forgetMails(box)
            // Their address is mailed that it cannot be reset, with no code: whatever is typed, nothing matches.
            let run = box.run(["reset", "--db", box.db], environment: environment, secrets: [Self.newPassword],
                              via: AddressProofTests.feeding(box, before: email + "\n", code: "123456", after: Self.newPasswords))
            #expect(AddressProofTests.mail(box).contains("Subject: Password reset on ") && !AddressProofTests.mail(box).contains("\n    "))
            #expect(run.status == 65, "\(run.stderr)")
            #expect(box.run(["verify", email, "--db", box.db], input: lines(Self.newPassword + "\n"), secrets: [Self.newPassword]).status != 0)
        }
    }

    @Test(.enabled(if: TestServer.isAvailable, TestServer.skipNote))
    func aResetOnPostgreSQL() {
        let (box, environment) = AddressProofTests.mailBox()
        let db = TestDatabase()
        #expect(box.run(["--db", db.socket], input: lines("bob@example.com\n\(goodPassword)\n\(goodPassword)\n")).status == 0)
        let run = box.run(["reset", "--db", db.socket], environment: environment, secrets: [Self.newPassword],
                          via: AddressProofTests.feeding(box, before: "bob@example.com\n", after: Self.newPasswords))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(box.run(["verify", "bob@example.com", "--db", db.socket], input: lines(Self.newPassword + "\n"), secrets: [Self.newPassword]).status == 0)
        let absent = Self.attempt(box, "nobody@example.com", db: db.socket, environment: environment)
        #expect(absent.run.status == 65 && absent.mail.contains("Subject: Password reset on "))
    }
}
