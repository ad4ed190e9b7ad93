import Foundation
import Testing

/// Proof of the address and a reset's code, run in this process over a scripted environment: the
/// mail command is the environment's, which keeps each message and types its code back. The
/// binary's tests keep the real mail command (its arguments, environment, failures and timeout).
@Suite struct ProofFlowTests {
    static let passwords = AddressProofTests.passwords
    let newPassword = ResetCommandTests.newPassword
    let newPasswords = ResetCommandTests.newPasswords

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

    /// An active, an absent, a disabled and a pending account: byte for byte the same conversation
    /// for a stranger without the code (the addresses are as long as each other), and only the
    /// active account's address gets a code.
    @Test func everyAddressGetsTheSameConversation() {
        let (box, environment) = AddressProofTests.mailBox()
        ResetCommandTests.accounts(box, db: box.db)
        var runs: [String: (run: FlowRun, mail: String)] = [:]
        for email in ["activ@example.com", "absnt@example.com", "disab@example.com", "pendi2@example.com"] {
            let run = box.flow(["reset", "--public", "--db", box.db], lines: .script(email + "\n123456\n" + newPasswords), environment: environment,
                               secrets: [newPassword])
            runs[email] = (run, run.mailText(0))
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
        #expect(box.flow(["--db", box.db], lines: .script("\(victim)\n\(goodPassword)\n\(goodPassword)\n")).status == 0)
        let run = box.flow(["reset", "--public", "--db", box.db], lines: .script(twin + "\n123456\n" + newPasswords), environment: environment,
                           secrets: [newPassword])
        let mail = run.mailText(0)
        #expect(run.status == 65, "\(run.stderr)")
        #expect(mail.contains("Subject: Password reset on ") && !mail.contains("\n    "), "\(mail)")
        #expect(!mail.contains("reset code"))
        #expect(box.run(["verify", victim, "--db", box.db], input: lines(newPassword + "\n"), secrets: [newPassword]).status == 1)
        #expect(box.run(["verify", victim, "--db", box.db], input: lines(goodPassword + "\n")).status == 0)
        #expect(box.storedAccounts().count == 1)
    }

    @Test func aDisabledOrPendingAccountCannotBeReset() {
        let (box, environment) = AddressProofTests.mailBox()
        ResetCommandTests.accounts(box, db: box.db)
        for email in ["disab@example.com", "pendi2@example.com"] {
            // Their address is mailed that it cannot be reset, with no code: whatever is typed, nothing matches.
            let run = box.flow(["reset", "--db", box.db], lines: .script(email + "\n123456\n" + newPasswords), environment: environment,
                               secrets: [newPassword])
            #expect(run.mailText(0).contains("Subject: Password reset on ") && !run.mailText(0).contains("\n    "))
            #expect(run.status == 65, "\(run.stderr)")
            #expect(box.run(["verify", email, "--db", box.db], input: lines(newPassword + "\n"), secrets: [newPassword]).status != 0)
        }
    }
}
