import Foundation
import Glibc
import PasswordStrength
import SignupCore
import Testing
import WizardTerminal

// The "Build your own wizard" code of WizardTerminal.docc, verbatim between the two marker lines: the test
// below compares it with the article's block, so the two cannot drift, and runs it.
// README begin
import PasswordStrength
import SignupCore
import WizardTerminal

/// A choice: answered by name or number, `plan.notAChoice` otherwise.
enum Plan: String, CaseIterable, AnswerValue { case free, pro, team }

/// The form's fields, each declared once by its key: a misspelt key does not compile.
enum JoinKeys {
    static let username = FieldKey<String>("username")
    static let password = FieldKey<String>("password")
    static let age = FieldKey<Int>("age")
    static let plan = FieldKey<Plan>("plan")
}

/// Asks a username, a password (its requirements first, after each try a ✓ for each one met:
/// the wizard's errors say what is missing), an age and a plan, at a terminal or from a
/// script; a taken username is asked again.
func signUp(_ options: RunnerOptions, taken: Set<String> = ["admin"]) throws(TerminalError) -> WizardOutcome<String> {
    let passwordRules = PasswordPolicy.standard.rules(strength: .zxcvbn)
    let form = Form(fields: [
        Field(JoinKeys.username, label: "Username", rules: [.required(), .minLength(3)], normalize: Field.trimmingWhiteSpace),
        Field(JoinKeys.password, label: "Password", rules: passwordRules, isSecret: true,
              hint: "Password requirements: " + Rule.requirements(of: passwordRules, leavingOut: ["tooLong"])),
        Field(JoinKeys.age, label: "Age", rules: [.required(), .range(13...120)]),
        Field(JoinKeys.plan, label: "Plan", initial: .free),
    ])
    TerminalGuard.install()  // signals restore the terminal until uninstall()
    defer { TerminalGuard.uninstall() }
    let runner = try TerminalRunner(options)
    defer { runner.close() }
    var wizard = Wizard<String>(form: form, mode: runner.mode, texts: WizardTexts(banner: "Join us"),
                                afterAnswer: { name, form in
                                    name == JoinKeys.password.name
                                        ? [.checklist(form.checklist(for: JoinKeys.password, leavingOut: ["tooLong"]).filter(\.passed))] : []
                                })
    return runner.run(&wizard) { form in
        let username = form.text(JoinKeys.username)
        guard !taken.contains(username) else {
            return .rejected([FieldError(field: JoinKeys.username.name, code: "username.taken", message: "That name is taken")])
        }
        return .succeeded(username)
    }
}
// README end

/// The wizard guide's code: the same text as its ```swift block, and it runs as it says.
@Suite(.serialized) struct ReadmeWizardTests {
    /// The lines between two markers of this file's own source.
    static func ownBlock() throws -> String {
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let lines = source.components(separatedBy: "\n")
        let begin = try #require(lines.firstIndex(of: "// README begin"))
        let end = try #require(lines.firstIndex(of: "// README end"))
        return lines[(begin + 1)..<end].joined(separator: "\n")
    }

    /// The first ```swift block after the heading `## A longer form` in WizardTerminal's DocC
    /// article "Build your own wizard" (once the README's; the guide moved to the catalog).
    static func readmeBlock() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let article = root.appendingPathComponent("Sources/WizardTerminal/WizardTerminal.docc/BuildYourOwnWizard.md")
        let readme = try String(contentsOf: article, encoding: .utf8)
        let lines = readme.components(separatedBy: "\n")
        let heading = try #require(lines.firstIndex(of: "## A longer form"))
        let open = try #require(lines[heading...].firstIndex(of: "```swift"))
        let close = try #require(lines[(open + 1)...].firstIndex(of: "```"))
        return lines[(open + 1)..<close].joined(separator: "\n")
    }

    /// Runs the README's `signUp` as a script: `answers` on a pipe, the conversation read back from another.
    static func run(_ answers: String) throws -> (outcome: WizardOutcome<String>, conversation: String) {
        var input: [Int32] = [-1, -1], output: [Int32] = [-1, -1]
        guard pipe(&input) == 0, pipe(&output) == 0 else { throw POSIXError(.EMFILE) }
        defer { for fd in [input[0], output[0]] { close(fd) } }
        _ = answers.utf8CString.withUnsafeBufferPointer { write(input[1], $0.baseAddress, $0.count - 1) }
        close(input[1])
        var options = RunnerOptions(programName: "readme-example", environment: ["LANG": "C.UTF-8"])
        (options.input, options.output, options.interactive) = (input[0], output[1], false)
        // The snippet installs the signal guard: one at a time with the tests that check the
        // process's signal actions (WizardTerminalTests' SignalStateLock, the same file).
        let lock = open("/tmp/signup-tests-signal-state.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if lock >= 0 { _ = flock(lock, LOCK_EX) }
        defer { if lock >= 0 { close(lock) } }
        // SIGPIPE ignored first, so the guard leaves it alone (SignalStateLock.swift says why).
        signal(SIGPIPE, SIG_IGN)
        let outcome = try signUp(options)
        close(output[1])
        var bytes: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 4096)
        while case let n = read(output[0], &buffer, buffer.count), n > 0 { bytes += buffer[..<n] }
        return (outcome, String(decoding: bytes, as: UTF8.self))
    }

    @Test func theReadmeShowsThisCodeVerbatim() throws {
        let readme = try Self.readmeBlock(), own = try Self.ownBlock()
        #expect(readme == own, "BuildYourOwnWizard.md's block and ReadmeWizardTests.swift differ:\n--- README\n\(readme)\n--- test\n\(own)")
    }

    @Test func itsWizardRunsAScriptToTheEnd() throws {
        let good = try Self.run("bob\nQuartz-Lantern-58\n42\n\n")
        #expect(good.outcome == .succeeded("bob"), "\(good.conversation)")
        #expect(good.conversation.contains("  [x] at least 8 characters\n  [x] a digit\n"), "\(good.conversation)")
        #expect(good.conversation.contains("Plan (free, pro, team) [free]: free\n"),
                "a choice lists its options and default, a script's empty line keeps the default, and its echo says so")
        #expect(!good.conversation.contains("Quartz-Lantern-58"))
        // A failing password's unmet checks are its errors: the checklist lists only what it met,
        // so no failure is said twice.
        let weak = try Self.run("bob\nshort1\n42\n\n")
        #expect(weak.conversation.contains("  [x] a digit\n") && !weak.conversation.contains("[ ]"), "\(weak.conversation)")
        let taken = try Self.run("admin\nQuartz-Lantern-58\n42\npro\n")
        #expect(taken.outcome == .invalid([FieldError(field: "username", code: "username.taken", message: "That name is taken")]))
        let wrong = try Self.run("bob\nQuartz-Lantern-58\n9\nenterprise\n")
        guard case .invalid(let errors) = wrong.outcome else { Issue.record("\(wrong.outcome)"); return }
        #expect(errors.map(\.code) == ["age.outOfRange", "plan.notAChoice"])
    }
}
