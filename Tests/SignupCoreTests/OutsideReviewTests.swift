import Foundation
import SignupCore
import Testing

/// What the outside review of the libraries found, one test each.
enum Floor: String, CaseIterable, AnswerValue { case ground = "0", first = "1", second = "2" }
enum Size: String, CaseIterable, AnswerValue { case small, Small = "SMALL" }

@Suite struct OutsideReviewTests {
    @Test func aChoiceWhoseRawValuesAreNumbersIsChosenByThemNeverByPosition() {
        #expect(Floor(answer: "1") == .first)
        #expect(Floor(answer: "0") == .ground)
        #expect(Floor(answer: "3") == nil)
        #expect(Floor(answer: "ground") == nil)
        var form = Form(fields: [Field(FieldKey<Floor>("floor"), initial: .first)])
        #expect(form.value(FieldKey<Floor>("floor")) == .first)  // Enter on the initial line keeps .first
        form.answer("floor", with: "2")
        #expect(form.value(FieldKey<Floor>("floor")) == .second)
    }

    @Test func anExactRawValueWinsOverACaseInsensitiveOne() {
        #expect(Size(answer: "SMALL") == .Small)
        #expect(Size(answer: "small") == .small)
        #expect(Size(answer: "Small") == .small)
    }

    @Test func aTypedFieldKeepsItsValuesOwnTextSoTheReviewShowsWhatWasChosen() {
        var form = typedForm()
        form.answer("plan", with: "2")
        form.answer("age", with: "+042")
        form.answer("height", with: "1.50")
        #expect(form.text("plan") == "team")
        #expect(form.text("age") == "42")
        #expect(form.text("height") == "1.5")
        form.answer("age", with: "forty")
        #expect(form.text("age") == "forty")  // what does not parse stays as typed, with its error
    }

    @Test func aHexadecimalNumberIsNotADecimalOne() {
        #expect(Double(answer: "0x10") == nil)
        #expect(Double(answer: "0x1p4") == nil)
        #expect(Double(answer: "1e3") == 1000)
        #expect(Double(answer: "-2.5") == -2.5)
    }

    @Test func editingAFormWithNothingEditableNeitherCrashesNorLoops() {
        let form = Form(fields: [
            Field(name: "a", rules: [.required()]),
            Field(name: "b", rules: [.equals(field: "a")], dependsOn: ["a"]),
        ])
        var wizard = Wizard<Int>(form: form, mode: .interactive, presets: ["a": "x", "b": "x"])
        _ = wizard.start()
        var lonely = Wizard<Int>(form: Form(fields: []), mode: .interactive)
        let effects = lonely.start() + lonely.handle(.answer("e")) + lonely.handle(.answer("1"))
        #expect(effects.contains(.notice(WizardTexts().nothingToChange)))
        #expect(effects.last == .ask(Prompt(question: .review, text: "Submit? [Y/n/e] ", isSecret: false)))
    }

    @Test func aFieldThatDependsOnItselfStopsTheProgramAtOnce() async {
        await #expect(processExitsWith: .failure) {
            _ = Form(fields: [Field(name: "a", dependsOn: ["a"])])
        }
        await #expect(processExitsWith: .failure) {
            _ = Form(fields: [Field(name: "a", dependsOn: ["b"]), Field(name: "b", dependsOn: ["a"])])
        }
    }

    @Test func theStopForAnUnknownNameDoesNotRepeatTheName() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var form = Form(fields: [Field(name: "username"), Field(name: "password", isSecret: true)])
            form.answer("Hunter2-Swapped-Secret", with: "username")  // arguments the wrong way round
        }
        let text = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(!text.contains("Hunter2-Swapped-Secret"))
        #expect(text.contains("username, password"), "the message lists the form's fields: \(text)")
    }

    @Test func aMismatchAsksAgainOnlyTheFieldItIsComparedWith() {
        let form = Form(fields: [
            Field(name: "email"),
            Field(name: "password", isSecret: true),
            Field(name: "confirm", rules: [.equals(field: "password")], isSecret: true, dependsOn: ["password", "email"]),
        ])
        var wizard = Wizard<Int>(form: form, mode: .interactive)
        _ = wizard.start()
        _ = wizard.handle(.answer("a@example.com"))
        _ = wizard.handle(.answer("one-Password-1"))
        let effects = wizard.handle(.answer("two-Password-2"))
        #expect(effects.last == .ask(Prompt(question: .field("password"), text: "password: ", isSecret: true)))
        #expect(wizard.form.text("email") == "a@example.com")
        #expect(wizard.form["email"]?.isAnswered == true)
    }

    @Test func aFormThatSucceededDoesNotSubmitAgain() throws {
        var controller = SubmissionController(form: typedFormFilled())
        let attempt = try begun(&controller)
        controller.finish(attempt, with: .success(()))
        #expect(controller.begin() == nil)  // a double click after a fast submit
        #expect(controller.state == .succeeded)
    }

    @Test func anAttemptOfAnotherControllerIsIgnored() throws {
        var first = SubmissionController(form: typedFormFilled())
        var second = SubmissionController(form: typedFormFilled())
        let theirs = try begun(&first)
        _ = try begun(&second)
        let taken = second.finish(theirs, with: .success(()))
        #expect(!taken)
        #expect(second.state == .submitting)
    }

    @Test func aCancelledSubmitSaysSoInWords() async throws {
        var controller = SubmissionController(form: typedFormFilled())
        let attempt = try begun(&controller)
        let result = await SubmissionController.perform(attempt) { _ in throw CancellationError() }
        #expect(failure(result) == .unavailable(reason: "the submit was cancelled"))
    }

    /// The README's snippet, from the main actor with a closure that is not `@Sendable`.
    @MainActor final class Screen {
        var controller = SubmissionController(form: typedFormFilled())
        var saved: [String] = []

        func tap() async {
            guard let attempt = controller.begin() else { return }
            let result = await SubmissionController.perform(attempt) { form in self.saved.append(form.text("plan")) }
            controller.finish(attempt, with: result)
        }
    }

    @Test @MainActor func theAsyncSubmitRunsOnTheCallersActor() async {
        let screen = Screen()
        async let one: Void = screen.tap()
        async let two: Void = screen.tap()
        _ = await (one, two)
        #expect(screen.saved == ["free"])
        #expect(screen.controller.state == .succeeded)
    }
}

func typedFormFilled() -> Form {
    var form = typedForm()
    form.answer("age", with: "30")
    form.answer("terms", with: "yes")
    form.answer("plan", with: "free")
    return form
}

/// A secret field's initial value (a key kept from before, say) is never shown, so at a terminal
/// the masked line starts empty: Enter there keeps it, as a script's empty line does. It used to
/// answer a script's empty line but not Enter at a terminal, so one form behaved two ways.
@Suite struct SecretInitialValueTests {
    struct Done: Sendable, Equatable {}

    func submitted(_ mode: WizardMode) -> String? {
        let form = Form(fields: [Field(name: "token", label: "Token", rules: [.required()], isSecret: true, initial: "Kept-Token-42")])
        var wizard = Wizard<Done>(form: form, mode: mode)
        var answers: [WizardInput<Done>] = [.answer(""), .answer("y")]
        var pending = wizard.start()
        while !pending.isEmpty {
            switch pending.removeFirst() {
            case .ask: pending += wizard.handle(answers.isEmpty ? .endOfInput : answers.removeFirst())
            case .submit(let form):
                defer { pending += wizard.handle(.submitted(.succeeded(Done()))) }
                return form["token"]?.value
            case .finish: return nil
            default: break
            }
        }
        return nil
    }

    @Test func enterOnAnEmptySecretLineKeepsTheInitialValueInEveryMode() {
        #expect(submitted(.script) == "Kept-Token-42")
        #expect(submitted(.interactive) == "Kept-Token-42")
    }
}
