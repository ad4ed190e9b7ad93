import Foundation
import Testing

/// The binary driven by a script through pipes.
@Suite struct ScriptTests {
    @Test func happyPathCreatesTheAccount() {
        let box = Sandbox()
        let run = box.run(["--db", box.db], input: lines(answers), secrets: [goodPassword])
        #expect(run.status == 0)
        #expect(run.stdout == "Account created for alice@example.com\n")
        #expect(run.stderr.hasPrefix("Create your account (Ctrl-C to cancel)\nEmail: alice@example.com\nPassword: \n"))
        #expect(run.stderr.contains("Strength: "))
        #expect(run.stderr.contains("Confirm password: \n"))
        #expect(!run.stderr.contains("\u{1B}"))  // no escape sequences in a script
        #expect(box.accounts().map { $0["email"] as? String } == ["alice@example.com"])
    }

    @Test func quietWritesOnlyTheResult() {
        let box = Sandbox()
        let run = box.run(["--db", box.db, "--quiet"], input: lines(answers), secrets: [goodPassword])
        #expect(run.status == 0)
        #expect(run.stderr == "")
        #expect(run.stdout == "Account created for alice@example.com\n")
    }

    @Test func crlfLineEndingsAreAccepted() {
        let box = Sandbox()
        let run = box.run(["--db", box.db], input: lines(answers.replacingOccurrences(of: "\n", with: "\r\n")), secrets: [goodPassword])
        #expect(run.status == 0)
        #expect(box.accounts().map { $0["email"] as? String } == ["alice@example.com"])
    }

    /// Outside review: with lone `\r` line ends the three answers were one line, echoed as the
    /// email with the password in it. A lone `\r` ends a line; `\r\n` is still one line end.
    @Test func loneCarriageReturnsEndLinesAndNeverEchoTheNextAnswer() {
        let box = Sandbox()
        let run = box.run(["--db", box.db], input: lines(answers.replacingOccurrences(of: "\n", with: "\r")), secrets: [goodPassword])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(box.accounts().map { $0["email"] as? String } == ["alice@example.com"])
        let mixed = box.run(["--db", box.db, "--dry-run"], input: lines("bob@example.com\r\r\n\(goodPassword)\n\(goodPassword)\r\n"))
        #expect(mixed.status == 65, "an empty line after a lone \\r is an answer of its own: \(mixed.stderr)")
    }

    /// Outside review: a non-interactive shell starts background jobs with SIGINT ignored (and
    /// `trap '' INT` does the same); signup installed its own handler anyway, so a Ctrl-C meant
    /// for something else cancelled it. A signal the parent ignores stays ignored.
    @Test func aSigintTheParentIgnoresStaysIgnored() throws {
        let box = Sandbox()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "trap '' INT; exec \"$0\" \"$@\"", signupBinary, "--db", box.db, "--json", "--dry-run"]
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": box.folder.path, "LANG": "C.UTF-8", "SWIFT_BACKTRACE": "enable=no", "SIGNUP_CONFIG": "/dev/null"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        Thread.sleep(forTimeInterval: 1)  // well past start-up: the email is being awaited
        kill(process.processIdentifier, SIGINT)
        Thread.sleep(forTimeInterval: 0.2)
        try input.fileHandleForWriting.write(contentsOf: Data(answers.utf8))
        try input.fileHandleForWriting.close()
        let result = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "\(result)")
        #expect(result.contains("\"status\":\"created\""), "\(result)")
    }

    @Test func anInvalidEmailIsReportedAndNothingStored() {
        let box = Sandbox()
        let run = box.run(["--db", box.db], input: lines("alice@\n\(goodPassword)\n\(goodPassword)\n"), secrets: [goodPassword])
        #expect(run.status == 65)
        #expect(run.stderr.contains("error: email: Enter a valid email address, like name@example.com"))
        #expect(run.stdout == "")
        #expect(!FileManager.default.fileExists(atPath: box.db))
    }

    @Test func everyFailingPasswordRuleIsListed() {
        let box = Sandbox()
        let run = box.run(["--db", box.db], input: lines("alice@example.com\nabc\nabc\n"), secrets: ["abc\n"])
        #expect(run.status == 65)
        for message in ["error: password: Use at least 8 characters", "error: password: Add a digit", "error: password: Add an uppercase letter"] {
            #expect(run.stderr.contains(message))
        }
        #expect(!run.stderr.contains("confirm:"))  // the confirmation matches
        #expect(!FileManager.default.fileExists(atPath: box.db))
    }

    @Test func aMismatchedConfirmationIsReported() {
        let box = Sandbox()
        let run = box.run(["--db", box.db], input: lines("alice@example.com\n\(goodPassword)\nQuartz-Lantern-59\n"), secrets: [goodPassword, "Quartz-Lantern-59"])
        #expect(run.status == 65)
        #expect(run.stderr.contains("error: confirm: Passwords do not match"))
        #expect(!FileManager.default.fileExists(atPath: box.db))
    }

    @Test func aCommonPasswordIsTooWeak() {
        let box = Sandbox()
        let run = box.run(["--no-interactive", "--dry-run", "--json"], input: lines("a@example.com\nPassword1\nPassword1\n"), secrets: ["Password1"])
        #expect(run.status == 65)
        let errors = run.json["errors"] as? [String: [[String: String]]]
        #expect(errors?["password"]?.map { $0["code"] } == ["password.tooWeak"])
    }

    @Test(arguments: [(0, "Email"), (1, "Password"), (2, "Confirm password")])
    func endOfInputNamesTheUnansweredField(answered: Int, label: String) {
        let box = Sandbox()
        let input = ["alice@example.com", goodPassword].prefix(answered).map { $0 + "\n" }.joined()
        let run = box.run(["--db", box.db], input: lines(input), secrets: [goodPassword])
        #expect(run.status == 66)
        #expect(run.stderr.contains("error: input ended before \"\(label)\" was answered"))
        #expect(!FileManager.default.fileExists(atPath: box.db))
    }

    @Test func noStandardInputAtAllIsEndOfInput() {
        let box = Sandbox()
        let run = box.run(["--db", box.db])
        #expect(run.status == 66)
        #expect(run.stderr.contains("input ended before \"Email\" was answered"))
    }

    @Test func aLastLineWithoutNewlineCounts() {
        let box = Sandbox()
        let run = box.run(["--db", box.db], input: lines("alice@example.com\n\(goodPassword)\n\(goodPassword)"))
        #expect(run.status == 0)
    }

    @Test func invalidUTF8IsRejectedForItsField() {
        let box = Sandbox()
        var input = Data("ali".utf8) + Data([0xFF, 0xFE]) + Data("@example.com\n".utf8)
        input += Data("\(goodPassword)\n\(goodPassword)\n".utf8)
        let run = box.run(["--db", box.db, "--json"], input: input, secrets: [goodPassword])
        #expect(run.status == 65)
        #expect(run.stderr.contains("error: email: This answer is not valid UTF-8 text"))
        let errors = run.json["errors"] as? [String: [[String: String]]]
        #expect(errors?["email"]?.map { $0["code"] } == ["email.invalidEncoding"])
        #expect(!FileManager.default.fileExists(atPath: box.db))
    }

    @Test func aNULByteIsRejectedForItsField() {
        let box = Sandbox()
        let input = Data("alice@example.com\nQuartz\0Lantern-58\nQuartz\0Lantern-58\n".utf8)
        let run = box.run(["--db", box.db], input: input, secrets: ["Lantern-58"])
        #expect(run.status == 65)
        #expect(run.stderr.contains("error: password: This answer contains a NUL byte"))
    }

    @Test func aOneMebibyteLineIsRejectedWithoutHanging() {
        let box = Sandbox()
        let huge = String(repeating: "A1b", count: 350_000)
        let run = box.run(["--db", box.db, "--json"], input: lines("alice@example.com\n\(huge)\n\(huge)\n"), secrets: [String(huge.prefix(64))])
        #expect(run.status == 65)
        #expect(run.stderr.contains("error: password: This answer is longer than 64 KiB"))
        let errors = run.json["errors"] as? [String: [[String: String]]]
        #expect(errors?["password"]?.map { $0["code"] } == ["password.inputTooLong"])  // the line's code, not the rule's
        #expect(run.stderr.utf8.count < 4096)
    }

    @Test func aLineOfExactly64KiBIsRead() {
        let box = Sandbox()
        let email = String(repeating: "a", count: 65536)
        let run = box.run(["--db", box.db, "--json", "--quiet"], input: lines("\(email)\n\(goodPassword)\n\(goodPassword)\n"))
        let errors = run.json["errors"] as? [String: [[String: String]]]
        #expect(errors?["email"]?.map { $0["code"] } == ["email.tooLong"])  // the email rule's, not the line's
        #expect(errors?["email"]?.first?["message"]?.contains("254") == true)
    }

    @Test func jsonSuccess() {
        let box = Sandbox()
        let run = box.run(["--db", box.db, "--json"], input: lines(answers), secrets: [goodPassword])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("{\"status\":\"created\",\"email\":\"alice@example.com\",\"id\":1,"))
        #expect(run.json["status"] as? String == "created")
        #expect(run.json["id"] as? Int == 1)
        #expect(run.json["strength"] as? String != nil)
        #expect(run.stdout.split(separator: "\n").count == 1)
    }

    @Test func jsonFailureListsEveryError() {
        let box = Sandbox()
        let run = box.run(["--db", box.db, "--json"], input: lines("nope\nabc\nabd\n"), secrets: ["abc", "abd"])
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
        let run = box.run(["--db", box.db, "--json"], input: lines("alice@example.com\n"))
        #expect(run.status == 66)
        #expect(run.json["status"] as? String == "incomplete")
        #expect(run.json["field"] as? String == "password")
    }

    @Test func dryRunStoresNothing() {
        let box = Sandbox()
        let run = box.run(["--db", box.db, "--dry-run", "--json"], input: lines(answers), secrets: [goodPassword])
        #expect(run.status == 0)
        #expect(run.json["status"] as? String == "created")
        #expect(run.json["dry_run"] as? Bool == true)
        #expect(!FileManager.default.fileExists(atPath: box.db))
    }

    @Test func dryRunStillReportsATakenEmail() {
        let box = Sandbox()
        box.run(["--db", box.db], input: lines(answers))
        let run = box.run(["--db", box.db, "--dry-run"], input: lines(answers.uppercased()))
        #expect(run.status == 65)
        #expect(run.stderr.contains("error: email: An account with this email already exists"))
        #expect(box.accounts().count == 1)
    }

    @Test func aTakenEmailInAnotherCaseExits65() {
        let box = Sandbox()
        #expect(box.run(["--db", box.db], input: lines(answers)).status == 0)
        let run = box.run(["--db", box.db, "--json"], input: lines("ALICE@Example.com\n\(goodPassword)\n\(goodPassword)\n"))
        #expect(run.status == 65)
        let errors = run.json["errors"] as? [String: [[String: String]]]
        #expect(errors?["email"]?.map { $0["code"] } == ["email.taken"])
        #expect(box.accounts().count == 1)
    }

    @Test func emailOptionAndPasswordFile() {
        let box = Sandbox()
        let file = box.file("pw", lines(goodPassword + "\n"))
        let run = box.run(["--db", box.db, "--email", "alice@example.com", "--password-file", file], secrets: [goodPassword])
        #expect(run.status == 0)
        #expect(!run.stderr.contains("Email:"))  // answered by the option, not asked
        #expect(box.accounts().map { $0["email"] as? String } == ["alice@example.com"])
    }

    @Test func passwordFromAFileDescriptor() {
        let box = Sandbox()
        let file = box.file("pw", lines(goodPassword + "\r\n"))
        let run = box.run(["--db", box.db, "--password-fd", "3"], input: lines("alice@example.com\n"), secrets: [goodPassword], via: "exec 3<\"\(file)\"; exec \"$0\" \"$@\"")
        #expect(run.status == 0)
        #expect(box.accounts().count == 1)
    }

    @Test func passwordFromStandardInputDescriptor() {
        let box = Sandbox()
        let run = box.run(["--db", box.db, "--email", "alice@example.com", "--password-fd", "0"], input: lines(goodPassword + "\n"), secrets: [goodPassword])
        #expect(run.status == 0)
    }

    @Test func passwordFromTheEnvironment() {
        let box = Sandbox()
        let run = box.run(["--db", box.db], input: lines("alice@example.com\n"), environment: ["SIGNUP_PASSWORD": goodPassword], secrets: [goodPassword])
        #expect(run.status == 0)
        #expect(box.accounts().count == 1)
    }

    @Test func aWeakPasswordFromAFileIsReportedWithoutItsText() {
        let box = Sandbox()
        let file = box.file("pw", lines("hunter2\n"))
        let run = box.run(["--db", box.db, "--email", "alice@example.com", "--password-file", file], secrets: ["hunter2"])
        #expect(run.status == 65)
        #expect(run.stderr.contains("error: password: Use at least 8 characters"))
    }

    @Test func aPasswordOnTheCommandLineIsRefused() {
        let box = Sandbox()
        for arguments in [["--password", "hunter22"], ["--password=hunter22"], ["--passwd=hunter22"], ["create", "--pass", "hunter22"]] {
            let run = box.run(["--db", box.db] + arguments, input: lines(answers), secrets: ["hunter22"])
            #expect(run.status == 64)
            #expect(run.stderr.contains("passwords are never taken on the command line"))
        }
        #expect(!FileManager.default.fileExists(atPath: box.db))
    }

    @Test func aStrayArgumentIsNotRepeatedInTheError() {
        let box = Sandbox()
        let cases = [
            ["--db", box.db, "hunter2-Granite"],
            ["verify", "alice@example.com", "hunter2-Granite", "--db", box.db],
            ["--db", box.db, "--email", "a@example.com", "hunter2-Granite"],
        ]
        for arguments in cases {
            let run = box.run(arguments, input: lines(answers), secrets: ["hunter2-Granite"])
            #expect(run.status == 64)
            #expect(run.stderr.contains("Unexpected argument (not shown: it may be a secret)"))
        }
        #expect(!FileManager.default.fileExists(atPath: box.db))
    }

    @Test func usageErrors() {
        let box = Sandbox()
        #expect(box.run(["--policy", "lax"], input: lines(answers)).status == 64)
        #expect(box.run(["--password-fd", "9"], input: lines(answers)).status == 64)
        let missing = box.run(["--password-file", box.folder.appendingPathComponent("nope").path])
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("--password-file"))
        #expect(!missing.stderr.contains("nope"))  // a path may be a password typed in the wrong place
        #expect(box.run(["--frobnicate"]).status == 64)
    }

    @Test func policiesAreSelectable() {
        let box = Sandbox()
        let strict = box.run(["--policy", "strict", "--dry-run", "--json"], input: lines("alice@example.com\nQuartzLantern58\nQuartzLantern58\n"))
        #expect(strict.status == 65)
        let errors = strict.json["errors"] as? [String: [[String: String]]]
        #expect(errors?["password"]?.map { $0["code"] } == ["password.needsSymbol"])
        let nist = box.run(["--policy", "nist", "--dry-run", "--json"], input: lines("aliceliddell@example.com\naliceliddell harbour lantern\naliceliddell harbour lantern\n"))
        let nistErrors = nist.json["errors"] as? [String: [[String: String]]]
        #expect(nistErrors?["password"]?.map { $0["code"] }.contains("password.containsEmail") == true)
    }

    @Test func policyFiles() {
        let box = Sandbox()
        let policy = box.file("policy.json", lines(#"{"name": "acme", "minLength": 10, "blocklistFile": "words.txt", "messages": {"password.blockedWord": "No company names"}}"#))
        _ = box.file("words.txt", lines("# blocked\nacme\n"))
        let run = box.run(["--policy-file", policy, "--dry-run", "--json"], input: lines("alice@example.com\nAcme-Lantern-58\nAcme-Lantern-58\n"))
        #expect(run.status == 65)
        let errors = run.json["errors"] as? [String: [[String: String]]]
        #expect(errors?["password"]?.map { $0["message"] } == ["No company names"])

        let broken = box.file("broken.json", lines(#"{"minLength": "ten"}"#))
        let bad = box.run(["--policy-file", broken], input: lines(answers))
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--policy-file"))
        #expect(!bad.stderr.contains("broken.json"))  // no usage error quotes an option value
        #expect(bad.stderr.contains("\"minLength\" must be a whole number"))
        let missing = box.run(["--policy-file", box.folder.appendingPathComponent("none.json").path], input: lines(answers))
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("--policy-file"))
        #expect(!missing.stderr.contains("none.json"))
    }

    /// Naming a policy and a policy file is a usage error even when the name is the default's:
    /// `--policy standard --policy-file F` took the file and said nothing. Every command that
    /// takes both (`create`, `passwd`, `verify`, `import`, `list`), through the parser or not.
    @Test(arguments: [[], ["create", "--db=DB"], ["passwd", "alice@example.com"], ["verify", "alice@example.com"], ["import", "-"], ["list", "--count-old-hashes"]])
    func aPolicyAndAPolicyFileAreNeverBothTaken(command: [String]) {
        let box = Sandbox()
        let policy = box.file("policy.json", lines(#"{"minLength": 10}"#))
        let words = command.map { $0 == "--db=DB" ? "--db=" + box.db : $0 }
        let both = box.run(words + ["--policy", "standard", "--policy-file", policy], input: lines(answers))
        #expect(both.status == 64, "\(words): \(both.stderr)")
        #expect(both.stderr.contains("use only one of --policy and --policy-file"), "\(words): \(both.stderr)")
    }

    @Test func aCompatibilityCharacterIsRefusedNotFolded() {
        // A fullwidth letter is refused with a reason, instead of being stored as the
        // NFKC form that mail servers and PHP would never compare against.
        let box = Sandbox()
        let run = box.run(["--db", box.db, "--json"], input: lines("alice@example.com\nＱuartz-Lantern-58\nＱuartz-Lantern-58\n"), secrets: ["uartz-Lantern-58"])
        #expect(run.status == 65)
        let errors = run.json["errors"] as? [String: [[String: String]]]
        #expect(errors?["password"]?.map { $0["code"] } == ["password.compatibilityCharacter"])
        #expect(!run.stderr.contains("Ｑ"))
        #expect(!FileManager.default.fileExists(atPath: box.db))
    }
}

/// `signup --public` with answers on a pipe (`ssh -T`): the same limits as at a terminal.
@Suite struct PublicScriptTests {
    @Test func aSilentPipeEndsTheSessionAtTheIdleTimeout() {
        let box = Sandbox()
        let run = box.run(["--public", "--idle-timeout", "2", "--db", box.db], via: "sleep 8 2>/dev/null | exec \"$0\" \"$@\"")
        #expect(run.status == 75, "\(run.stderr)")
        #expect(run.stderr.contains("No answer for 2 s: the session ends. Nothing was saved."))
        #expect(!FileManager.default.fileExists(atPath: box.db))
    }

    /// A stranger's account is pending, and one client's sign-ups stop at its limit, counted in the
    /// store across processes; another client still gets its own.
    @Test func publicAccountsArePendingWithinTheirClientsLimit() {
        let box = Sandbox()
        func signUp(_ email: String, from client: String) -> Run {
            box.run(["--public", "--no-prove-address", "--limit-per-client", "2", "--db", box.db],
                    input: lines("\(email)\n\(goodPassword)\n\(goodPassword)\n"), environment: ["SSH_CONNECTION": "\(client) 50000 127.0.0.1 22"])
        }
        #expect(signUp("a1@example.com", from: "192.0.2.1").status == 0)
        let second = signUp("a2@example.com", from: "192.0.2.1")
        #expect(second.status == 0 && second.stderr.contains("An administrator must enable the account"), "\(second.stderr)")
        let third = signUp("a3@example.com", from: "192.0.2.1")
        #expect(third.status == 75, "\(third.stderr)")
        #expect(third.stderr.contains("too many accounts were created from your address recently"))
        #expect(!third.stderr.contains("192.0.2.1"))
        #expect(signUp("b1@example.com", from: "198.51.100.7").status == 0)
        let pending = box.run(["list", "--state", "pending", "--db", box.db])
        #expect(pending.stdout.components(separatedBy: "\n").filter { $0.contains("@example.com") }.count == 3, "\(pending.stdout)")
        #expect(!pending.stdout.contains("a3@example.com"))
        // Pending accounts cannot sign in until enabled.
        #expect(box.run(["verify", "a1@example.com", "--db", box.db], input: lines(goodPassword + "\n")).status == 77)
        #expect(box.run(["enable", "a1@example.com", "--db", box.db]).status == 0)
        #expect(box.run(["verify", "a1@example.com", "--db", box.db], input: lines(goodPassword + "\n")).status == 0)
    }

    @Test func limitsGoWithPublicOnly() {
        let box = Sandbox()
        #expect(box.run(["--idle-timeout", "5", "--db", box.db], input: lines(answers)).status == 64)
        #expect(box.run(["--public", "--session-limit", "0", "--db", box.db], input: lines(answers)).status == 64)
        let run = box.run(["--public", "--no-prove-address", "--db", box.db], input: lines(answers))
        #expect(run.status == 0, "\(run.stderr)")
    }
}
