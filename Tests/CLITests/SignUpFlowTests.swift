import AccountStore
import Foundation
import Glibc
@testable import SignupCommand
import SignupCore
import Testing

/// The sign-up flow (`create`, `passwd`, `reset`, `--public`) run in this process over a scripted
/// environment and a real SQLite file: what it stores, reports, logs and mails. What only a
/// process shows (a terminal, pipes, signals, argv bytes, exit statuses) stays with the binary's tests.
@Suite(.serialized) struct SignUpFlowTests {
    static let newPassword = "Velvet-Harbor-93"
    static let passwords = "\(goodPassword)\n\(goodPassword)\n"

    /// Whether `password` opens `email`'s account at `box`'s database.
    static func opens(_ box: Sandbox, _ email: String, with password: String) -> Bool {
        guard let store = try? StoreLocation.chosen(option: box.db, environment: [:]).openExisting(),
              case .account(let hash, _) = try? store.verificationTarget(forEmail: email) else { return false }
        return PasswordHasher.verify(Secret(password), against: hash)
    }

    @Test func aScriptCreatesTheAccountAtTheClocksTimeAndLogsIt() {
        let box = Sandbox()
        let run = box.flow(["--db", box.db], lines: [.text(answers)])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "Account created for alice@example.com\n")
        #expect(run.stderr.hasPrefix("Create your account (Ctrl-C to cancel)\nEmail: alice@example.com\nPassword: \n"))
        let accounts = box.storedAccounts()
        #expect(accounts.map(\.email) == ["alice@example.com"])
        #expect(accounts.first?.createdAt.hasPrefix("2026-01-01") == true, "\(accounts)")
        #expect(run.audit.count == 1)
        #expect(run.audit.first?.hasPrefix("account created by ") == true && run.audit.first?.hasSuffix("): alice@example.com") == true)
        #expect(run.priorities == [LOG_INFO])
        #expect(Self.opens(box, "alice@example.com", with: goodPassword))
    }

    @Test func theJSONReportNamesTheNewAccount() {
        let box = Sandbox()
        let run = box.flow(["--db", box.db, "--json", "--quiet"], lines: [.text(answers)])
        #expect(run.status == 0)
        #expect(run.stderr == "")
        #expect(run.stdout.hasPrefix("{\"status\":\"created\",\"email\":\"alice@example.com\",\"id\":1,\"strength\":"))
        #expect(run.json["strength"] as? String != nil)
    }

    @Test func aTakenEmailExits65WithItsMessageAndLogsNothing() {
        let box = Sandbox()
        #expect(box.flow(["--db", box.db], lines: [.text(answers)]).status == 0)
        let run = box.flow(["--db", box.db], lines: [.text("Alice@Example.com\n" + Self.passwords)])
        #expect(run.status == 65)
        #expect(run.stderr.contains("error: email: An account with this email already exists"))
        #expect(run.stdout == "")
        #expect(run.audit.isEmpty)
        #expect(box.storedAccounts().count == 1)
    }

    @Test func passwdChangesOnlyThatPasswordAndLogsIt() {
        let box = Sandbox()
        #expect(box.flow(["--db", box.db], lines: [.text(answers)]).status == 0)
        let run = box.flow(["passwd", "alice@example.com", "--db", box.db], lines: [.text("\(Self.newPassword)\n\(Self.newPassword)\n")],
                           secrets: [Self.newPassword])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "Password changed for alice@example.com\n")
        #expect(run.audit.count == 1 && run.audit[0].hasPrefix("password changed by ") && run.audit[0].hasSuffix(": alice@example.com"))
        #expect(Self.opens(box, "alice@example.com", with: Self.newPassword))
        #expect(!Self.opens(box, "alice@example.com", with: goodPassword))
        let unknown = box.flow(["passwd", "nobody@example.com", "--db", box.db], lines: [.text(Self.passwords)])
        #expect(unknown.status == 67, "\(unknown.stderr)")
        #expect(unknown.stderr == "error: no account has this email address\n")
        let noDatabase = box.flow(["passwd", "alice@example.com", "--db", box.folder.appendingPathComponent("none.sqlite").path], lines: [.text(Self.passwords)])
        #expect(noDatabase.status == 69 && noDatabase.stderr.contains("there is no account database at "), "\(noDatabase.stderr)")
    }

    @Test func aResetTakesTheCodeFromTheMail() {
        let box = Sandbox()
        #expect(box.flow(["--db", box.db], lines: [.text("bob@example.com\n" + Self.passwords)]).status == 0)
        let run = box.flow(["reset", "--db", box.db], lines: ["bob@example.com\n", .mailedCode, .text("\(Self.newPassword)\n\(Self.newPassword)\n")],
                           secrets: [Self.newPassword])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "Password changed for bob@example.com\n")
        #expect(run.mails.count == 1)
        #expect(run.mails.first?.to == "bob@example.com")
        #expect(run.mails.first?.subject.hasPrefix("Your password reset code for ") == true)
        #expect(run.audit.map { $0.components(separatedBy: " by ")[0] } == ["password reset code mailed", "address verified", "password reset"])
        #expect(Self.opens(box, "bob@example.com", with: Self.newPassword))
    }

    /// Outside public mode any local user can set SSH_CONNECTION: an administrator's reset or
    /// proven sign-up names no client address, whatever the variable says.
    @Test func onlyAPublicSessionsLinesNameTheClient() {
        let box = Sandbox()
        let forged = ["SSH_CONNECTION": "203.0.113.7 50000 127.0.0.1 22"]
        let proven = box.flow(["--prove-address", "--db", box.db], lines: ["bob@example.com\n", .mailedCode, .text(Self.passwords)], environment: forged)
        #expect(proven.status == 0, "\(proven.stderr)")
        let reset = box.flow(["reset", "--db", box.db], lines: ["bob@example.com\n", .mailedCode, .text("\(Self.newPassword)\n\(Self.newPassword)\n")],
                             environment: forged, secrets: [Self.newPassword])
        #expect(reset.status == 0, "\(reset.stderr)")
        let lines = proven.audit + reset.audit
        #expect(lines.map { $0.components(separatedBy: " by ")[0] }
                == ["address code mailed", "address verified", "account created", "password reset code mailed", "address verified", "password reset"])
        #expect(!lines.contains { $0.contains("203.0.113.7") }, "\(lines)")
    }

    @Test func aStrangersAccountIsPendingAndItsStepsAreLoggedWithTheClientsAddress() {
        let box = Sandbox()
        let client = ["SSH_CONNECTION": "192.0.2.1 50000 127.0.0.1 22"]
        let run = box.flow(["--public", "--db", box.db], lines: ["new@example.com\n", .mailedCode, .text(Self.passwords)], environment: client)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("An administrator must enable the account before you can sign in."))
        #expect(run.mails.map(\.subject).allSatisfy { $0.hasPrefix("Your sign-up code for ") } && run.mails.count == 1)
        #expect(run.audit.map { $0.components(separatedBy: " by ")[0] }
                == ["address code mailed from 192.0.2.1", "address verified from 192.0.2.1", "pending account created from 192.0.2.1"])
        #expect(run.audit.last?.hasSuffix(": new@example.com") == true)
        #expect(box.storedAccounts().map(\.state) == [.pending])
    }

    /// A stranger with a taken address hears what a new account's maker hears; its owner is
    /// mailed a notice, not a code, and the log has the refusal.
    @Test func aStrangersTakenAddressMailsItsOwnerANotice() {
        let box = Sandbox()
        #expect(box.flow(["--db", box.db], lines: [.text("Owner@example.com\n" + Self.passwords)]).status == 0)
        let client = ["SSH_CONNECTION": "192.0.2.1 50000 127.0.0.1 22"]
        let run = box.flow(["--public", "--no-prove-address", "--db", box.db], lines: [.text("owner@example.com\n" + Self.passwords)], environment: client)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("already exists"))
        #expect(run.mails.count == 1)
        #expect(run.mails.first?.to == "Owner@example.com")
        #expect(run.mails.first?.subject.hasPrefix("Someone tried to sign up on ") == true)
        #expect(run.mails.first?.body.range(of: #"\n    \d{6}\n"#, options: .regularExpression) == nil)
        #expect(run.audit.map { $0.components(separatedBy: " by ")[0] }
                == ["public sign-up refused from 192.0.2.1", "sign-up notice mailed to the owner from 192.0.2.1"])
        #expect(run.audit.first?.hasSuffix(": email taken: Owner@example.com") == true)
        #expect(run.priorities == [LOG_NOTICE, LOG_INFO])
        #expect(box.storedAccounts().map(\.state) == [.active])
    }

    /// With a code asked, a taken address gets the notice when the email is answered: a code
    /// typed back never matches, and the log says a wrong code, as for any address.
    @Test func aStrangersTakenAddressWithAProofGetsNoCode() {
        let box = Sandbox()
        #expect(box.flow(["--db", box.db], lines: [.text("owner@example.com\n" + Self.passwords)]).status == 0)
        let run = box.flow(["--public", "--db", box.db], lines: [.text("owner@example.com\n000000\n" + Self.passwords)],
                           environment: ["SSH_CONNECTION": "192.0.2.1 50000 127.0.0.1 22"])
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("This is not the code that was mailed, or it expired"))
        #expect(run.mails.map { $0.subject.hasPrefix("Someone tried to sign up on ") } == [true])
        #expect(run.audit.map { $0.components(separatedBy: " by ")[0] }
                == ["sign-up notice mailed to the owner from 192.0.2.1", "public sign-up refused from 192.0.2.1"])
        #expect(run.audit.last?.hasSuffix(": wrong code") == true)
        #expect(box.storedAccounts().count == 1)
    }

    @Test func aDryRunWritesAndLogsNothing() {
        let box = Sandbox()
        let run = box.flow(["--db", box.db, "--dry-run", "--json"], lines: [.text(answers)])
        #expect(run.status == 0)
        #expect(run.json["dry_run"] as? Bool == true)
        #expect(run.audit.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: box.db))
        let stranger = box.flow(["--public", "--no-prove-address", "--db", box.db, "--dry-run"], lines: [.text(answers)])
        #expect(stranger.status == 0, "\(stranger.stderr)")
        #expect(stranger.audit.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: box.db))
    }

    /// `--db` over `SIGNUP_DB` over the configuration's `database`, each read by the flow itself.
    @Test func theDatabaseIsTheCommandLinesThenTheEnvironmentsThenTheFiles() {
        let box = Sandbox()
        let (option, variable, fromFile) = ["option", "variable", "file"].map { box.folder.appendingPathComponent("\($0).sqlite").path }
            .splat()
        let config = box.file("signup.conf", Data("database = \(fromFile)\n".utf8))
        func create(_ email: String, _ arguments: [String], _ environment: [String: String]) {
            let run = box.flow(arguments, lines: [.text("\(email)\n" + Self.passwords)], environment: environment.merging(["SIGNUP_CONFIG": config]) { $1 })
            #expect(run.status == 0, "\(run.stderr)")
        }
        create("a@example.com", [], [:])
        create("b@example.com", [], ["SIGNUP_DB": variable])
        create("c@example.com", ["--db", option], ["SIGNUP_DB": variable])
        func emails(_ path: String) -> [String] {
            var found: [String] = []
            try? StoreLocation.chosen(option: path, environment: [:]).openExisting()?.streamAccounts(inState: nil) { found.append($0.email); return true }
            return found
        }
        #expect(emails(fromFile) == ["a@example.com"])
        #expect(emails(variable) == ["b@example.com"])
        #expect(emails(option) == ["c@example.com"])
    }
}

private extension Array {
    /// The first three elements as a tuple.
    func splat() -> (Element, Element, Element) { (self[0], self[1], self[2]) }
}
