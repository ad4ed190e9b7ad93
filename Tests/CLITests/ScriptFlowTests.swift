import Foundation
import Testing

/// A script's sign-up (answers on standard input, `--email`, a password file or variable, the
/// policies, `--json`, `--dry-run`) run in this process over a scripted environment and a real
/// SQLite file. The binary's own tests of a script keep what only a process shows.
@Suite struct ScriptFlowTests {
    @Test func happyPathCreatesTheAccount() {
        let box = Sandbox()
        let run = box.flow(["--db", box.db], lines: .script(answers), secrets: [goodPassword])
        #expect(run.status == 0)
        #expect(run.stdout == "Account created for alice@example.com\n")
        #expect(run.stderr.hasPrefix("Create your account (Ctrl-C to cancel)\nEmail: alice@example.com\nPassword: \n"))
        #expect(run.stderr.contains("Strength: "))
        #expect(run.stderr.contains("Confirm password: \n"))
        #expect(!run.stderr.contains("\u{1B}"))  // no escape sequences in a script
        #expect(box.storedAccounts().map(\.email) == ["alice@example.com"])
    }

    @Test func quietWritesOnlyTheResult() {
        let box = Sandbox()
        let run = box.flow(["--db", box.db, "--quiet"], lines: .script(answers), secrets: [goodPassword])
        #expect(run.status == 0)
        #expect(run.stderr == "")
        #expect(run.stdout == "Account created for alice@example.com\n")
    }

    @Test func crlfLineEndingsAreAccepted() {
        let box = Sandbox()
        let run = box.flow(["--db", box.db], lines: .script(answers.replacingOccurrences(of: "\n", with: "\r\n")), secrets: [goodPassword])
        #expect(run.status == 0)
        #expect(box.storedAccounts().map(\.email) == ["alice@example.com"])
    }

    @Test func loneCarriageReturnsEndLinesAndNeverEchoTheNextAnswer() {
        let box = Sandbox()
        let run = box.flow(["--db", box.db], lines: .script(answers.replacingOccurrences(of: "\n", with: "\r")), secrets: [goodPassword])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(box.storedAccounts().map(\.email) == ["alice@example.com"])
        let mixed = box.flow(["--db", box.db, "--dry-run"], lines: .script("bob@example.com\r\r\n\(goodPassword)\n\(goodPassword)\r\n"))
        #expect(mixed.status == 65, "an empty line after a lone \\r is an answer of its own: \(mixed.stderr)")
    }

    @Test func anInvalidEmailIsReportedAndNothingStored() {
        let box = Sandbox()
        let run = box.flow(["--db", box.db], lines: .script("alice@\n\(goodPassword)\n\(goodPassword)\n"), secrets: [goodPassword])
        #expect(run.status == 65)
        #expect(run.stderr.contains("error: email: Enter a valid email address, like name@example.com"))
        #expect(run.stdout == "")
        #expect(!FileManager.default.fileExists(atPath: box.db))
    }

    @Test func everyFailingPasswordRuleIsListed() {
        let box = Sandbox()
        let run = box.flow(["--db", box.db], lines: .script("alice@example.com\nabc\nabc\n"), secrets: ["abc\n"])
        #expect(run.status == 65)
        for message in ["error: password: Use at least 8 characters", "error: password: Add a digit", "error: password: Add an uppercase letter"] {
            #expect(run.stderr.contains(message))
        }
        #expect(!run.stderr.contains("confirm:"))  // the confirmation matches
        #expect(!FileManager.default.fileExists(atPath: box.db))
    }

    @Test func aMismatchedConfirmationIsReported() {
        let box = Sandbox()
        let run = box.flow(["--db", box.db], lines: .script("alice@example.com\n\(goodPassword)\nQuartz-Lantern-59\n"), secrets: [goodPassword, "Quartz-Lantern-59"])
        #expect(run.status == 65)
        #expect(run.stderr.contains("error: confirm: Passwords do not match"))
        #expect(!FileManager.default.fileExists(atPath: box.db))
    }

    @Test func aCommonPasswordIsTooWeak() {
        let box = Sandbox()
        let run = box.flow(["--no-interactive", "--dry-run", "--json"], lines: .script("a@example.com\nPassword1\nPassword1\n"), secrets: ["Password1"])
        #expect(run.status == 65)
        let errors = run.json["errors"] as? [String: [[String: String]]]
        #expect(errors?["password"]?.map { $0["code"] } == ["password.tooWeak"])
    }

    @Test(arguments: [(0, "Email"), (1, "Password"), (2, "Confirm password")])
    func endOfInputNamesTheUnansweredField(answered: Int, label: String) {
        let box = Sandbox()
        let input = ["alice@example.com", goodPassword].prefix(answered).map { $0 + "\n" }.joined()
        let run = box.flow(["--db", box.db], lines: .script(input), secrets: [goodPassword])
        #expect(run.status == 66)
        #expect(run.stderr.contains("error: input ended before \"\(label)\" was answered"))
        #expect(!FileManager.default.fileExists(atPath: box.db))
    }

    @Test func noStandardInputAtAllIsEndOfInput() {
        let box = Sandbox()
        let run = box.flow(["--db", box.db])
        #expect(run.status == 66)
        #expect(run.stderr.contains("input ended before \"Email\" was answered"))
    }

    @Test func aLastLineWithoutNewlineCounts() {
        let box = Sandbox()
        let run = box.flow(["--db", box.db], lines: .script("alice@example.com\n\(goodPassword)\n\(goodPassword)"))
        #expect(run.status == 0)
    }

    @Test func invalidUTF8IsRejectedForItsField() {
        let box = Sandbox()
        var input = Data("ali".utf8) + Data([0xFF, 0xFE]) + Data("@example.com\n".utf8)
        input += Data("\(goodPassword)\n\(goodPassword)\n".utf8)
        let run = box.flow(["--db", box.db, "--json"], lines: [.bytes(input)], secrets: [goodPassword])
        #expect(run.status == 65)
        #expect(run.stderr.contains("error: email: This answer is not valid UTF-8 text"))
        let errors = run.json["errors"] as? [String: [[String: String]]]
        #expect(errors?["email"]?.map { $0["code"] } == ["email.invalidEncoding"])
        #expect(!FileManager.default.fileExists(atPath: box.db))
    }

    @Test func aNULByteIsRejectedForItsField() {
        let box = Sandbox()
        let input = Data("alice@example.com\nQuartz\0Lantern-58\nQuartz\0Lantern-58\n".utf8)
        let run = box.flow(["--db", box.db], lines: [.bytes(input)], secrets: ["Lantern-58"])
        #expect(run.status == 65)
        #expect(run.stderr.contains("error: password: This answer contains a NUL byte"))
    }

    @Test func aOneMebibyteLineIsRejectedWithoutHanging() {
        let box = Sandbox()
        let huge = String(repeating: "A1b", count: 350_000)
        let run = box.flow(["--db", box.db, "--json"], lines: .script("alice@example.com\n\(huge)\n\(huge)\n"), secrets: [String(huge.prefix(64))])
        #expect(run.status == 65)
        #expect(run.stderr.contains("error: password: This answer is longer than 64 KiB"))
        let errors = run.json["errors"] as? [String: [[String: String]]]
        #expect(errors?["password"]?.map { $0["code"] } == ["password.inputTooLong"])  // the line's code, not the rule's
        #expect(run.stderr.utf8.count < 4096)
    }

    @Test func aLineOfExactly64KiBIsRead() {
        let box = Sandbox()
        let email = String(repeating: "a", count: 65536)
        let run = box.flow(["--db", box.db, "--json", "--quiet"], lines: .script("\(email)\n\(goodPassword)\n\(goodPassword)\n"))
        let errors = run.json["errors"] as? [String: [[String: String]]]
        #expect(errors?["email"]?.map { $0["code"] } == ["email.tooLong"])  // the email rule's, not the line's
        #expect(errors?["email"]?.first?["message"]?.contains("254") == true)
    }

    @Test func jsonSuccess() {
        let box = Sandbox()
        let run = box.flow(["--db", box.db, "--json"], lines: .script(answers), secrets: [goodPassword])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("{\"status\":\"created\",\"email\":\"alice@example.com\",\"id\":1,"))
        #expect(run.json["status"] as? String == "created")
        #expect(run.json["id"] as? Int == 1)
        #expect(run.json["strength"] as? String != nil)
        #expect(run.stdout.split(separator: "\n").count == 1)
    }

    @Test func jsonFailureListsEveryError() {
        let box = Sandbox()
        let run = box.flow(["--db", box.db, "--json"], lines: .script("nope\nabc\nabd\n"), secrets: ["abc", "abd"])
        #expect(run.status == 65)
        #expect(run.json["status"] as? String == "invalid")
        let errors = run.json["errors"] as? [String: [[String: String]]] ?? [:]
        #expect(errors["email"]?.map { $0["code"] } == ["email.invalid"])
        #expect(errors["password"]?.map { $0["code"] } == ["password.tooShort", "password.needsDigit", "password.needsUppercase", "password.tooWeak"])
        #expect(errors["confirm"]?.map { $0["code"] } == ["confirm.mismatch"])
        #expect(errors["password"]?.allSatisfy { $0["message"]?.isEmpty == false } == true)
    }

    @Test func jsonIncomplete() {
        let box = Sandbox()
        let run = box.flow(["--db", box.db, "--json"], lines: .script("alice@example.com\n"))
        #expect(run.status == 66)
        #expect(run.json["status"] as? String == "incomplete")
        #expect(run.json["field"] as? String == "password")
    }

    @Test func dryRunStoresNothing() {
        let box = Sandbox()
        let run = box.flow(["--db", box.db, "--dry-run", "--json"], lines: .script(answers), secrets: [goodPassword])
        #expect(run.status == 0)
        #expect(run.json["status"] as? String == "created")
        #expect(run.json["dry_run"] as? Bool == true)
        #expect(!FileManager.default.fileExists(atPath: box.db))
    }

    @Test func dryRunStillReportsATakenEmail() {
        let box = Sandbox()
        box.flow(["--db", box.db], lines: .script(answers))
        let run = box.flow(["--db", box.db, "--dry-run"], lines: .script(answers.uppercased()))
        #expect(run.status == 65)
        #expect(run.stderr.contains("error: email: An account with this email already exists"))
        #expect(box.storedAccounts().count == 1)
    }

    @Test func aTakenEmailInAnotherCaseExits65() {
        let box = Sandbox()
        #expect(box.flow(["--db", box.db], lines: .script(answers)).status == 0)
        let run = box.flow(["--db", box.db, "--json"], lines: .script("ALICE@Example.com\n\(goodPassword)\n\(goodPassword)\n"))
        #expect(run.status == 65)
        let errors = run.json["errors"] as? [String: [[String: String]]]
        #expect(errors?["email"]?.map { $0["code"] } == ["email.taken"])
        #expect(box.storedAccounts().count == 1)
    }

    @Test func emailOptionAndPasswordFile() {
        let box = Sandbox()
        let file = box.file("pw", lines(goodPassword + "\n"))
        let run = box.flow(["--db", box.db, "--email", "alice@example.com", "--password-file", file], secrets: [goodPassword])
        #expect(run.status == 0)
        #expect(!run.stderr.contains("Email:"))  // answered by the option, not asked
        #expect(box.storedAccounts().map(\.email) == ["alice@example.com"])
    }

    @Test func passwordFromTheEnvironment() {
        let box = Sandbox()
        let run = box.flow(["--db", box.db], lines: .script("alice@example.com\n"), password: goodPassword, secrets: [goodPassword])
        #expect(run.status == 0)
        #expect(box.storedAccounts().count == 1)
    }

    @Test func aWeakPasswordFromAFileIsReportedWithoutItsText() {
        let box = Sandbox()
        let file = box.file("pw", lines("hunter2\n"))
        let run = box.flow(["--db", box.db, "--email", "alice@example.com", "--password-file", file], secrets: ["hunter2"])
        #expect(run.status == 65)
        #expect(run.stderr.contains("error: password: Use at least 8 characters"))
    }

    @Test func policiesAreSelectable() {
        let box = Sandbox()
        let strict = box.flow(["--policy", "strict", "--dry-run", "--json"], lines: .script("alice@example.com\nQuartzLantern58\nQuartzLantern58\n"))
        #expect(strict.status == 65)
        let errors = strict.json["errors"] as? [String: [[String: String]]]
        #expect(errors?["password"]?.map { $0["code"] } == ["password.needsSymbol"])
        let nist = box.flow(["--policy", "nist", "--dry-run", "--json"], lines: .script("aliceliddell@example.com\naliceliddell harbour lantern\naliceliddell harbour lantern\n"))
        let nistErrors = nist.json["errors"] as? [String: [[String: String]]]
        #expect(nistErrors?["password"]?.map { $0["code"] }.contains("password.containsEmail") == true)
    }

    @Test func policyFiles() {
        let box = Sandbox()
        let policy = box.file("policy.json", lines(#"{"name": "acme", "minLength": 10, "blocklistFile": "words.txt", "messages": {"password.blockedWord": "No company names"}}"#))
        _ = box.file("words.txt", lines("# blocked\nacme\n"))
        let run = box.flow(["--policy-file", policy, "--dry-run", "--json"], lines: .script("alice@example.com\nAcme-Lantern-58\nAcme-Lantern-58\n"))
        #expect(run.status == 65)
        let errors = run.json["errors"] as? [String: [[String: String]]]
        #expect(errors?["password"]?.map { $0["message"] } == ["No company names"])

        let broken = box.file("broken.json", lines(#"{"minLength": "ten"}"#))
        let bad = box.flow(["--policy-file", broken], lines: .script(answers))
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--policy-file"))
        #expect(!bad.stderr.contains("broken.json"))  // no usage error quotes an option value
        #expect(bad.stderr.contains("\"minLength\" must be a whole number"))
        let missing = box.flow(["--policy-file", box.folder.appendingPathComponent("none.json").path], lines: .script(answers))
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("--policy-file"))
        #expect(!missing.stderr.contains("none.json"))
    }

    @Test func aCompatibilityCharacterIsRefusedNotFolded() {
        // A fullwidth letter is refused with a reason, instead of being stored as the
        // NFKC form that mail servers and PHP would never compare against.
        let box = Sandbox()
        let run = box.flow(["--db", box.db, "--json"], lines: .script("alice@example.com\nＱuartz-Lantern-58\nＱuartz-Lantern-58\n"), secrets: ["uartz-Lantern-58"])
        #expect(run.status == 65)
        let errors = run.json["errors"] as? [String: [[String: String]]]
        #expect(errors?["password"]?.map { $0["code"] } == ["password.compatibilityCharacter"])
        #expect(!run.stderr.contains("Ｑ"))
        #expect(!FileManager.default.fileExists(atPath: box.db))
    }
}
