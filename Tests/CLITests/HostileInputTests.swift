import Foundation
import Testing

/// Hostile bytes on every stream, file, argument and variable, in a script.
/// Every run also checks that the usual test password reached neither output.
@Suite struct HostileInputTests {
    static let secret = "Zebra-Secret-Token-91"

    // MARK: - The password keeps its place in the field order (item 1)

    /// Standard input given as the password source in every spelling, in a script, without
    /// `--email`: its first line cannot be known to be an email (`printf 'Secret\n' | signup
    /// --password-fd 0` took the password for the email and echoed it). A usage error naming the
    /// options, before any line is read or echoed.
    @Test(arguments: [
        ["--password-fd", "0"],
        ["--password-file", "/dev/stdin"],
        ["--password-file", "/proc/self/fd/0"],
    ])
    func standardInputAsThePasswordSourceNeedsTheEmailOption(source: [String]) {
        let box = Sandbox()
        let run = box.run(["--dry-run", "--json"] + source, input: lines("\(Self.secret)\n"), secrets: [Self.secret])
        #expect(run.status == 64)
        #expect(run.stderr.contains("give the email with --email"))
        #expect(!run.stderr.contains("Email:"))
    }

    /// With `--email`, the one line of standard input answers both password fields, never echoed.
    @Test(arguments: [
        ["--password-fd", "0"],
        ["--password-file", "/dev/stdin"],
        ["--password-file", "/proc/self/fd/0"],
    ])
    func standardInputAsThePasswordSourceWithTheEmailOption(source: [String]) {
        let box = Sandbox()
        let run = box.run(["--dry-run", "--json", "--email", "a@example.com"] + source, input: lines("\(Self.secret)\n"), secrets: [Self.secret])
        #expect(run.status == 0)
        #expect(run.stderr.contains("Password: \n"))
        #expect(!run.stderr.contains("Confirm password"))  // the one line answers both fields
        #expect(run.json["email"] as? String == "a@example.com")
    }

    @Test func aDuplicateOfStandardInputIsStandardInput() {
        let box = Sandbox()
        let refused = box.run(["--dry-run", "--json", "--password-fd", "3"], input: lines("\(Self.secret)\n"),
                              secrets: [Self.secret], via: "exec 3<&0; exec \"$0\" \"$@\"")
        #expect(refused.status == 64)
        let run = box.run(["--dry-run", "--json", "--email", "a@example.com", "--password-fd", "3"], input: lines("\(Self.secret)\n"),
                          secrets: [Self.secret], via: "exec 3<&0; exec \"$0\" \"$@\"")
        #expect(run.status == 0)
        #expect(run.json["email"] as? String == "a@example.com")
    }

    @Test func aFileOnStandardInputNamedAgainIsStandardInput() {
        let box = Sandbox()
        let answers = box.file("answers", lines("\(Self.secret)\n"))
        let refused = box.run(["--dry-run", "--json", "--password-file", answers], secrets: [Self.secret],
                              via: "exec <\"\(answers)\"; exec \"$0\" \"$@\"")
        #expect(refused.status == 64)
        let run = box.run(["--dry-run", "--json", "--email", "a@example.com", "--password-file", answers], secrets: [Self.secret],
                          via: "exec <\"\(answers)\"; exec \"$0\" \"$@\"")
        #expect(run.status == 0)
        #expect(run.json["email"] as? String == "a@example.com")
    }

    @Test func withEmailGivenTheOneStandardInputLineIsThePassword() {
        let box = Sandbox()
        let run = box.run(["--db", box.db, "--email", "a@example.com", "--password-fd", "0"], input: lines(Self.secret + "\n"), secrets: [Self.secret])
        #expect(run.status == 0)
        #expect(box.run(["verify", "a@example.com", "--db", box.db], input: lines(Self.secret + "\n"), secrets: [Self.secret]).status == 0)
    }

    // MARK: - Every source of text is judged as a line of the script is

    @Test func aSignupPasswordThatIsNotUTF8IsRefusedNotRepaired() {
        let box = Sandbox()
        let run = box.run(["--db", box.db, "--json", "--email", "a@example.com"],
                          via: "SIGNUP_PASSWORD=\"$(printf 'Quartz-Lantern-58\\377')\" exec \"$0\" \"$@\"")
        #expect(run.status == 65)
        let errors = run.json["errors"] as? [String: [[String: String]]]
        #expect(errors?["password"]?.map { $0["code"] } == ["password.invalidEncoding"])
        #expect(!FileManager.default.fileExists(atPath: box.db))
    }

    @Test func anEmailOptionThatIsNotUTF8IsAnEncodingError() {
        let box = Sandbox()
        for spelling in ["--email \"$(printf 'ali\\377@example.com')\"", "--email=\"$(printf 'ali\\377@example.com')\""] {
            let run = box.run(["--dry-run", "--json"], input: lines("\(goodPassword)\n\(goodPassword)\n"),
                              via: "exec \"$0\" \"$@\" \(spelling)")
            #expect(run.status == 65)
            let errors = run.json["errors"] as? [String: [[String: String]]]
            #expect(errors?["email"]?.map { $0["code"] } == ["email.invalidEncoding"], "\(spelling)")
        }
    }

    // MARK: - No usage error quotes a value (item 7)

    @Test(arguments: [
        ["-pHunter2-Secret-77"], ["--password-fd=Hunter2-Secret-77"], ["--json=Hunter2-Secret-77"], ["--quiet=Hunter2-Secret-77"],
        ["-xHunter2-Secret-77"], ["--Hunter2-Secret-77"], ["--policy", "Hunter2-Secret-77"], ["--policy-file", "Hunter2-Secret-77"],
        ["--password-file", "Hunter2-Secret-77"], ["--password-fd", "Hunter2-Secret-77"], ["--email", "a@example.com", "--email=x", "Hunter2-Secret-77"],
        ["verify", "a@example.com", "Hunter2-Secret-77"], ["verify", "--db=x", "--Hunter2-Secret-77"], ["list", "Hunter2-Secret-77"],
        ["list", "--json=Hunter2-Secret-77"], ["Hunter2-Secret-77", "--json"], ["--dry-run", "--", "Hunter2-Secret-77"],
        ["--policy-file", "/etc/passwd", "--db", "Hunter2-Secret-77"],
        ["--generate-completion-script", "Hunter2-Secret-77"],
    ])
    func noUsageErrorQuotesAValue(arguments: [String]) {
        let box = Sandbox()
        let run = box.run(arguments, input: lines(answers), secrets: ["Hunter2-Secret-77", "Hunter2"])
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("error: "))
        // In German too: the catalog's texts are filled with the program's own names only.
        let german = box.run(arguments, input: lines(answers), environment: LanguageTests.german, secrets: ["Hunter2-Secret-77", "Hunter2"])
        #expect(german.status == 64)
        #expect(german.stderr.hasPrefix("error: ") && german.stderr != run.stderr, "\(german.stderr)")
    }

    @Test func usageErrorsStillSayWhatIsWrong() {
        let box = Sandbox()
        #expect(box.run(["--password-fd=x"]).stderr.contains("--password-fd"))
        #expect(box.run(["--json=x"]).stderr.contains("--json does not take a value"))
        #expect(box.run(["--policy", "lax"]).stderr.contains("use standard, strict or nist"))
        #expect(box.run(["verify"]).stderr.contains("Missing <email>"))
        #expect(box.run(["list", "--db"]).stderr.contains("Missing value for --db <path>"))
        #expect(box.run(["--password-file", box.folder.path + "/none"]).stderr.contains("No such file or directory"))
    }

    // MARK: - Unreadable password sources are usage errors naming the source (item 8)

    @Test(arguments: [
        ("--password-file \"$HOME\"", "folder"),
        ("--password-fd 3 3<\"$HOME\"", "folder"),
        ("--password-fd 3 3>\"$HOME/out\"", "writing only"),
        ("--password-fd 3 3>&-", "not open"),
        ("--password-fd 9", "not open"),
        ("--password-file /dev/null", "sent nothing"),
        ("--password-file \"$HOME/empty\"", "sent nothing"),
        ("--password-fd 3 3</dev/null", "sent nothing"),
        ("--password-file \"$HOME/fifo\"", "sent nothing"),  // a FIFO nobody writes to: no wait
        ("--password-file /dev/stderr", "own standard output or error"),  // the read end of signup's own pipe
        ("--password-file /proc/self/fd/1", "own standard output or error"),
        // A pipe whose only writer is signup: its end never comes (this waited for ever).
        ("--password-fd 3 3<>\"$HOME/fifo\"", "open for writing in signup itself"),
        ("--password-file \"$HOME/fifo\" 3<>\"$HOME/fifo\"", "open for writing in signup itself"),
    ])
    func anUnreadablePasswordSourceIsAUsageError(source: String, reason: String) {
        let box = Sandbox()
        _ = box.file("empty", Data())
        mkfifo(box.folder.appendingPathComponent("fifo").path, 0o600)
        let run = box.run(["--email", "a@example.com", "--db", box.db], input: lines(answers),
                          via: "cd \"$HOME\"; exec timeout 60 \"$0\" \"$@\" \(source)")
        #expect(run.status == 64, "\(source)")
        #expect(run.stderr.contains(source.hasPrefix("--password-file") ? "--password-file" : "--password-fd"))
        #expect(run.stderr.contains(reason), "\(source): \(run.stderr)")
        #expect(!run.stderr.contains(box.folder.path))
        #expect(!FileManager.default.fileExists(atPath: box.db))
    }

    /// Standard input that is a folder cannot be read: a usage error, not "input ended" (66).
    @Test(arguments: [[], ["--email", "a@example.com"], ["verify", "a@example.com"]])
    func aFolderOnStandardInputIsAUsageError(arguments: [String]) {
        let box = Sandbox()
        let run = box.run(arguments + ["--db", box.db], via: "exec \"$0\" \"$@\" <\"$HOME\"")
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("standard input is a folder"), "\(run.stderr)")
        #expect(!run.stderr.contains(box.folder.path))
    }

    @Test func aListeningSocketIsAUsageError() {
        let box = Sandbox()
        let socketPath = box.folder.appendingPathComponent("s").path
        let script = """
            import os, socket, sys
            s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1)
            fd = s.detach()
            if fd != 3: os.dup2(fd, 3)
            os.set_inheritable(3, True); os.execv(sys.argv[2], sys.argv[2:])
            """
        let run = box.run(["--email", "a@example.com", "--password-fd", "3", "--db", box.db], input: lines(answers),
                          via: "exec timeout 60 python3 -c '\(script)' \"\(socketPath)\" \"$0\" \"$@\"")
        #expect(run.status == 64)
        #expect(run.stderr.contains("--password-fd descriptor is a listening socket"))
    }

    /// Outside review: a connected socket (stream or datagram) whose peer stays silent hung for
    /// ever; "a socket that sends nothing" is among the sources that cannot be read.
    @Test(arguments: ["SOCK_STREAM", "SOCK_DGRAM"])
    func aSilentConnectedSocketIsAUsageError(kind: String) {
        let box = Sandbox()
        let script = """
            import os, socket, sys
            a, b = socket.socketpair(socket.AF_UNIX, socket.\(kind))
            os.dup2(a.fileno(), 10); os.set_inheritable(10, True)  # the peer stays open, and silent
            fd = b.detach()
            if fd != 3: os.dup2(fd, 3)
            os.set_inheritable(3, True); os.execv(sys.argv[1], sys.argv[1:])
            """
        let run = box.run(["--email", "a@example.com", "--password-fd", "3", "--db", box.db], input: lines(answers),
                          via: "exec timeout 60 python3 -c '\(script)' \"$0\" \"$@\"")
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("--password-fd socket sent nothing"), "\(run.stderr)")
    }

    @Test func aPipeWithAWriterIsWaitedFor() {
        let box = Sandbox()
        let run = box.run(["--email", "a@example.com", "--dry-run", "--password-file", "/dev/fd/3"],
                          via: "(sleep 1; echo \(goodPassword)) | { exec 3<&0 </dev/null; exec \"$0\" \"$@\"; }")
        #expect(run.status == 0, "\(run.stderr)")
    }

    // MARK: - An endless line ends in its error (item 9)

    @Test(arguments: [
        (["--dry-run", "--json"], "email", 66),
        (["--dry-run", "--json", "--email", "a@example.com"], "password", 66),
        (["--dry-run", "--json", "--email", "a@example.com", "--password-fd", "0"], "password", 65),
    ])
    func standardInputFromDevZeroEndsInTheLineError(arguments: [String], field: String, status: Int32) {
        let box = Sandbox()
        let run = box.run(arguments, via: "exec timeout 60 \"$0\" \"$@\" </dev/zero")
        #expect(run.status == status)
        #expect(run.stderr.contains("error: \(field): This answer is longer than 64 KiB"))
        #expect(run.stderr.utf8.count < 4096)
    }

    @Test func aPasswordFileOfDevZeroEndsInTheLineError() {
        let box = Sandbox()
        let run = box.run(["--dry-run", "--json", "--email", "a@example.com", "--password-file", "/dev/zero"], via: "exec timeout 60 \"$0\" \"$@\"")
        #expect(run.status == 65)
        let errors = run.json["errors"] as? [String: [[String: String]]]
        #expect(errors?["password"]?.map { $0["code"] } == ["password.inputTooLong"])
    }

    /// `verify` in a script: a password line it cannot read gets its input error, as at the
    /// prompt, never "Password does not match." (which sent people looking for a wrong password).
    @Test(arguments: [
        ([0x57, 0xFF, 0x0A], "This answer is not valid UTF-8 text"),
        ([0x57, 0x00, 0x31, 0x0A], "This answer contains a NUL byte"),
        (Array(repeating: 0x57, count: 70_000) + [0x0A], "This answer is longer than 64 KiB"),
    ] as [([UInt8], String)])
    func verifyInAScriptSaysWhyAPasswordLineCannotBeRead(line: [UInt8], message: String) {
        let box = Sandbox()
        let run = box.run(["verify", "a@example.com", "--db", box.db], input: Data(line))
        #expect(run.status == 1)
        #expect(run.stderr.contains("error: password: \(message)"), "\(run.stderr)")
        #expect(!run.stderr.contains("does not match"))
    }

    @Test func verifyFromDevZeroEnds() {
        let box = Sandbox()
        box.run(["--db", box.db], input: lines(answers))
        let run = box.run(["verify", "alice@example.com", "--db", box.db], via: "exec timeout 60 \"$0\" \"$@\" </dev/zero")
        #expect(run.status == 1, "\(run.stderr)")
    }

    @Test func aClosedStandardInputIsEndOfInputNotTheProgramsOwnPipe() {
        // With descriptor 0 closed, the signal guard's pipe became "standard input" and was read forever.
        let box = Sandbox()
        let run = box.run(["--dry-run", "--json"], via: "exec timeout 60 \"$0\" \"$@\" <&-")
        #expect(run.status == 66)
        #expect(run.json["status"] as? String == "incomplete")
        let fd = box.run(["--dry-run", "--email", "a@example.com", "--password-fd", "3"], input: lines(answers), via: "exec timeout 60 \"$0\" \"$@\" 3<&-")
        #expect(fd.status == 64)
        #expect(fd.stderr.contains("the --password-fd descriptor is not open"))
    }

    // MARK: - Other text sources: policy and blocklist files

    @Test func aHugePolicyFileIsRefusedWithoutReadingItWhole() throws {
        let box = Sandbox()
        let path = box.file("huge.json", Data())
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 2 << 30)  // 2 GiB, sparse
        try handle.close()
        let run = box.run(["--policy-file", path], input: lines(answers), via: "ulimit -v 1000000; exec timeout 60 \"$0\" \"$@\"")
        #expect(run.status == 64)
        #expect(run.stderr.contains("larger than 1 MiB"))
    }

    @Test func policyAndBlocklistFilesWithHostileBytesAreUsageErrors() {
        let box = Sandbox()
        let notUTF8 = box.file("bad.json", Data("{\"name\": \"a".utf8) + Data([0xFF]) + Data("\"}".utf8))
        #expect(box.run(["--policy-file", notUTF8], input: lines(answers)).status == 64)
        _ = box.file("nul.txt", Data("acme\0\n".utf8))
        let withNul = box.file("p.json", lines(#"{"blocklistFile": "nul.txt"}"#))
        let run = box.run(["--policy-file", withNul], input: lines(answers))
        #expect(run.status == 64)
        #expect(run.stderr.contains("blocklistFile"))
        #expect(!run.stderr.contains("nul.txt"))
        // Named but holding no word (empty, only comments, a FIFO nobody writes to): refused, since
        // it would silently block nothing.
        _ = box.file("empty.txt", Data("# nothing yet\n\n".utf8))
        let empty = box.run(["--policy-file", box.file("e.json", lines(#"{"blocklistFile": "empty.txt"}"#))], input: lines(answers))
        #expect(empty.status == 64 && empty.stderr.contains("holds no word"), "\(empty.stderr)")
        #expect(mkfifo(box.folder.appendingPathComponent("fifo").path, 0o600) == 0)
        let fifo = box.run(["--policy-file", box.file("f.json", lines(#"{"blocklistFile": "fifo"}"#))], input: lines(answers))
        #expect(fifo.status == 64, "a FIFO with no writer blocked nothing: \(fifo.stdout)")
        let folder = box.file("folder.json", lines(#"{"blocklistFile": "."}"#))
        #expect(box.run(["--policy-file", folder], input: lines(answers)).stderr.contains("Is a directory"))
        #expect(box.run(["--policy-file", box.folder.path], input: lines(answers)).stderr.contains("Is a directory"))
    }
}
