import Foundation
import Testing

/// The binary driven by a script through pipes.
@Suite struct ScriptTests {
    /// Outside review: with lone `\r` line ends the three answers were one line, echoed as the
    /// email with the password in it. A lone `\r` ends a line; `\r\n` is still one line end.
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
