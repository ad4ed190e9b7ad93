import Foundation
import Testing

/// Hostile bytes in a script's answers, a password variable, an email or a policy's messages, run
/// through the sign-up flow in this process over a scripted environment. What arrives by a
/// descriptor, an argument's bytes or a device stays with the binary's ``HostileInputTests``.
@Suite struct HostileInputFlowTests {
    @Test func anEchoedEmailCannotSendEscapeSequences() {
        let box = Sandbox()
        // A backspace overwrites as a lone \r did (a lone \r now ends the line: see ScriptTests).
        let hostile = "a\u{1B}]0;PWNED\u{7}\u{1B}[2J@example.com\u{8}X\u{9B}1m\u{202E}"
        let run = box.flow(["--dry-run", "--json"], lines: .script("\(hostile)\n\(goodPassword)\n\(goodPassword)\n"))
        #expect(run.status == 65)
        #expect(run.stderr.contains("Email: a^[]0;PWNED^G^[[2J@example.com^HX<U+009B>1m<U+202E>\n"))
        #expect(!run.stderrBytes.contains(0x1B) && !run.stderrBytes.contains(0x07) && !run.stderrBytes.contains(0x08))
        #expect(!run.stdoutBytes.contains(0x1B))
    }

    @Test func aStoreFailureNamingAHostilePathIsMadeVisible() throws {
        let box = Sandbox()
        let blocker = box.file("file", Data())
        let db = blocker + "/\u{1B}[2J/accounts.sqlite"  // a folder under a plain file: cannot exist
        let run = box.flow(["--db", db, "--json"], lines: .script(answers))
        #expect(run.status == 74)
        #expect(!run.stderrBytes.contains(0x1B))
        #expect(run.stderr.contains("^[[2J"))
        // Still valid JSON; the store names a path as VisibleText shows it, so a consumer that
        // prints the reason cannot be sent an escape sequence either.
        let reason = try #require(run.json["reason"] as? String)
        #expect(reason.contains("^[[2J") && !reason.contains("\u{1B}"))
    }

    @Test func policyFileMessagesAreMadeVisible() {
        let box = Sandbox()
        let policy = box.file("policy.json", lines(#"{"messages": {"password.tooShort": "Short\u001b[2J\r"}}"#))
        let run = box.flow(["--policy-file", policy, "--dry-run"], lines: .script("a@example.com\nAb1\nAb1\n"), secrets: ["Ab1\n"])
        #expect(run.status == 65)
        #expect(run.stderr.contains("error: password: Short^[[2J^M"))
        #expect(!run.stderrBytes.contains(0x1B))
    }

    @Test func aSignupPasswordOver64KiBIsRefused() {
        let box = Sandbox()
        let long = String(repeating: "Ab1-", count: 16 * 1024 + 1)
        let run = box.flow(["--dry-run", "--json", "--email", "a@example.com"], password: long, secrets: [String(long.prefix(40))])
        #expect(run.status == 65)
        let errors = run.json["errors"] as? [String: [[String: String]]]
        #expect(errors?["password"]?.map { $0["code"] } == ["password.inputTooLong"])
    }

    @Test func aByteOrderMarkStartingAPasswordFileIsNotPartOfThePassword() {
        let box = Sandbox()
        let file = box.file("pw", Data([0xEF, 0xBB, 0xBF]) + lines(goodPassword + "\r\n"))
        let run = box.flow(["--db", box.db, "--email", "a@example.com", "--password-file", file])
        #expect(run.status == 0)
        #expect(box.run(["verify", "a@example.com", "--db", box.db], input: lines(goodPassword + "\n")).status == 0)
    }

    @Test func aByteOrderMarkStartingStandardInputIsDropped() {
        let box = Sandbox()
        let run = box.flow(["--dry-run", "--json"], lines: [.bytes(Data([0xEF, 0xBB, 0xBF]) + lines(answers))])
        #expect(run.status == 0)
        #expect(run.json["email"] as? String == "alice@example.com")
    }

    @Test func anNFDPasswordIsHashedAsNFC() throws {
        let box = Sandbox()
        let nfd = "Que\u{301}bec-Lantern-58", nfc = "Qu\u{E9}bec-Lantern-58"
        #expect(box.flow(["--db", box.db], lines: .script("a@example.com\n\(nfd)\n\(nfd)\n"), secrets: [nfd, nfc]).status == 0)
        // Another program checks the stored hash against the NFC bytes people type elsewhere.
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/env")  // the python3 on PATH, where argon2-cffi is
        check.arguments = ["python3", "-c", """
            import sqlite3, sys
            from argon2 import PasswordHasher
            h = sqlite3.connect(sys.argv[1]).execute('select password_hash from account').fetchone()[0]
            sys.exit(0 if PasswordHasher().verify(h, sys.argv[2].encode()) else 1)
            """, box.db, nfc]
        try check.run()
        check.waitUntilExit()
        #expect(check.terminationStatus == 0)
    }

    @Test func invisibleCharactersInAnEmailAreRefused() {
        let box = Sandbox()
        for email in ["alice\u{FE0F}@example.com", "alic\u{34F}e@example.com"] {
            let run = box.flow(["--db", box.db, "--json"], lines: .script("\(email)\n\(goodPassword)\n\(goodPassword)\n"))
            #expect(run.status == 65)
            let errors = run.json["errors"] as? [String: [[String: String]]]
            #expect(errors?["email"]?.map { $0["code"] } == ["email.invisibleCharacter"])
        }
        #expect(!FileManager.default.fileExists(atPath: box.db))
    }

    /// Addresses made to look like another: a Cyrillic letter among Latin ones in the local part
    /// or a label, 31 accents stacked on one letter. One alphabet per part, and a few accents, pass.
    @Test func lookalikeEmailsAreRefused() {
        let box = Sandbox()
        let refused = [
            ("adm\u{456}n@example.com", "email.mixedScripts"),
            ("admin@ex\u{430}mple.com", "email.mixedScripts"),
            ("p\u{3BF}stmaster@example.com", "email.mixedScripts"),
            ("a" + String(repeating: "\u{301}", count: 31) + "b@example.com", "email.stackedMarks"),
        ]
        for (email, code) in refused {
            let run = box.flow(["--db", box.db, "--json"], lines: .script("\(email)\n\(goodPassword)\n\(goodPassword)\n"))
            #expect(run.status == 65, "\(email)")
            let errors = run.json["errors"] as? [String: [[String: String]]]
            #expect(errors?["email"]?.map { $0["code"] } == [code], "\(email)")
        }
        #expect(!FileManager.default.fileExists(atPath: box.db))
        for email in ["\u{438}\u{432}\u{430}\u{43D}@\u{43F}\u{440}\u{438}\u{43C}\u{435}\u{440}.\u{440}\u{444}", "\u{395}\u{3BB}\u{3AD}\u{3BD}\u{3B7}@example.com",
                      "jos\u{E9}@b\u{FC}cher.de", "nguy\u{1EC5}n@example.vn", "\u{674E}lee@example.cn"] {
            let run = box.flow(["--dry-run", "--json"], lines: .script("\(email)\n\(goodPassword)\n\(goodPassword)\n"))
            #expect(run.status == 0, "\(email): \(run.stderr)")
        }
    }

    @Test func anOverlongLineDoesNotShiftTheAnswersAfterIt() {
        let box = Sandbox()
        let long = String(repeating: "x", count: 200_000)
        let run = box.flow(["--dry-run", "--json"], lines: .script("\(long)@example.com\n\(goodPassword)\n\(goodPassword)\n"))
        #expect(run.status == 65)
        let errors = run.json["errors"] as? [String: [[String: String]]]
        #expect(errors?.keys.sorted() == ["email"])  // the password and confirmation were read as such
        #expect(errors?["email"]?.map { $0["code"] } == ["email.inputTooLong"])
    }
}
