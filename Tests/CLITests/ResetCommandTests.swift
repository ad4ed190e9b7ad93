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
