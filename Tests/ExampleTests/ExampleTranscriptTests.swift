import Foundation
import Glibc
import Testing
import WizardTesting

/// The `wizard-example` binary built beside this test bundle.
let exampleBinary: String = {
    let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var folder = bundle.deletingLastPathComponent()
    while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("wizard-example").path), folder.path != "/" {
        folder = folder.deletingLastPathComponent()
    }
    return folder.appendingPathComponent("wizard-example").path
}()

/// A password that passes the standard policy; it must never be shown.
let goodPassword = "Quartz-Lantern-58"

/// What a person sees when running the example (Examples/WizardExample) in a pseudo-terminal.
@Suite struct ExampleTerminalTests {
    static func start(_ arguments: [String] = []) throws -> PseudoTerminal {
        try PseudoTerminal(executable: exampleBinary, arguments: arguments, pipeStandardOutput: true)
    }

    @Test func hintBeforeThePasswordThenChecklistTypedAgeAndWelcome() throws {
        let terminal = try Self.start()
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Username: ", timeout: 10)
        try terminal.send("bob\r")
        // The requirements come before the first password prompt, and no error before an answer.
        let beforePrompt = try terminal.expect("Password: ", timeout: 10)
        #expect(beforePrompt.contains("Password requirements: at least 8 characters, a digit, an uppercase letter, strength at least reasonable"))
        #expect(!beforePrompt.contains("✗"), "\(beforePrompt)")
        // A weak password: its errors, then a ✓/✗ line per check and its strength, then the prompt again.
        try terminal.send("weakpass1\r")
        let afterWeak = try terminal.expect("Password: ", timeout: 10)
        for line in ["✗ Add an uppercase letter", "✓ at least 8 characters", "✓ a digit", "✗ an uppercase letter",
                     "✗ strength at least reasonable", "Strength: "] {
            #expect(afterWeak.contains(line), "\(line) missing from \(afterWeak)")
        }
        #expect(!afterWeak.contains("Password requirements"), "the hint is shown once: \(afterWeak)")
        try terminal.send(goodPassword + "\r")
        let afterGood = try terminal.expect("Confirm password: ", timeout: 10)
        #expect(afterGood.contains("✓ strength at least reasonable") && !afterGood.contains("✗"), "\(afterGood)")
        try terminal.send(goodPassword + "\r")
        // The typed field: a line that is no number, then one out of range, each asked again.
        try terminal.expect("Age: ", timeout: 10)
        try terminal.send("abc\r")
        try terminal.expect("✗ Enter a whole number, such as 42", timeout: 10)
        try terminal.expect("Age: ", timeout: 10)
        try terminal.send("7\r")
        try terminal.expect("✗ Enter a value from 13 to 120", timeout: 10)
        try terminal.expect("Age: ", timeout: 10)
        try terminal.send("42\r")
        let review = try terminal.expect("Sign up? [Y/n/e] ", timeout: 10)
        #expect(review.contains("Password") && review.contains("set") && review.contains("42"), "\(review)")
        try terminal.send("y\r")
        #expect(try terminal.wait(timeout: 10) == .exited(0))
        try terminal.readAll()
        #expect(String(decoding: terminal.standardOutput, as: UTF8.self) == "Welcome, bob\n")
        let screen = Screen.render(terminal.transcript)
        #expect(!screen.contains(goodPassword) && !screen.contains("weakpass1"), "a password was shown: \(screen)")
        // The whole conversation as a person read it, against the recording beside this file.
        expectTranscript(screen, matches: "Transcripts/example-sign-up.transcript")
    }

    /// A password pasted once too often: the copy left over after the confirmation is never
    /// echoed by the visible prompt that follows (it was typed during a secret, not for Age).
    @Test func aPasswordPastedOnceTooOftenIsNotShownAtTheNextVisiblePrompt() throws {
        let terminal = try Self.start()
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Username: ", timeout: 10)
        try terminal.send("bob\r" + goodPassword + "\r" + goodPassword + "\r" + goodPassword + "\r")
        try terminal.expect("Age: ", timeout: 10)
        Thread.sleep(forTimeInterval: 0.5)  // what the Age prompt would echo, if it took the copy
        try terminal.send("42\r")
        let review = try terminal.expect("Sign up? [Y/n/e] ", timeout: 10)
        #expect(review.contains("42"), "\(review)")
        try terminal.send("y\r")
        #expect(try terminal.wait(timeout: 10) == .exited(0))
        try terminal.readAll()
        let screen = Screen.render(terminal.transcript)
        #expect(!screen.contains(goodPassword) && !screen.contains("Quartz"), "a password was shown: \(screen)")
        #expect(String(decoding: terminal.standardOutput, as: UTF8.self) == "Welcome, bob\n")
    }

    /// The runner hardens a program whose form has a secret, not only signup: no core file (a
    /// crash would write the password to disk), from before the first prompt.
    @Test func theProcessWritesNoCoreWhileItAsks() throws {
        let terminal = try Self.start()
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Username: ")
        let limits = try String(contentsOfFile: "/proc/\(terminal.pid)/limits", encoding: .utf8)
        let core = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") }.map(String.init) ?? ""
        #expect(core.split(separator: " ").filter { $0.allSatisfy(\.isNumber) } == ["0", "0"], "core limit: \(core)")
    }

    @Test func aTakenUsernameIsShownRightAfterItsAnswerAndAskedAgain() throws {
        let terminal = try Self.start()
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Username: ", timeout: 10)
        try terminal.send("admin\r")
        // The availability check answers before the password is asked: only the username again.
        let rejected = try terminal.expect("Username: ", timeout: 10)
        #expect(rejected.contains("✗ This username is taken"), "\(rejected)")
        #expect(!rejected.contains("Password: "), "\(rejected)")
        try terminal.send("bob\r")
        try terminal.expect("Password: ", timeout: 10)
        try terminal.send(goodPassword + "\r")
        try terminal.expect("Confirm password: ", timeout: 10)
        try terminal.send(goodPassword + "\r")
        try terminal.expect("Age: ", timeout: 10)
        try terminal.send("30\r")
        try terminal.expect("Sign up? [Y/n/e] ", timeout: 10)
        try terminal.send("y\r")
        #expect(try terminal.wait(timeout: 10) == .exited(0))
        try terminal.readAll()
        #expect(String(decoding: terminal.standardOutput, as: UTF8.self) == "Welcome, bob\n")
        #expect(!Screen.render(terminal.transcript).contains(goodPassword))
    }

    /// A lookup that would take ten minutes: Ctrl-C cancels it and, nothing else being answered,
    /// ends the program at once with the terminal restored.
    @Test func controlCCancelsASlowAvailabilityCheck() throws {
        let terminal = try Self.start(["--lookup-delay", "600000"])
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Username: ", timeout: 10)
        try terminal.send("bob\r")
        usleep(300_000)  // the lookup is under way
        try terminal.send("\u{03}")
        #expect(try terminal.wait(timeout: 20) == .exited(130))
        try terminal.readAll()
        #expect(terminal.standardOutput.isEmpty)
    }

    @Test func controlCAfterAnAnswerAsksToDiscardAndRestoresTheTerminal() throws {
        let terminal = try Self.start()
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Username: ", timeout: 10)
        try terminal.send("bob\r")
        try terminal.expect("Password: ", timeout: 10)
        try terminal.send("Quartz\u{03}")
        try terminal.expect("Discard your answers? [y/N] ", timeout: 10)
        try terminal.send("y\r")
        #expect(try terminal.wait(timeout: 10) == .exited(130))
        try terminal.readAll()
        #expect(terminal.standardOutput.isEmpty)
        #expect(!Screen.render(terminal.transcript).contains("Quartz"), "the typed secret was shown")
    }
}

extension ExampleTerminalTests {
    @Test func aScriptAtATerminalNeverShowsThePassword() throws {
        let terminal = try Self.start(["--no-interactive"])
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Username: ", timeout: 10)
        try terminal.send("bob\r")
        try terminal.expect("Password: ", timeout: 10)
        // Typed ahead of its prompt as well: the terminal echoes nothing for the whole run.
        try terminal.send(goodPassword + "\r" + goodPassword + "\r42\r")
        #expect(try terminal.wait(timeout: 10) == .exited(0))
        try terminal.readAll()
        #expect(String(decoding: terminal.standardOutput, as: UTF8.self) == "Welcome, bob\n")
        #expect(!terminal.text().contains("Quartz"), "\(terminal.text())")
    }
}

/// The example through pipes: a script answers each field once and hears every error at the end.
@Suite struct ExampleScriptTests {
    /// Runs the example (or another program, `binary`) with `input` on standard input; returns its status, standard output and standard error.
    /// Under `timeout(1)`: a run that never ends fails (status 124) instead of holding the suite.
    static func run(
        _ input: String, _ arguments: [String] = [], environment extra: [String: String] = [:], binary: String = exampleBinary
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["60", binary] + arguments
        process.environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "SWIFT_BACKTRACE": "enable=no"].merging(extra) { $1 }
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        (process.standardInput, process.standardOutput, process.standardError) = (stdin, stdout, stderr)
        try process.run()
        try stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        // Standard error first: it is where nearly everything goes; standard output holds at most one line.
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }

    @Test func happyPathPrintsWelcomeOnStandardOutputOnly() throws {
        let run = try Self.run("bob\n\(goodPassword)\n\(goodPassword)\n42\n")
        #expect(run.status == 0)
        #expect(run.stdout == "Welcome, bob\n")
        #expect(!run.stderr.contains(goodPassword) && run.stderr.contains("Username: bob"), "\(run.stderr)")
    }

    @Test func everyErrorIsReportedAtTheEndWithItsField() throws {
        let run = try Self.run("ab\nweakpass1\nweakpass2\nabc\n")
        #expect(run.status == 65)
        #expect(run.stdout.isEmpty)
        let lastPrompt = try #require(run.stderr.range(of: "Age: abc\n"))
        let tail = String(run.stderr[lastPrompt.upperBound...])
        #expect(tail == """
            error: username: Use at least 3 characters
            error: password: Add an uppercase letter
            error: password: Choose a harder-to-guess password: it must be at least reasonable
            error: confirm: Passwords do not match
            error: age: Enter a whole number, such as 42

            """, "\(run.stderr)")
        #expect(!run.stderr.contains("weakpass"), "a password was echoed: \(run.stderr)")
        #expect(!run.stderr.contains("Password requirements"), "a script gets no hint: \(run.stderr)")
    }

    /// A program names a catalog of its own before the libraries' (signup-forms.mo): its texts come
    /// from its own, the runner's and the rules' from the libraries', and its own wins where both
    /// have a text. A text of its own that its catalog lacks stays English, even when the signup
    /// command's catalog has the same English ("Confirm password"): no half-translated form.
    @Test func aCatalogOfTheProgramsOwnComesBeforeTheLibrarys() throws {
        let locale = URL(fileURLWithPath: exampleBinary).deletingLastPathComponent().appendingPathComponent("../share/locale")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
        let folder = locale.appendingPathComponent("de/LC_MESSAGES")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let po = FileManager.default.temporaryDirectory.appendingPathComponent("wizard-example-\(getpid()).po")
        defer {
            try? FileManager.default.removeItem(at: po)
            try? FileManager.default.removeItem(at: folder.appendingPathComponent("wizard-example.mo"))  // no test catalog stays in the build
        }
        try Data("""
            msgid ""
            msgstr "Content-Type: text/plain; charset=UTF-8\\n"

            msgid "Username"
            msgstr "Benutzername"

            msgid "Password"
            msgstr "Kennwort"

            msgid "Age"
            msgstr "Alter"

            """.utf8).write(to: po)
        for (tool, arguments) in [("/usr/bin/msgfmt", ["-o", folder.appendingPathComponent("wizard-example.mo").path, po.path]),
                                  ("/bin/bash", [root.appendingPathComponent("scripts/po").path, "compile", locale.path])] {
            let process = try Process.run(URL(fileURLWithPath: tool), arguments: arguments)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(tool) \(arguments)")
        }
        let run = try Self.run("ab\nweakpass1\nweakpass2\n7\n", environment: ["LANGUAGE": "de", "LC_ALL": "C.UTF-8"])
        #expect(run.status == 65)
        for line in ["Benutzername: ab\n", "Kennwort: \n", "Confirm password: \n", "Alter: 7\n",
                     "error: username: Verwenden Sie mindestens 3 Zeichen\n",
                     "error: confirm: Die Passwörter stimmen nicht überein\n",
                     "error: age: Geben Sie einen Wert von 13 bis 120 ein\n"] {
            #expect(run.stderr.contains(line), "\(line.debugDescription) missing from \(run.stderr)")
        }
        let english = try Self.run("ab\nweakpass1\nweakpass2\n7\n")
        #expect(english.stderr.contains("Username: ab\n") && english.stderr.contains("error: age: Enter a value from 13 to 120\n"))
    }

    @Test func anAgeOutOfRangeIsReported() throws {
        let run = try Self.run("bob\n\(goodPassword)\n\(goodPassword)\n7\n")
        #expect(run.status == 65)
        #expect(run.stderr.hasSuffix("error: age: Enter a value from 13 to 120\n"), "\(run.stderr)")
    }

    @Test func aTakenUsernameIsReportedOnItsField() throws {
        let run = try Self.run("admin\n\(goodPassword)\n\(goodPassword)\n30\n")
        #expect(run.status == 65)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasSuffix("error: username: This username is taken\n"), "\(run.stderr)")
    }

    @Test func theTakenNamesComeFromAFileWhenGiven() throws {
        let path = NSTemporaryDirectory() + "/wizard-example-taken-\(getpid())"
        try "carol\nbob\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let taken = try Self.run("bob\n\(goodPassword)\n\(goodPassword)\n30\n", ["--taken", path])
        #expect(taken.status == 65 && taken.stderr.hasSuffix("error: username: This username is taken\n"), "\(taken.stderr)")
        let admin = try Self.run("admin\n\(goodPassword)\n\(goodPassword)\n30\n", ["--taken", path])
        #expect(admin.status == 0 && admin.stdout == "Welcome, admin\n", "the file replaces the built-in names: \(admin.stderr)")
        // Not a regular file of at most 1 MiB: refused, never cut short (a taken name past the cut
        // would pass) and never waited on (a FIFO nobody writes to).
        let endless = try Self.run("admin\n\(goodPassword)\n\(goodPassword)\n30\n", ["--taken", "/dev/zero"])
        #expect(endless.status == 64, "an endless file is refused: \(endless.stderr)")
        let fifo = path + "-fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        let waiting = try Self.run("bob\n", ["--taken", fifo])
        #expect(waiting.status == 64, "a FIFO is refused at once: \(waiting.stderr)")
        let long = path + "-long"
        try (String(repeating: "someone\n", count: 140_000) + "bob\n").write(toFile: long, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: long) }
        let cut = try Self.run("bob\n\(goodPassword)\n\(goodPassword)\n30\n", ["--taken", long])
        #expect(cut.status == 64, "a list over 1 MiB is refused, not cut before bob: \(cut.stdout)")
        let missing = try Self.run("", ["--taken", path + "-missing"])
        #expect(missing.status == 64 && missing.stderr.contains("cannot read"), "\(missing.stderr)")
    }

    @Test func aWelcomeThatCannotBeWrittenIsAFailure() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "printf 'bob\\n\(goodPassword)\\n\(goodPassword)\\n30\\n' | \"$0\" > /dev/full 2>/dev/null; echo $?", exampleBinary]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        process.waitUntilExit()
        let status = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(status == "74\n", "exit status \(status)")
    }

    @Test func inputEndingEarlyNamesTheFieldAndKeepsEarlierErrors() throws {
        let run = try Self.run("ab\n")
        #expect(run.status == 66)
        #expect(run.stderr.hasSuffix("""
            error: username: Use at least 3 characters
            error: input ended before "Password" was answered

            """), "\(run.stderr)")
    }

    @Test func escapeSequencesInAnAnswerAreShownVisibleNeverSent() throws {
        let run = try Self.run("\u{1B}]0;owned\u{07}bob\n\(goodPassword)\n\(goodPassword)\n30\n")
        #expect(run.status == 65)
        #expect(!run.stderr.contains("\u{1B}") && !run.stdout.contains("\u{1B}"), "\(run.stderr.debugDescription)")
        #expect(run.stderr.contains("error: username: "), "the username was refused: \(run.stderr)")
    }
}
