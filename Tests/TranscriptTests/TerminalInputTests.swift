import Foundation
import Glibc
import Testing
import WizardTesting

/// Byte-level checks of what a person can type at the prompts: raw bytes that are not UTF-8,
/// the editing keys of every terminal family, Backspace over whole characters.
@Suite struct TerminalInputTests {
    /// Starts signup in a pseudo-terminal with the pinned environment.
    static func start(_ arguments: [String], scratch: ScratchFolder, environment: [String: String?] = [:]) throws -> PseudoTerminal {
        var overrides = environment
        overrides["HOME"] = .some(scratch.path)
        return try PseudoTerminal(executable: signupBinary, arguments: ["--db", scratch.database] + arguments,
                                  environment: PseudoTerminal.environment(overrides))
    }

    // MARK: - Bytes that are not UTF-8

    @Test func bytesThatAreNotUTF8AreRefusedAtEveryPrompt() throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.start([], scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        try terminal.send(bytes: Array("caf".utf8) + [0xE9] + Array("@example.com\r".utf8))
        try terminal.expect("not valid UTF-8", timeout: 10)
        try terminal.expect("Email: ", timeout: 10)
        try terminal.send("cafe@example.com\r")
        try terminal.expect("Password: ", timeout: 10)
        // Café-Lantern-58 typed with a Latin-1 é (E9): refused, not turned into U+FFFD.
        try terminal.send(bytes: Array("Caf".utf8) + [0xE9] + Array("-Lantern-58\r".utf8))
        try terminal.expect("not valid UTF-8", timeout: 10)
        try terminal.expect("Password: ", timeout: 10)
        try terminal.send("Quartz-Lantern-58\r")
        try terminal.expect("Confirm password: ", timeout: 10)
        try terminal.send(bytes: Array("Quartz-Lantern-5".utf8) + [0xFF] + [0x0D])
        try terminal.expect("not valid UTF-8", timeout: 10)
        try terminal.expect("Confirm password: ", timeout: 10)
        try terminal.send("Quartz-Lantern-58\r")
        try terminal.expect("Create account? [Y/n/e] ", timeout: 10)
        try terminal.send("n\r")
        #expect(try terminal.wait(timeout: 10) == .exited(1))
        let screen = Screen.render(terminal.transcript)
        #expect(screen.components(separatedBy: "This answer is not valid UTF-8 text").count == 4, "\(screen)")
    }

    @Test func verifyRefusesAPasswordThatIsNotUTF8() throws {
        let scratch = try ScratchFolder()
        try scratch.createAccount(email: "taken@example.com")
        let terminal = try PseudoTerminal(
            executable: signupBinary, arguments: ["verify", "taken@example.com", "--db", scratch.database],
            environment: PseudoTerminal.environment(["HOME": scratch.path]))
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Password for taken@example.com: ", timeout: 10)
        try terminal.send(bytes: [0xFF, 0x0D])
        #expect(try terminal.wait(timeout: 10) == .exited(1))
        #expect(terminal.text().contains("not valid UTF-8"), "\(terminal.text())")
    }

    // MARK: - Editing keys of every terminal family

    /// Keys with no editing job here: each must be ignored, none may insert text.
    static let ignoredKeys: [String: [String]] = [
        "xterm": ["\u{1B}[2~", "\u{1B}[5~", "\u{1B}[6~", "\u{1B}OP", "\u{1B}OQ", "\u{1B}OR", "\u{1B}OS",
                  "\u{1B}[15~", "\u{1B}[17~", "\u{1B}[18~", "\u{1B}[19~", "\u{1B}[20~", "\u{1B}[21~", "\u{1B}[23~",
                  "\u{1B}[24~", "\u{1B}[1;5A", "\u{1B}[1;2P", "\u{1B}[15;5~", "\u{1B}[Z", "\u{1B}[200~", "\u{1B}[201~"],
        "rxvt": ["\u{1B}[2~", "\u{1B}[5~", "\u{1B}[6~", "\u{1B}[11~", "\u{1B}[12~", "\u{1B}[13~", "\u{1B}[14~",
                 "\u{1B}[23$", "\u{1B}[11^", "\u{1B}[2$", "\u{1B}[5^", "\u{1B}[3@", "\u{1B}Oa", "\u{1B}[a"],
        "screen": ["\u{1B}[2~", "\u{1B}[5~", "\u{1B}[6~", "\u{1B}OP", "\u{1B}[15~", "\u{1B}[24~", "\u{1B}[1;5B"],
        "linux": ["\u{1B}[[A", "\u{1B}[[B", "\u{1B}[[C", "\u{1B}[[D", "\u{1B}[[E", "\u{1B}[17~", "\u{1B}[2~", "\u{1B}[5~"],
        "vt100": ["\u{1B}OP", "\u{1B}OQ", "\u{1B}OR", "\u{1B}OS"],
    ]

    /// Each family's Home, End, Left, Delete, and word-left key.
    static let editingKeys: [String: (home: String, end: String, left: String, delete: String, wordLeft: String)] = [
        "xterm": ("\u{1B}[H", "\u{1B}[F", "\u{1B}[D", "\u{1B}[3~", "\u{1B}[1;5D"),
        "rxvt": ("\u{1B}[7~", "\u{1B}[8~", "\u{1B}[D", "\u{1B}[3~", "\u{1B}Od"),
        "screen": ("\u{1B}[1~", "\u{1B}[4~", "\u{1B}OD", "\u{1B}[3~", "\u{1B}[1;5D"),
        "linux": ("\u{1B}[1~", "\u{1B}[4~", "\u{1B}[D", "\u{1B}[3~", "\u{1B}[1;5D"),
        "vt100": ("\u{1B}OH", "\u{1B}OF", "\u{1B}OD", "\u{1B}[3~", "\u{1B}O5D"),
    ]

    static let families = ["xterm", "rxvt", "screen", "linux", "vt100"]

    /// `b`, the ignored keys between the letters, then Home, End, Left, Delete, word-left doing their jobs.
    static func typing(family: String) -> String {
        let keys = editingKeys[family]!
        let ignored = ignoredKeys[family]!
        var text = "o"
        for (index, key) in ignored.enumerated() { text += key + (index == 0 ? "b@ex" : "") }
        // "ob@ex" + Home + "b" → "bob@ex"; End + "ample.comx" + Left + Delete → "bob@example.co" + "m"…
        text += keys.home + "b" + keys.end + "ample.comx" + keys.left + keys.delete + keys.wordLeft + keys.end + "\r"
        return text
    }

    @Test(arguments: families, [false, true])
    func editingKeysEditTheEmailAndOtherKeysInsertNothing(family: String, plain: Bool) throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.start(plain ? ["--plain"] : [], scratch: scratch,
                                      environment: ["SIGNUP_PASSWORD": "Quartz-Lantern-58"])
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        try terminal.send(Self.typing(family: family))
        try terminal.expect("Create account? [Y/n/e] ", timeout: 10)
        try terminal.send("n\r")
        _ = try terminal.wait(timeout: 10)
        let screen = Screen.render(terminal.transcript)
        #expect(screen.contains("  Email     bob@example.com\n"), "\(family)\(plain ? " --plain" : ""): the email was not edited right:\n\(screen)")
        #expect(!screen.contains("~") && !screen.contains(";5") && !screen.contains("$"), "\(family): a key left text:\n\(screen)")
    }

    @Test(arguments: families, [false, true])
    func noKeyOfAnyFamilyBecomesPartOfAPassword(family: String, plain: Bool) throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.start(["--email", "bob@example.com", "--dry-run"] + (plain ? ["--plain"] : []), scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        let keys = Self.editingKeys[family]!
        let every = Self.ignoredKeys[family]! + [keys.home, keys.end, keys.left, keys.delete, keys.wordLeft, "\u{1B}[A", "\u{1B}[B"]
        try terminal.expect("Password: ", timeout: 10)
        try terminal.send("Quartz-" + every.joined() + "Lantern-58\r")
        try terminal.expect("Confirm password: ", timeout: 10)
        try terminal.send("Quartz-Lantern-58\r")
        // A byte of any sequence in the password would make the two differ: "Passwords do not match".
        try terminal.expect("Create account? [Y/n/e] ", timeout: 10)
        try terminal.send("n\r")
        _ = try terminal.wait(timeout: 10)
        #expect(!terminal.text().contains("do not match"), "\(family): a key became part of the password")
    }

    /// What terminals send that is not a key: answers to title and colour queries (OSC), DCS,
    /// APC and PM strings, an X10 mouse report, SS2, and a CSI longer than 64 bytes.
    static let terminalReports = [
        "\u{1B}]0;t\u{07}", "\u{1B}]11;rgb:0/0/0\u{1B}\\", "\u{1B}Pq#0\u{1B}\\", "\u{1B}_x\u{1B}\\", "\u{1B}^x\u{1B}\\",
        "\u{1B}[M !!", "\u{1B}Na", "\u{1B}[" + String(repeating: "1;", count: 50) + "A",
    ]

    @Test(arguments: terminalReports, [false, true])
    func noTerminalReportBecomesPartOfAPasswordOrAnEmail(report: String, plain: Bool) throws {
        let scratch = try ScratchFolder()
        // libedit's editor (xterm, colour) and the no-escape one (--plain) read keys the same way.
        let environment: [String: String?] = plain ? ["HOME": scratch.path] : ["HOME": scratch.path, "TERM": "xterm", "NO_COLOR": nil]
        let terminal = try PseudoTerminal(executable: signupBinary, arguments: ["--db", scratch.database, "--dry-run", "--json"] + (plain ? ["--plain"] : []),
                                          environment: PseudoTerminal.environment(environment), pipeStandardOutput: true)
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        try terminal.send("bob@" + report + "example.com\r")
        try terminal.expect("Password: ", timeout: 10)
        try terminal.send("Zq8-Secret-" + report + "Walrus-17\r")
        try terminal.expect("Confirm password: ", timeout: 10)
        try terminal.send("Zq8-Secret-Walrus-17\r")
        try terminal.expect("Create account? [Y/n/e] ", timeout: 10)
        try terminal.send("y\r")
        #expect(try terminal.wait(timeout: 10) == .exited(0), "\(terminal.text())")
        #expect(!terminal.text().contains("do not match"), "a report became part of the password")
        #expect(String(decoding: terminal.standardOutput, as: UTF8.self).contains("\"email\":\"bob@example.com\""),
                "a report became part of the email: \(terminal.text())")
    }

    // MARK: - --no-interactive at a terminal

    @Test func noInteractiveAtATerminalShowsTheEmailOnce() throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.start(["--no-interactive"], scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        try terminal.send("alice@example.com\r")
        try terminal.expect("Password: ", timeout: 10)
        try terminal.send("Quartz-Lantern-58\r")
        try terminal.expect("Confirm password: ", timeout: 10)
        try terminal.send("Quartz-Lantern-58\r")
        #expect(try terminal.wait(timeout: 10) == .exited(0))
        let screen = Screen.render(terminal.transcript)
        #expect(screen.components(separatedBy: "alice@example.com").count == 3, "the email is shown once, then in the result:\n\(screen)")
        #expect(!screen.contains("\n\n"), "a blank line after a prompt:\n\(screen)")
        #expect(!terminal.transcript.containsBytes("Quartz-Lantern-58".utf8))
    }

    @Test func noInteractiveAtATerminalNeverEchoesAPastedPassword() throws {
        // Outside review: the kernel echoed a paste of all three lines, the password twice.
        let scratch = try ScratchFolder()
        let terminal = try Self.start(["--no-interactive"], scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        try terminal.send("ni2@example.com\rSecret-Ni-Walrus-88\rSecret-Ni-Walrus-88\r")
        #expect(try terminal.wait(timeout: 10) == .exited(0), "\(terminal.text())")
        #expect(!terminal.transcript.containsBytes("Secret-Ni-Walrus-88".utf8), "\(terminal.text())")
        #expect(Screen.render(terminal.transcript).contains("Email: ni2@example.com"))
    }

    /// Outside review: `--password-file /dev/tty` is the terminal standard input is, under another
    /// device number; it was read first, silently, so the email became the password and the
    /// password was then echoed as the email (and kept in history).
    @Test func aPasswordFileThatIsTheTerminalIsAskedInItsPlace() throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.start(["--dry-run", "--password-file", "/dev/tty"], scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        try terminal.send("tty@example.com\r")
        try terminal.expect("Password: ", timeout: 10)
        try terminal.send("Secret-Tty-Walrus-88\r")
        try terminal.expect("[Y/n/e] ", timeout: 10)
        try terminal.send("y\r")
        #expect(try terminal.wait(timeout: 10) == .exited(0), "\(terminal.text())")
        #expect(!terminal.transcript.containsBytes("Secret-Tty-Walrus-88".utf8), "\(terminal.text())")
    }

    /// A password pasted three times, arriving in pieces 5–50 ms apart as a terminal or SSH sends
    /// a paste: the rest after the confirmation's Enter is never echoed at `Create account?`.
    @Test(arguments: [true, false])
    func aPasswordPastedInPiecesIsNotEchoedAtTheReview(noColor: Bool) throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.start(["--email", "bob@example.com", "--dry-run"], scratch: scratch,
                                      environment: ["NO_COLOR": noColor ? "1" : nil])
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Password: ", timeout: 10)
        let paste = Array(String(repeating: "Quartz-Lantern-58\r", count: 3).utf8)
        for (index, start) in stride(from: 0, to: paste.count, by: 5).enumerated() {
            try terminal.send(bytes: Array(paste[start..<min(start + 5, paste.count)]))
            usleep(useconds_t([5, 20, 50][index % 3] * 1000))
        }
        try terminal.expect("[Y/n/e] ", timeout: 10)
        terminal.settle(quiet: 0.5)
        try terminal.send("n\r")
        #expect(try terminal.wait(timeout: 10) == .exited(1), "\(terminal.text())")
        for piece in ["Quart", "Lante", "rn-58", "z-Lan"] {
            #expect(!terminal.transcript.containsBytes(piece.utf8), "\(piece) was echoed: \(terminal.text())")
        }
    }

    // MARK: - Backspace over whole characters

    @Test(arguments: ["👍🏽", "🇫🇷", "e\u{301}", "👩‍👩‍👧"])
    func backspaceInAPasswordRemovesOneCharacter(_ character: String) throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.start(["--email", "bob@example.com", "--dry-run"], scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Password: ", timeout: 10)
        try terminal.send("Quartz-Lantern-58" + character + "\u{7F}\r")
        try terminal.expect("Confirm password: ", timeout: 10)
        try terminal.send("Quartz-Lantern-58\r")
        let seen = try terminal.expect("? [", timeout: 10)
        #expect(seen.contains("Review") && !seen.contains("do not match"),
                "Backspace left part of \(character.unicodeScalars.map { String($0.value, radix: 16) }): \(seen)")
        try terminal.send("n\r")
        _ = try terminal.wait(timeout: 10)
    }
}
