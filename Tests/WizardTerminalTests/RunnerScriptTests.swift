import Foundation
import Glibc
import SignupCore
import Testing
import WizardTerminal

/// The key of the one text field these forms have.
let nameKey = FieldKey<String>("name")

/// `TerminalRunner` over a script's lines, in this process: answers on one pipe, the conversation on another.
@Suite struct RunnerScriptTests {
    /// Runs `form` in script mode with `input` as the script; returns the conversation and the outcome.
    func run(
        _ form: Form, _ input: String, translation: Translation = .english, options configure: (inout RunnerOptions) -> Void = { _ in }
    ) throws -> (conversation: String, outcome: WizardOutcome<String>) {
        var answers: [Int32] = [0, 0], talk: [Int32] = [0, 0]
        try #require(pipe(&answers) == 0 && pipe(&talk) == 0)
        defer { [answers[0], talk[0]].forEach { close($0) } }
        _ = input.withCString { write(answers[1], $0, strlen($0)) }
        close(answers[1])
        var options = RunnerOptions(programName: "test", environment: ["TERM": "xterm"])
        options.input = answers[0]
        options.output = talk[1]
        options.translation = translation
        configure(&options)
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

    /// A yes/no's letters are the catalog's: a translation that shows `[j/N]` takes `j` for yes,
    /// and `y` keeps its meaning. No language is known to the library: this catalog is made up.
    @Test(arguments: [("j\n", true), ("J\n", true), ("y\n", true), ("yes\n", true), ("n\n", false), ("\n", false)])
    func aYesNosLettersComeFromTheCatalog(answer: String, accepted: Bool) throws {
        let catalog = Translation { ["[y/N]": "[j/N]", "Terms?": "AGB?"][$0] }
        let form = Form(fields: [Field(nameKey, label: "Name"), Field(FieldKey<Bool>("terms"), label: "Terms?", rules: [.mustBeTrue()], initial: false)])
        let (conversation, outcome) = try run(form, "bob\n" + answer, translation: catalog)
        #expect(conversation.hasPrefix("Name: bob\nAGB? [j/N]: "), "\(conversation)")
        #expect((outcome == .succeeded("bob")) == accepted, "\(outcome)")
    }

    /// A script that answers a yes/no ruled `.mustBeTrue()` with an empty line has not said
    /// yes: the form is refused (exit 65 for `runOrExit`), never submitted with no answer.
    @Test func anEmptyLineAtAMustBeTrueQuestionIsRefused() throws {
        let form = Form(fields: [Field(nameKey, label: "Name"), Field(FieldKey<Bool>("terms"), label: "Terms?", rules: [.mustBeTrue()])])
        let (conversation, outcome) = try run(form, "bob\n\n")
        guard case .invalid(let errors) = outcome else { Issue.record("\(outcome)"); return }
        #expect(errors.map(\.code) == ["terms.mustBeYes"], "\(conversation)")
    }

    /// The letters of a question map to the English letter of their place; a translation whose
    /// letters would change an English letter's meaning, repeat one or move the default is not
    /// used for them: the English brackets are shown, and only the English letters are taken.
    @Test func answerKeysMapATranslationsLettersAndRefuseOnesThatChangeAnEnglishLetter() {
        let german = AnswerKeys(english: "Create account? [Y/n/e] ", shown: "Konto anlegen? [J/n/ä] ")
        #expect(german.shown == "Konto anlegen? [J/n/ä] ")
        #expect(["j", "J", " j ", "ä", "Ä", "a\u{308}", "y", "e", "n", "yes", "edit", "", "x"].map(german.englishAnswer(for:))
            == ["y", "y", "y", "e", "e", "e", "y", "e", "n", "yes", "edit", "", "x"])
        // e for yes would make the English e (edit) mean yes: refused.
        let clash = AnswerKeys(english: "Create account? [Y/n/e] ", shown: "Luo tili? [E/n/m] ")
        #expect(clash.shown == "Luo tili? [Y/n/e] ")
        #expect(clash.englishAnswer(for: "m") == "m" && clash.englishAnswer(for: "e") == "e")
        #expect(AnswerKeys(english: "Go? [Y/n] ", shown: "Los? [j/J] ").shown == "Los? [Y/n] ")     // a letter twice
        #expect(AnswerKeys(english: "Go? [y/N] ", shown: "Los? [J/n] ").shown == "Los? [y/N] ")     // the default moved
        #expect(AnswerKeys(english: "Go? [y/N] ", shown: "Los? [j/n/x] ").shown == "Los? [y/N] ")   // another count
        // Brackets without letters, or the same letters, map nothing.
        #expect(AnswerKeys(english: "Change which? [1-2] ", shown: "Was ändern? [1-2] ").englishAnswer(for: "1") == "1")
        #expect(AnswerKeys(english: "Go? [Y/n] ", shown: "Weiter? [Y/n] ").englishAnswer(for: "j") == "j")
    }

    /// Every question the German catalog translates keeps letters the runner can use: a
    /// translator's `[J/n/e]` (e for yes) would otherwise show the English brackets instead.
    @Test func theGermanCatalogsQuestionsHaveLettersTheRunnerTakes() throws {
        let po = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../po/de.po")
        var entries: [(String, String)] = [], field = "", id = "", text = ""
        let lines = try String(contentsOf: po, encoding: .utf8).split(separator: "\n").map(String.init) + ["msgid \"\""]
        for line in lines {
            let quoted = line.drop { $0 != "\"" }.dropFirst().dropLast()
            if line.hasPrefix("msgid ") { if !id.isEmpty { entries.append((id, text)) }; field = "id"; id = String(quoted); text = "" }
            else if line.hasPrefix("msgstr ") { field = "str"; text = String(quoted) }
            else if line.hasPrefix("\"") { if field == "id" { id += quoted } else { text += quoted } }
        }
        let questions = entries.filter { $0.0.range(of: #"\[[A-Za-z](/[A-Za-z])+\]"#, options: .regularExpression) != nil }
        #expect(questions.count >= 8, "\(questions.map(\.0))")
        for (english, german) in questions {
            let keys = AnswerKeys(english: english, shown: german)
            #expect(keys.shown == german, "\(english) → \(german): the runner would show \(keys.shown)")
            if english.contains("[Y/n/e]") {
                #expect(keys.englishAnswer(for: "j") == "y" && keys.englishAnswer(for: "ä") == "e" && keys.englishAnswer(for: "n") == "n")
            }
        }
    }

    /// A field's accessibility description replaces its prompt's words in plain mode only
    /// (`--plain`), not in every pipe or locale that is not UTF-8.
    @Test func theAccessibilityDescriptionIsSaidOnlyInPlainMode() throws {
        let form = Form(fields: [Field(nameKey, label: "Name", accessibilityDescription: "Your full name")])
        let piped = try run(form, "bob\n", options: { $0.environment["LANG"] = "C" })
        #expect(piped.conversation == "Name: bob\n")
        let plain = try run(form, "bob\n", options: { $0.plain = true })
        #expect(plain.conversation == "Your full name: bob\n")
    }

    /// A rule whose message is empty says nothing: no bare `✗` line at a terminal; a script's
    /// error line names the code instead.
    @Test func anEmptyMessageIsNoBareErrorLine() {
        let silent = FieldError(field: "name", code: "name.reserved", message: "")
        var conversation = Conversation(style: WizardStyle(unicode: true, color: false), quiet: false)
        var said = ""
        conversation.output = { said += $0 }
        conversation.show(WizardEffect<String>.errors([silent, FieldError(field: "name", code: "name.tooShort", message: "Too short")]))
        #expect(said == "  ✗ Too short\n")
        said = ""
        conversation.showErrors(of: WizardOutcome<String>.invalid([silent]))
        #expect(said == "✗ name.reserved\n")
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
