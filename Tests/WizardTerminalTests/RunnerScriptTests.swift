import Glibc
import SignupCore
import Testing
import WizardTerminal

/// The key of the one text field these forms have.
let nameKey = FieldKey<String>("name")

/// `TerminalRunner` over a script's lines, in this process: answers on one pipe, the conversation on another.
@Suite struct RunnerScriptTests {
    /// Runs `form` in script mode with `input` as the script; returns the conversation and the outcome.
    func run(_ form: Form, _ input: String, translation: Translation = .english) throws -> (conversation: String, outcome: WizardOutcome<String>) {
        var answers: [Int32] = [0, 0], talk: [Int32] = [0, 0]
        try #require(pipe(&answers) == 0 && pipe(&talk) == 0)
        defer { [answers[0], talk[0]].forEach { close($0) } }
        _ = input.withCString { write(answers[1], $0, strlen($0)) }
        close(answers[1])
        var options = RunnerOptions(programName: "test", environment: ["TERM": "xterm"])
        options.input = answers[0]
        options.output = talk[1]
        options.translation = translation
        let runner = try TerminalRunner(options)
        var wizard = Wizard<String>(form: form, mode: runner.mode)
        let outcome = runner.run(&wizard) { form in .succeeded(form.text(nameKey)) }
        runner.close()
        close(talk[1])
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while case let got = read(talk[0], &chunk, chunk.count), got > 0 { bytes += chunk[..<got] }
        return (String(decoding: bytes, as: UTF8.self), outcome)
    }

    @Test func aLabelWithAnEscapeSequenceIsShownVisibleNeverSent() throws {
        let form = Form(fields: [Field(nameKey, label: "Name\u{1B}]0;PWNED\u{7}")])
        let (conversation, outcome) = try run(form, "bob\n")
        #expect(outcome == .succeeded("bob"))
        #expect(!conversation.contains("\u{1B}"), "an escape reached the terminal: \(conversation.debugDescription)")
        #expect(conversation.contains("Name^[]0;PWNED^G: bob"))
    }

    /// The program's words come from the catalog; what was answered is shown as it is, even
    /// when it is the English text of one of them.
    @Test func answersAreShownAsTheyAreWhateverTheCatalogHolds() throws {
        let catalog = Translation { ["Name": "Nom", "Review": "Révision", "{label}: ": "{label} : ", "set": "défini"][$0] }
        let (conversation, outcome) = try run(Form(fields: [Field(nameKey, label: "Name")]), "Review\n", translation: catalog)
        #expect(outcome == .succeeded("Review"))
        #expect(conversation == "Nom : Review\n")
        var french = Conversation(style: .plain, quiet: false, translation: catalog)
        var said = ""
        french.output = { said += $0 }
        french.show(WizardEffect<String>.review(title: "Review", lines: [
            ReviewLine(label: "Name", value: "Review", isAnswer: true), ReviewLine(label: "Password", value: "set"),
        ]))
        #expect(said == "Révision\n  Nom       Review\n  Password  défini\n")
    }

    @Test func aScriptHearsItsErrorsAtTheEndInOneLineEach() throws {
        let form = Form(fields: [Field(nameKey, rules: [.minLength(3)]), Field(FieldKey<Int>("age"))])
        let (conversation, outcome) = try run(form, "bo\nold\n")
        guard case .invalid(let errors) = outcome else {
            Issue.record("expected invalid, got \(outcome)")
            return
        }
        var plain = Conversation(style: .plain, quiet: false)
        var said = ""
        plain.output = { said += $0 }
        plain.showErrors(of: WizardOutcome<String>.invalid(errors))
        #expect(said == "error: name: Use at least 3 characters\nerror: age: Enter a whole number, such as 42\n")
        #expect(conversation == "name: bo\nage: old\n")
    }
}

/// The `async` runner over a script's lines: an `async` check right after an answer, and an
/// `async throws` submit with a typed success.
@Suite struct AsyncRunnerScriptTests {
    actor Directory {
        var names: Set<String> = ["admin"]
        func isTaken(_ name: String) async -> Bool {
            try? await Task.sleep(for: .milliseconds(5))  // a lookup that waits
            return names.contains(name)
        }
        func add(_ name: String) -> Int { names.insert(name); return names.count }
    }

    func run(_ input: String, directory: Directory) async throws -> WizardOutcome<Int> {
        var answers: [Int32] = [0, 0], talk: [Int32] = [0, 0]
        try #require(pipe(&answers) == 0 && pipe(&talk) == 0)
        defer { [answers[0], talk[0], talk[1]].forEach { close($0) } }
        _ = input.withCString { write(answers[1], $0, strlen($0)) }
        close(answers[1])
        var options = RunnerOptions(programName: "test", environment: ["TERM": "xterm"])
        options.input = answers[0]
        options.output = talk[1]
        let runner = try TerminalRunner(options)
        defer { runner.close() }
        let form = Form(fields: [Field(nameKey, label: "Name", rules: [.required()])])
        var wizard = Wizard<Int>(form: form, mode: runner.mode, checkedFields: [nameKey])
        return await runner.run(&wizard) { field, form in
            await directory.isTaken(form.text(nameKey)) ? [FieldError(field: "name", code: "name.taken", message: "Taken")] : []
        } submit: { form in
            await directory.add(form.text(nameKey))
        }
    }

    @Test func aFreeNameIsSubmittedAndItsTypedSuccessReturned() async throws {
        let outcome = try await run("bob\n", directory: Directory())
        #expect(outcome == .succeeded(2))
    }

    @Test func aTakenNameFailsTheCheck() async throws {
        let outcome = try await run("admin\n", directory: Directory())
        #expect(outcome == .invalid([FieldError(field: "name", code: "name.taken", message: "Taken")]))
    }
}
