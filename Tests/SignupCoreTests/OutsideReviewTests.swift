import Foundation
import SignupCore
import Testing

/// Defects once found in the libraries, one test each.
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
        form.answer(FieldKey<Floor>("floor"), line: "2")
        #expect(form.value(FieldKey<Floor>("floor")) == .second)
    }

    @Test func anExactRawValueWinsOverACaseInsensitiveOne() {
        #expect(Size(answer: "SMALL") == .Small)
        #expect(Size(answer: "small") == .small)
        #expect(Size(answer: "Small") == .small)
    }

    @Test func aTypedFieldKeepsItsValuesOwnTextSoTheReviewShowsWhatWasChosen() {
        var form = typedForm()
        form.answer(K.plan, line: "2")
        form.answer(K.age, line: "+042")
        form.answer(K.height, line: "1.50")
        #expect(form.text(K.plan) == "team")
        #expect(form.text(K.age) == "42")
        #expect(form.text(K.height) == "1.5")
        form.answer(K.age, line: "forty")
        #expect(form.text(K.age) == "forty")  // what does not parse stays as typed, with its error
    }

    @Test func aHexadecimalNumberIsNotADecimalOne() {
        #expect(Double(answer: "0x10") == nil)
        #expect(Double(answer: "0x1p4") == nil)
        #expect(Double(answer: "1e3") == 1000)
        #expect(Double(answer: "-2.5") == -2.5)
    }

    @Test func editingAFormWithNothingEditableNeitherCrashesNorLoops() {
        let form = Form(fields: [
            Field(K.a, rules: [.required()]),
            Field(K.b, rules: [.equals(K.a)], dependsOn: [K.a]),
        ])
        var wizard = Wizard<Int>(form: form, mode: .interactive, presets: [.line(K.a, "x"), .line(K.b, "x")])
        _ = wizard.start()
        var lonely = Wizard<Int>(form: Form(fields: []), mode: .interactive)
        let effects = lonely.start() + lonely.handle(.answer("e")) + lonely.handle(.answer("1"))
        #expect(effects.contains(.notice(WizardTexts().nothingToChange)))
        #expect(effects.last == .ask(Prompt(question: .review, text: "Submit? [Y/n/e] ", isSecret: false, isKeyed: true)))
    }

    @Test func aFieldThatDependsOnItselfStopsTheProgramAtOnce() async {
        await #expect(processExitsWith: .failure) {
            _ = Form(fields: [Field(K.a, dependsOn: [K.a])])
        }
        await #expect(processExitsWith: .failure) {
            _ = Form(fields: [Field(K.a, dependsOn: [K.b]), Field(K.b, dependsOn: [K.a])])
        }
    }

    @Test func theStopForAnUnknownNameDoesNotRepeatTheName() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var form = Form(fields: [Field(K.username), Field(K.password, isSecret: true)])
            // A key made from what should have been an answer: its name may be a secret.
            form.answer(FieldKey<String>("Hunter2-Swapped-Secret"), line: "username")
        }
        let text = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(!text.contains("Hunter2-Swapped-Secret"))
        #expect(text.contains("username, password"), "the message lists the form's fields: \(text)")
    }

    @Test func aMismatchAsksAgainOnlyTheFieldItIsComparedWith() {
        let form = Form(fields: [
            Field(K.email),
            Field(K.password, isSecret: true),
            Field(K.confirm, rules: [.equals(K.password)], isSecret: true, dependsOn: [K.password, K.email]),
        ])
        var wizard = Wizard<Int>(form: form, mode: .interactive)
        _ = wizard.start()
        _ = wizard.handle(.answer("a@example.com"))
        _ = wizard.handle(.answer("one-Password-1"))
        let effects = wizard.handle(.answer("two-Password-2"))
        #expect(effects.last == .ask(Prompt(question: .field("password"), text: "password: ", isSecret: true)))
        #expect(wizard.form.text(K.email) == "a@example.com")
        #expect(wizard.form[K.email]?.isAnswered == true)
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
            let result = await SubmissionController.perform(attempt) { form in self.saved.append(form.text(K.plan)) }
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
    form.answer(K.age, line: "30")
    form.answer(K.terms, line: "yes")
    form.answer(K.plan, line: "free")
    return form
}

/// A secret field's initial value (a key kept from before, say) is never shown, so at a terminal
/// the masked line starts empty: Enter there keeps it, as a script's empty line does. It used to
/// answer a script's empty line but not Enter at a terminal, so one form behaved two ways.
@Suite struct SecretInitialValueTests {
    struct Done: Sendable, Equatable {}

    func submitted(_ mode: WizardMode) -> String? {
        let form = Form(fields: [Field(K.token, label: "Token", rules: [.required()], initial: "Kept-Token-42", isSecret: true)])
        var wizard = Wizard<Done>(form: form, mode: mode)
        var answers: [WizardInput<Done>] = [.answer(""), .answer("y")]
        var pending = wizard.start()
        while !pending.isEmpty {
            switch pending.removeFirst() {
            case .ask: pending += wizard.handle(answers.isEmpty ? .endOfInput : answers.removeFirst())
            case .submit(let form):
                defer { pending += wizard.handle(.submitted(.succeeded(Done()))) }
                return form[K.token]?.value
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
