import Foundation
import SignupCore
import Testing
import WizardTerminal
import WizardTesting

/// `Form.runOrExit`, the one call a program runs its form with, in child processes started by
/// WizardTesting: how each ending exits, through pipes and at a pseudo-terminal.
@Suite struct OneCallTests {
    enum Keys {
        static let username = FieldKey<String>("username")
        static let password = FieldKey<String>("password")
        static let age = FieldKey<Int>("age")
    }

    static let form = Form(fields: [
        Field(Keys.username, label: "Username", rules: [.required(), .minLength(3)], normalize: Field.trimmingWhiteSpace),
        Field(Keys.password, label: "Password", rules: [.required(), .minLength(8)], isSecret: true),
        Field(Keys.age, label: "Age", rules: [.required(), .range(13...120)]),
    ])

    /// What a submit throws when its server cannot be reached.
    struct Outage: Error, CustomStringConvertible {
        var description: String { "the server is down" }
    }

    /// The program a user writes: one call, then its own result line.
    static func program() async {
        let username = await form.runOrExit(RunnerOptions(programName: "join")) { form in
            let name = form.text(Keys.username)
            guard name != "admin" else { throw FieldError(field: Keys.username.name, code: "username.taken", message: "That name is taken") }
            guard name != "down" else { throw Outage() }
            return name
        }
        print("Welcome, \(VisibleText.of(username))")
    }

    @Test func aScriptThatAnswersEverythingGetsTheResult() async throws {
        let run = try await ScriptRun("bob\nlong-enough\n42\n") { await Self.program() }
        #expect(run.termination == .exited(0), "\(run.standardError)")
        #expect(run.standardOutput == "Welcome, bob\n")
        #expect(!run.standardError.contains("long-enough"), "a secret was echoed: \(run.standardError)")
    }

    /// Two forms, one `runOrExit` each, answered by one script written to the pipe at once: the
    /// first takes its lines and leaves the second's (it used to read them away: "input ended").
    @Test func twoRunOrExitCallsShareOneScript() async throws {
        let travel = FieldKey<String>("travel"), licence = FieldKey<String>("licence")
        let run = try await ScriptRun("Ann\ncar\nAB123456\n3\n") {
            let first = Form(fields: [Field(Keys.username, label: "Traveller", rules: [.required()]), Field(travel, label: "Travel by")])
            let (who, how) = await first.runOrExit(RunnerOptions(programName: "trip")) { form in (form.text(Keys.username), form.text(travel)) }
            let second = Form(fields: [Field(licence, label: "Driving licence number", rules: [.required()]), Field(Keys.age, label: "Nights")])
            let booking = await second.runOrExit(RunnerOptions(programName: "trip")) { form in "\(form.text(licence)), \(form.value(Keys.age)!) nights" }
            print("\(who) by \(how): \(booking)")
        }
        #expect(run.termination == .exited(0), "\(run.standardError)")
        #expect(run.standardOutput == "Ann by car: AB123456, 3 nights\n")
    }

    @Test func inputEndingEarlyExits66NamingTheField() async throws {
        let run = try await ScriptRun("bo\nlong-enough\n") { await Self.program() }
        #expect(run.termination == .exited(66))
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError.hasSuffix("""
            error: username: Use at least 3 characters
            error: input ended before "Age" was answered

            """), "\(run.standardError)")
    }

    @Test func aRefusedSubmitExits65WithTheErrorOnItsField() async throws {
        let run = try await ScriptRun("admin\nlong-enough\n42\n") { await Self.program() }
        #expect(run.termination == .exited(65))
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError.hasSuffix("error: username: That name is taken\n"), "\(run.standardError)")
    }

    @Test func anUnavailableSubmitExits69SayingWhyToAScript() async throws {
        let run = try await ScriptRun("down\nlong-enough\n42\n") { await Self.program() }
        #expect(run.termination == .exited(69))
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError.hasSuffix("error: The form could not be submitted: the server is down.\n"), "\(run.standardError)")
    }

    /// Set in a form child's environment only: a condition that reads it is true here, false there.
    static var isNotAFormChild: Bool { getenv("WIZARD_TESTING_FORM") == nil }

    /// A test enabled by what the environment holds is skipped in a child whose environment
    /// lacks it: the child runs nothing and exits 0. That is an error, never a green test on nothing.
    @Test(.enabled(if: isNotAFormChild)) func aTestSkippedInItsChildThrowsInsteadOfPassing() async throws {
        let failure = await #expect(throws: PseudoTerminal.Failure.self) { try await ScriptRun("bob\nlong-enough\n42\n") { await Self.program() } }
        #expect(failure?.message.contains("without running its form") == true, "\(String(describing: failure))")
        let terminal = try await PseudoTerminal.start { await Self.program() }
        let waited = await #expect(throws: PseudoTerminal.Failure.self) { try await terminal.wait(timeout: 20) }
        #expect(waited?.message.contains("without running its form") == true, "\(String(describing: waited))")
    }

    /// Every case of a parameterized test would run in the child: refused with a reason instead.
    @Test(arguments: ["bob\n"]) func aParameterizedTestCannotRunAForm(input: String) async {
        await #expect(throws: PseudoTerminal.Failure.self) { try await ScriptRun(input) { await Self.program() } }
    }

    @Test func controlCAtATerminalAsksToDiscardThenExits130() async throws {
        let terminal = try await PseudoTerminal.start(pipeStandardOutput: true) { await Self.program() }
        defer { terminal.kill(SIGKILL) }
        try await terminal.expect("Username: ", timeout: 20)
        try terminal.send("bob\r")
        try await terminal.expect("Password: ")
        #expect(await terminal.waitForEchoOff())
        try terminal.send("secret-sq\u{03}")
        try await terminal.expect("Discard your answers? [y/N] ")
        try terminal.send("y\r")
        #expect(try await terminal.wait() == .exited(130))
        try await terminal.readAll()
        #expect(terminal.standardOutput.isEmpty)
        #expect(!terminal.screen.contains("secret-sq"), "the masked answer was shown: \(terminal.screen)")
    }

    /// The program's result reads the same from a pipe run and a terminal run: `standardOutputText`.
    @Test func bothRunsGiveTheResultAsTextByOneName() async throws {
        let script = try await ScriptRun("bob\nlong-enough\n42\n") { await Self.program() }
        let terminal = try await PseudoTerminal.start(pipeStandardOutput: true) { await Self.program() }
        defer { terminal.kill(SIGKILL) }
        try await Self.answerEveryField(terminal)
        try terminal.send("\r")
        #expect(try await terminal.wait(timeout: 20) == .exited(0))
        try await terminal.readAll()
        #expect(script.standardOutputText == "Welcome, bob\n")
        #expect(terminal.standardOutputText == script.standardOutputText)
        #expect(terminal.standardOutputBytes == script.standardOutputBytes)
    }

    /// Answers bob, long-enough and 42, up to the review's question.
    static func answerEveryField(_ terminal: PseudoTerminal) async throws {
        try await terminal.expect("Username: ", timeout: 20)
        try terminal.send("bob\r")
        try await terminal.expect("Password: ")
        try terminal.send("long-enough\r")
        try await terminal.expect("Age: ")
        try terminal.send("42\r")
        try await terminal.expect("Submit? [Y/n/e] ")
    }

    /// Sends Ctrl-C; the child exits 130 at once and its screen holds only the conversation.
    static func interruptExpectingACleanEnd(_ terminal: PseudoTerminal) async throws {
        try terminal.send("\u{03}")
        #expect(try await terminal.wait(timeout: 10) == .exited(130))
        try await terminal.readAll()
        #expect(!terminal.screen.contains("Test"), "\(terminal.screen)")
        #expect(!terminal.screen.contains("misused"), "\(terminal.screen)")
        // The answer under check, or submitted, is not lost: nothing asks to discard it.
        #expect(!terminal.screen.contains("Discard"), "\(terminal.screen)")
    }

    /// Ctrl-C while a slow check or submit runs ends the child with 130 and nothing but the
    /// conversation on its screen: the testing library in the child reports no issue.
    @Test func controlCDuringASlowCheckExits130WithACleanScreen() async throws {
        let terminal = try await PseudoTerminal.start(pipeStandardOutput: true) {
            _ = await Self.form.runOrExit(checking: [Keys.username]) { _, _ in
                try? await Task.sleep(for: .seconds(30))
                return []
            } submit: { form in form.text(Keys.username) }
        }
        defer { terminal.kill(SIGKILL) }
        try await terminal.expect("Username: ", timeout: 20)
        try terminal.send("bob\r")
        await terminal.settle(quiet: 0.3)
        try await Self.interruptExpectingACleanEnd(terminal)
    }

    @Test func controlCDuringASlowSubmitExits130WithACleanScreen() async throws {
        let terminal = try await PseudoTerminal.start(pipeStandardOutput: true) {
            _ = await Self.form.runOrExit { form in
                try await Task.sleep(for: .seconds(30))
                return form.text(Keys.username)
            }
        }
        defer { terminal.kill(SIGKILL) }
        try await Self.answerEveryField(terminal)
        try terminal.send("y\r")
        await terminal.settle(quiet: 0.5)
        try await Self.interruptExpectingACleanEnd(terminal)
    }

    /// The one call takes the wizard's `reviewValue:` and `confirmsDiscard:`.
    @Test func theReviewShowsWhatReviewValueSays() async throws {
        let terminal = try await PseudoTerminal.start {
            _ = await Self.form.runOrExit(reviewValue: { field, _ in field == Keys.password.name ? "set (reasonable)" : nil }) { form in
                form.text(Keys.username)
            }
        }
        defer { terminal.kill(SIGKILL) }
        try await Self.answerEveryField(terminal)
        #expect(terminal.screen.contains("Password  set (reasonable)"), "\(terminal.screen)")
        try terminal.send("y\r")
        #expect(try await terminal.wait() == .exited(0))
    }

    @Test func controlCWithoutConfirmsDiscardExits130WithoutAsking() async throws {
        let terminal = try await PseudoTerminal.start { _ = await Self.form.runOrExit(confirmsDiscard: false) { $0.text(Keys.username) } }
        defer { terminal.kill(SIGKILL) }
        try await terminal.expect("Username: ", timeout: 20)
        try terminal.send("bob\r")
        try await terminal.expect("Password: ")
        try terminal.send("\u{03}")
        #expect(try await terminal.wait() == .exited(130))
        try await terminal.readAll()
        #expect(!terminal.screen.contains("Discard"), "\(terminal.screen)")
    }

    /// A submit that throws several field errors at once: a script hears each of them.
    @Test func aSubmitRefusingSeveralFieldsReportsEachToAScript() async throws {
        let run = try await ScriptRun("bob\nlong-enough\n42\n") {
            _ = await Self.form.runOrExit { _ -> String in
                throw SubmissionFailure.fields([
                    FieldError(field: Keys.username.name, code: "username.taken", message: "That name is taken"),
                    FieldError(field: Keys.age.name, code: "age.other", message: "Ask a parent"),
                ])
            }
        }
        #expect(run.termination == .exited(65))
        #expect(run.standardError.hasSuffix("error: username: That name is taken\nerror: age: Ask a parent\n"), "\(run.standardError)")
    }

    @Test func declinedAtTheReviewExits1() async throws {
        let terminal = try await PseudoTerminal.start { await Self.program() }
        defer { terminal.kill(SIGKILL) }
        try await Self.answerEveryField(terminal)
        try terminal.send("n\r")
        #expect(try await terminal.wait() == .exited(1))
    }

    /// The result line after the one call: written whole, a control character in it shown visibly.
    @Test func printOrExitWritesTheLineVisibly() async throws {
        let run = try await ScriptRun("") { printOrExit("Welcome, \u{1B}[2Jbob") }
        #expect(run.termination == .exited(0), "\(run.standardError)")
        #expect(run.standardOutput == "Welcome, ^[[2Jbob\n")
    }

    /// A result line that cannot be written is a failure a script can see: exit 74 and why.
    @Test func printOrExitExits74WhenStandardOutputCannotBeWritten() async throws {
        let full = try await ScriptRun("") {
            dup2(open("/dev/full", O_WRONLY), 1)
            printOrExit("Welcome, bob")
        }
        #expect(full.termination == .exited(74))
        #expect(full.standardError == "error: the result could not be written to standard output: No space left on device\n")
        let closed = try await ScriptRun("") {
            close(1)
            printOrExit("Welcome, bob")
        }
        #expect(closed.termination == .exited(74))
        #expect(closed.standardError == "error: the result could not be written to standard output: Bad file descriptor\n")
    }

    /// What a person sees from start to welcome, against the transcript beside this file.
    @Test func theConversationMatchesItsTranscript() async throws {
        let terminal = try await PseudoTerminal.start { await Self.program() }
        defer { terminal.kill(SIGKILL) }
        try await terminal.expect("Username: ", timeout: 20)
        try terminal.send("admin\r")
        try await terminal.expect("Password: ")
        try terminal.send("short\r")
        try await terminal.expect("Password: ")
        try terminal.send("long-enough\r")
        try await terminal.expect("Age: ")
        try terminal.send("\u{04}")  // Ctrl-D: answers would be lost, so it asks
        try await terminal.expect("Discard your answers? [y/N] ")
        try terminal.send("n\r")
        try await terminal.expect("Age: ")
        try terminal.send("42\r")
        try await terminal.expect("Submit? [Y/n/e] ")
        try terminal.send("y\r")
        try await terminal.expect("Username: ")  // the submit refused admin: asked again
        try terminal.send("\u{15}bob\r")  // Ctrl-U clears the old answer
        try await terminal.expect("Submit? [Y/n/e] ")
        try terminal.send("y\r")
        #expect(try await terminal.wait() == .exited(0))
        try await terminal.readAll()
        expectTranscript(terminal.screen, matches: "Transcripts/one-call.transcript")
    }
}

/// WizardTesting's waits from an `async` test hold no thread: while one waits for the child,
/// the other tasks of its actor (and of the cooperative pool) run.
@Suite struct AsyncWaitTests {
    /// The answer comes from another task of the main actor while the test waits for the next
    /// question there: a wait that held the actor's thread would never let it send, and time out.
    @MainActor @Test func anAwaitedExpectLeavesItsActorToOtherTasks() async throws {
        let terminal = try await PseudoTerminal.start { await OneCallTests.program() }
        defer { terminal.kill(SIGKILL) }
        try await terminal.expect("Username: ", timeout: 20)
        let answering = Task { @MainActor in try terminal.send("bob\r") }
        try await terminal.expect("Password: ", timeout: 20)
        try await answering.value
        let interrupting = Task { @MainActor in try terminal.send("\u{03}") }
        try await terminal.expect("Discard your answers? [y/N] ", timeout: 20)
        try await interrupting.value
        try terminal.send("y\r")
        #expect(try await terminal.wait(timeout: 20) == .exited(130))
        try await terminal.readAll()
    }

    /// A script run waits for its child without holding the actor: a task of the main actor
    /// started before it runs while the child runs, not after it.
    @MainActor @Test func aScriptRunLeavesItsActorToOtherTasks() async throws {
        var order: [String] = []
        let other = Task { @MainActor in order.append("other task") }
        let run = try await ScriptRun("bob\nlong-enough\n42\n") { await OneCallTests.program() }
        order.append("script done")
        await other.value
        #expect(run.termination == .exited(0))
        #expect(order == ["other task", "script done"])
    }
}

/// WizardTesting's waits judge their deadline on everything the child wrote by then: beside every
/// other suite on two cores, a waiting task resumes long after its sleep ended, and the child's
/// answer, which came in time, must not be taken for silence.
@Suite struct LateResumeTests {
    /// The expect starts and sleeps between reads; the test then holds the main actor for 3 s,
    /// as busy threads hold the pool, so the expect resumes after its 1 s are up.
    @MainActor @Test func anExpectResumedAfterItsDeadlineReadsWhatCameInTime() async throws {
        let terminal = try await PseudoTerminal.start { await OneCallTests.program() }
        defer { terminal.kill(SIGKILL) }
        try await terminal.expect("Username: ", timeout: 20)
        try terminal.send("bob\r")
        let expecting = Task { @MainActor in try await terminal.expect("Password: ", timeout: 1) }
        await Task.yield()
        usleep(3_000_000)
        _ = try await expecting.value
        try terminal.send("\u{03}")
        try await terminal.expect("Discard your answers? [y/N] ", timeout: 20)
        try terminal.send("y\r")
        #expect(try await terminal.wait(timeout: 20) == .exited(130))
    }

    /// The script run starts and sleeps between reads; another task then holds the main actor,
    /// where the run waits, until the child has ended and 3 s more: what the child wrote is its
    /// result, not a timeout.
    @MainActor @Test func aScriptRunResumedAfterItsDeadlineReadsWhatCameInTime() async throws {
        let marker = "/tmp/wizard-testing-late-\(getpid())"  // made by the child, this process's child
        defer { unlink(marker) }
        let holder = Task { @MainActor in
            // Not in the child (WizardTesting marks it with WIZARD_TESTING_FORM): there the form needs the actor.
            guard getenv("WIZARD_TESTING_FORM") == nil else { return }
            let start = Date()
            while access(marker, F_OK) != 0, Date().timeIntervalSince(start) < 30 { usleep(10_000) }
            usleep(3_000_000)  // three times the run's timeout: resumed as late as beside every other suite
        }
        let run = try await ScriptRun("bob\nlong-enough\n42\n", timeout: 1) {
            await OneCallTests.program()
            fflush(nil)
            close(open("/tmp/wizard-testing-late-\(getppid())", O_WRONLY | O_CREAT, 0o600))
        }
        await holder.value
        #expect(run.termination == .exited(0), "\(run.standardError)")
        #expect(run.standardOutput == "Welcome, bob\n")
    }
}

/// The transcript files of WizardTesting: a changed screen is reported with a diff, and
/// recording writes the file.
@Suite struct TranscriptFileTests {
    static func scratch() throws -> String {
        var template = Array("/tmp/wizard-testing-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw PseudoTerminal.Failure(message: "mkdtemp failed") }
        return String(cString: made)
    }

    @Test func aChangedScreenIsReportedWithADiffAndRecordingRewritesIt() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = TranscriptFile("form.transcript", besideTestFile: folder + "/MyTests.swift")
        #expect(file.path == folder + "/form.transcript")
        #expect(try file.compare("Username: bob\r\nAge: 42", recording: false) == .recorded(wasMissing: true))
        #expect(try file.compare("Username: bob\nAge: 42\n", recording: false) == .matches)
        guard case .differs(let diff) = try file.compare("Username: bob\nAge: 43\n", recording: false) else {
            Issue.record("a changed line was not reported")
            return
        }
        #expect(diff == "  Username: bob\n- Age: 42\n+ Age: 43")
        #expect(try file.compare("Username: bob\nAge: 43\n", recording: true) == .recorded(wasMissing: false))
        #expect(try file.compare("Username: bob\nAge: 43\n", recording: false) == .matches)
    }

    @Test func expectTranscriptRecordsAnIssueForAChangedScreen() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/screen.transcript"
        _ = try TranscriptFile(path, besideTestFile: #filePath).compare("Age: 42\n", recording: true)
        withKnownIssue("the screen differs from the recorded transcript") {
            expectTranscript("Age: 43\n", matches: path)
        } matching: { issue in
            "\(issue)".contains("- Age: 42") && "\(issue)".contains("+ Age: 43")
        }
        expectTranscript("Age: 42\n", matches: path)
    }
}
