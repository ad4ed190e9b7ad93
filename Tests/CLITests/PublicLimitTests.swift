import Foundation
@testable import SignupCommand
import Testing

/// The limits strangers meet in public mode that hold across sessions, processes and client
/// addresses: codes and mails per account, separate budgets for sign-up and reset, a client
/// counted by its IPv6 /64, and mail about an account sent to the address as it is stored.
/// The mail command keeps each message in the sandbox (``AddressProofTests/mailBox(command:)``).
@Suite struct PublicLimitTests {
    /// A mail box whose configuration also holds `settings` (signup.conf lines).
    static func mailBox(_ settings: String) -> (Sandbox, [String: String]) {
        let (box, environment) = AddressProofTests.mailBox()
        let config = environment["SIGNUP_CONFIG"]!
        let handle = FileHandle(forWritingAtPath: config)!
        handle.seekToEndOfFile()
        handle.write(Data(settings.utf8))
        handle.closeFile()
        return (box, environment)
    }

    /// The environment of a client at `address`, as sshd sets it for a forced command.
    static func client(_ address: String, _ environment: [String: String]) -> [String: String] {
        environment.merging(["SSH_CONNECTION": "\(address) 50022 192.0.2.200 22"]) { $1 }
    }

    static func mails(_ box: Sandbox) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: box.folder.path)) ?? []).filter { $0.hasPrefix("mail-") }.sorted()
            .map { (try? String(contentsOfFile: box.folder.appendingPathComponent($0).path, encoding: .utf8)) ?? "" }
    }

    static func recipient(_ mail: String) -> String? {
        mail.components(separatedBy: "\n").first { $0.hasPrefix("To: ") }.map { String($0.dropFirst(4)) }
    }

    static func account(_ box: Sandbox, _ email: String) {
        #expect(box.run(["--db", box.db], input: lines("\(email)\n\(goodPassword)\n\(goodPassword)\n")).status == 0)
    }

    /// A public reset of `email` by the client at `address`, typing `code` (nil: the code of the mail it gets).
    static func reset(_ box: Sandbox, _ email: String, from address: String, code: String?, environment: [String: String]) -> Run {
        ResetCommandTests.forgetMails(box)
        if let code {
            // The mail is sent (or not) before the code's line is read: the lines can all be there at once.
            return box.run(["reset", "--public", "--db", box.db], input: lines("\(email)\n\(code)\n" + ResetCommandTests.newPasswords),
                           environment: client(address, environment), secrets: [ResetCommandTests.newPassword])
        }
        return box.run(["reset", "--public", "--db", box.db], environment: client(address, environment), secrets: [ResetCommandTests.newPassword],
                       via: AddressProofTests.feeding(box, before: email + "\n", after: ResetCommandTests.newPasswords))
    }

    /// Ten wrong codes from ten client addresses spend the account's codes for the day: the
    /// eleventh session, from yet another address, types the very code it was mailed, and it is
    /// not checked. It hears what a session for an address with no account hears, byte for byte,
    /// and the password stays.
    @Test func wrongCodesFromManyClientsStopAtTheAccountsBound() {
        let (box, environment) = Self.mailBox("public.mails-per-account = 100\npublic.per-client = 100\npublic.overall = 1000\n")
        Self.account(box, "victim@example.com")
        for n in 1...10 {
            let run = Self.reset(box, "victim@example.com", from: "192.0.2.\(n)", code: "000000", environment: environment)
            #expect(run.status == 65, "\(run.stderr)")
        }
        let bounded = Self.reset(box, "victim@example.com", from: "198.51.100.1", code: nil, environment: environment)
        let mail = AddressProofTests.mail(box)
        #expect(mail.contains("Subject: Your password reset code for "), "a code was mailed: \(mail)")
        #expect(Self.recipient(mail) == "victim@example.com")
        let unknown = Self.reset(box, "nobody@example.com", from: "198.51.100.2", code: "123456", environment: environment)
        #expect(bounded.status == 65, "\(bounded.stderr)")
        #expect(bounded.status == unknown.status)
        #expect(bounded.stdoutBytes == unknown.stdoutBytes)
        #expect(bounded.stderr == unknown.stderr.replacingOccurrences(of: "nobody@example.com", with: "victim@example.com"))
        #expect(box.run(["verify", "victim@example.com", "--db", box.db], input: lines(goodPassword + "\n")).status == 0)
        #expect(box.run(["verify", "victim@example.com", "--db", box.db], input: lines(ResetCommandTests.newPassword + "\n"),
                        secrets: [ResetCommandTests.newPassword]).status == 1)
        // Another account's codes are its own: its owner's code still works.
        Self.account(box, "owner@example.com")
        let owner = Self.reset(box, "owner@example.com", from: "192.0.2.1", code: nil, environment: environment)
        #expect(owner.status == 0, "\(owner.stderr)")
    }

    /// Five mails to one account a day (the default), whoever asks: the sixth and seventh
    /// sessions get the same conversation and no mail.
    @Test func mailsToOneAccountStopAtItsBoundWhateverTheClient() {
        let (box, environment) = AddressProofTests.mailBox()
        Self.account(box, "victim@example.com")
        var runs: [Run] = []
        var mailed = 0
        for n in 1...7 {
            runs.append(Self.reset(box, "victim@example.com", from: "192.0.2.\(n)", code: "000000", environment: environment))
            mailed += Self.mails(box).count
        }
        #expect(mailed == 5)
        for run in runs {
            #expect(run.status == 65)
            #expect(run.stderrBytes == runs[0].stderrBytes && run.stdoutBytes == runs[0].stdoutBytes)
        }
    }

    @Test func signUpMailsSpentLeaveResetMailsAndTheOtherWayRound() {
        for resetFirst in [false, true] {
            let (box, environment) = Self.mailBox("public.per-client = 1\n")
            Self.account(box, "owner@example.com")
            let at = Self.client("192.0.2.7", environment)
            func signUp(_ n: Int) -> Run {
                box.run(["--public", "--db", box.db], input: lines("new\(n)@example.com\n000000\n" + AddressProofTests.passwords), environment: at)
            }
            func reset() -> Run {
                Self.reset(box, "owner@example.com", from: "192.0.2.7", code: "000000", environment: environment)
            }
            // 3 mails a purpose for this client (1 account × 3).
            let spend: () -> Run = resetFirst ? reset : { signUp(0) }
            let other: () -> Run = resetFirst ? { signUp(9) } : reset
            for _ in 1...3 { #expect(spend().status == 65) }
            let refused = spend()
            #expect(refused.status == 75, "\(refused.stderr)")
            #expect(refused.stderr.contains(resetFirst ? "too many mails were sent for password resets from your address recently"
                                                       : "too many mails were sent for sign-ups from your address recently"), "\(refused.stderr)")
            ResetCommandTests.forgetMails(box)
            let open = other()
            #expect(open.status == 65, "resetFirst \(resetFirst): \(open.stderr)")
            #expect(Self.mails(box).count == 1)
        }
    }

    @Test func ipv6AddressesInOneSlash64ShareABudget() {
        let (box, environment) = Self.mailBox("public.per-client = 1\n")
        func signUp(_ n: Int, from address: String) -> Run {
            box.run(["--public", "--db", box.db], input: lines("new\(n)@example.com\n000000\n" + AddressProofTests.passwords),
                    environment: Self.client(address, environment))
        }
        for (n, address) in ["2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2:ffff:ffff:ffff:ffff"].enumerated() {
            #expect(signUp(n, from: address).status == 65)
        }
        let sameNetwork = signUp(3, from: "2001:0db8:0001:0002:0:0:0:9")
        #expect(sameNetwork.status == 75, "\(sameNetwork.stderr)")
        #expect(sameNetwork.stderr.contains("from your address"))
        #expect(signUp(4, from: "2001:db8:1:3::1").status == 65)
    }

    /// A code the account's bound keeps from being checked is judged as a wrong one (counted,
    /// hashed and compared), even when it is the right code; once allowed again it matches.
    @Test func aCodeTheAccountsBoundKeepsNeverMatches() throws {
        let proof = AddressProof()
        try proof.expect("123456", for: "bob@example.com")
        proof.mayCheck("123 456", false)
        #expect(proof.attempt("123456") == .wrong(left: 4))
        #expect(!proof.accepts("123-456"))
        proof.mayCheck("123456", true)
        #expect(proof.attempt("123456") == .matched)
    }

    /// A mail command that failed in a public session leaves a line with the client's address.
    @Test func aFailedMailNamesTheClient() {
        #expect(AuditLog.line(for: .mailFailed(detail: "the mail command failed (exit 1)"), from: "203.0.113.7", by: "new (uid 999)")
                == "mail not sent from 203.0.113.7 by new (uid 999): the mail command failed (exit 1)")
    }

    @Test func aClientCountsByItsIPv6Slash64() {
        #expect(PublicSession.origin(ofAddress: "2001:db8:1:2::1") == "2001:db8:1:2::/64")
        #expect(PublicSession.origin(ofAddress: "2001:0DB8:0001:0002:ffff:0:0:9") == "2001:db8:1:2::/64")
        #expect(PublicSession.origin(ofAddress: "2001:db8::7") == "2001:db8:0:0::/64")
        #expect(PublicSession.origin(ofAddress: "::1") == "0:0:0:0::/64")
        #expect(PublicSession.origin(ofAddress: "::ffff:203.0.113.7") == "203.0.113.7")
        #expect(PublicSession.origin(ofAddress: "203.0.113.7") == "203.0.113.7")
        for kept in ["local", "unknown", "1:2:3", "1::2::3", "12345::1", "1:2:3:4:5:6:7:8:9"] {
            #expect(PublicSession.origin(ofAddress: kept) == kept)
        }
        #expect(PublicSession.origin(environment: ["SSH_CONNECTION": "2001:db8:aa:bb:1:2:3:4 1 2 3"]) == "2001:db8:aa:bb::/64")
    }

    /// With `public.prove-address = no` the notice to a taken address's owner is mailed at the
    /// commit: counted as every mail is, and past the account's bound not sent, while the stranger
    /// hears the same as before.
    @Test func noticesWithoutProofOfAddressAreCounted() {
        let (box, environment) = Self.mailBox("public.prove-address = no\n")
        Self.account(box, "Taken@Example.com")
        var runs: [Run] = []
        for n in 1...7 {
            runs.append(box.run(["--public", "--db", box.db], input: lines("taken@example.com\n" + AddressProofTests.passwords),
                                environment: Self.client("192.0.2.\(n)", environment)))
        }
        let mails = Self.mails(box)
        #expect(mails.count == 5)
        #expect(mails.allSatisfy { $0.contains("Subject: Someone tried to sign up on ") && Self.recipient($0) == "Taken@example.com" }, "\(mails)")
        for run in runs {
            #expect(run.status == runs[0].status && run.stdoutBytes == runs[0].stdoutBytes && run.stderrBytes == runs[0].stderrBytes)
        }
        #expect(box.accounts().count == 1)
    }

    /// Mail about an account goes to the address as stored: a reset typed in other letter case
    /// with the domain's punycode, and a public sign-up of the account's address in capitals.
    @Test func mailGoesToTheStoredAddress() {
        let (box, environment) = AddressProofTests.mailBox()
        Self.account(box, "Bob.Stored@Bücher.de")
        let reset = Self.reset(box, "bob.stored@XN--BCHER-KVA.DE", from: "192.0.2.1", code: nil, environment: environment)
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(Self.recipient(AddressProofTests.mail(box)) == "Bob.Stored@xn--bcher-kva.de")
        #expect(box.run(["verify", "Bob.Stored@Bücher.de", "--db", box.db], input: lines(ResetCommandTests.newPassword + "\n"),
                        secrets: [ResetCommandTests.newPassword]).status == 0)
        ResetCommandTests.forgetMails(box)
        let signUp = box.run(["--public", "--db", box.db], input: lines("BOB.STORED@bücher.de\n000000\n" + AddressProofTests.passwords),
                             environment: Self.client("192.0.2.2", environment))
        #expect(signUp.status == 65, "\(signUp.stderr)")
        let notice = AddressProofTests.mail(box)
        #expect(notice.contains("Subject: Someone tried to sign up on "))
        #expect(Self.recipient(notice) == "Bob.Stored@xn--bcher-kva.de")
    }
}
