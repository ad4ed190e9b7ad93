import Foundation
import Testing

/// Proof of the address and a reset's code, run in this process over a scripted environment: the
/// mail command is the environment's, which keeps each message and types its code back. The
/// binary's tests keep the real mail command (its arguments, environment, failures and timeout).
@Suite struct ProofFlowTests {
    static let passwords = AddressProofTests.passwords

    /// A script that gives a sign-up's three lines with no code among them: the password's line
    /// is read as the code, and that answer, like a password's, is never shown.
    @Test func aScriptWithoutTheCodeNeverShowsItsPasswordAsTheCode() {
        let (box, environment) = AddressProofTests.mailBox()
        let run = box.flow(["--prove-address", "--db", box.db], lines: .script("bob@example.com\n" + Self.passwords),
                           environment: environment, secrets: [goodPassword])
        #expect(run.status == 66, "\(run.stderr)")
        #expect(run.stderr.contains("Code from the email: \n"), "\(run.stderr)")
        #expect(!run.stderr.contains(goodPassword) && !run.stdout.contains(goodPassword))
        #expect(box.storedAccounts().isEmpty)
    }

    @Test func aWrongCodeStoresNothing() {
        let (box, environment) = AddressProofTests.mailBox()
        let run = box.flow(["--prove-address", "--db", box.db], lines: .script("bob@example.com\n12345x\n" + Self.passwords), environment: environment)
        #expect(run.status == 65)
        #expect(run.stderr.contains("This is not the code that was mailed, or it expired"))
        #expect(box.storedAccounts().isEmpty)
    }

    /// In public mode a taken address and a free one get the same conversation, byte for byte;
    /// the taken address's owner is mailed a notice, the free one a code.
    @Test func aTakenAndAFreeAddressSoundTheSameInPublic() {
        let (box, environment) = AddressProofTests.mailBox()
        #expect(box.flow(["--db", box.db], lines: .script("taken@example.com\n" + Self.passwords)).status == 0)
        func stranger(_ email: String) -> FlowRun {
            box.flow(["--public", "--db", box.db], lines: .script(email + "\n000000\n" + Self.passwords), environment: environment)
        }
        let taken = stranger("taken@example.com")
        let notice = taken.mailText(0)
        let free = stranger("free@example.com")
        let code = free.mailText(0)
        #expect(taken.status == free.status)
        #expect(taken.stdoutBytes == free.stdoutBytes)
        #expect(String(decoding: taken.stderrBytes, as: UTF8.self).replacingOccurrences(of: "taken@", with: "free@")
                == String(decoding: free.stderrBytes, as: UTF8.self))
        #expect(!taken.stderr.contains("already exists") && !taken.stderr.contains("email.taken"))
        #expect(notice.contains("Subject: Someone tried to sign up on ") && !notice.contains("\n    "))
        #expect(code.contains("Subject: Your sign-up code for "))
        #expect(box.storedAccounts().count == 1)
    }

    @Test func theCodeFromTheMailSetsANewPassword() {
        let (newPassword, newPasswords) = (ResetCommandTests.newPassword, ResetCommandTests.newPasswords)
        let (box, environment) = AddressProofTests.mailBox()
        #expect(box.flow(["--db", box.db], lines: .script("bob@example.com\n\(goodPassword)\n\(goodPassword)\n")).status == 0)
        let run = box.flow(["reset", "--db", box.db], lines: ["bob@example.com\n", .mailedCode, .text(newPasswords)], environment: environment,
                           secrets: [newPassword])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "Password changed for bob@example.com\n")
        #expect(run.mailText(0).contains("Subject: Your password reset code for "))
        #expect(box.run(["verify", "bob@example.com", "--db", box.db], input: lines(newPassword + "\n"), secrets: [newPassword]).status == 0)
        #expect(box.run(["verify", "bob@example.com", "--db", box.db], input: lines(goodPassword + "\n")).status == 1)
        // A weak new password is refused as passwd refuses it: nothing changed.
        let weak = box.flow(["reset", "bob@example.com", "--db", box.db], lines: [.mailedCode, "short\nshort\n"], environment: environment)
        #expect(weak.status == 65 && weak.stderr.contains("password: "), "\(weak.stderr)")
    }
}
