import SignupCore
import Testing

/// What a person meets at the edges of a conversation: an interrupt taken back, a field whose
/// errors show at once.
@Suite struct WizardEdgeTests {
    static let name = FieldKey<String>("name")
    static let note = FieldKey<String>("note")

    /// The prompts the wizard asks in `effects`, with what each puts on the line to edit.
    func asked(_ effects: [WizardEffect<String>]) -> [(question: Question, initial: String)] {
        effects.compactMap { if case .ask(let prompt) = $0 { (prompt.question, prompt.initial) } else { nil } }
    }

    /// An edit form: declining "Discard your answers?" asks the field again as it was, its value
    /// on the line, so Enter keeps it instead of storing an empty answer.
    @Test func decliningTheDiscardQuestionAsksTheFieldAgainAsItWas() {
        let form = Form(fields: [
            Field(Self.name, label: "Name", rules: [.required()], initial: "Alice"),
            Field(Self.note, label: "Note", initial: "old note"),
        ])
        var wizard = Wizard<String>(form: form, mode: .interactive)
        #expect(asked(wizard.start()).last?.initial == "Alice")
        _ = wizard.handle(.answer("Alicia"))  // changed: an interrupt now asks before it discards
        #expect(asked(wizard.handle(.interrupt)).last?.question == .discard)
        let again = asked(wizard.handle(.answer("n")))
        #expect(again.last?.question == .field("note") && again.last?.initial == "old note")
        _ = wizard.handle(.answer("old note"))  // Enter on the line as shown
        #expect(wizard.form.text(Self.note) == "old note")

        // From the review's edit: the current value is on the line, and stays there after a no.
        _ = wizard.handle(.answer("e"))
        #expect(asked(wizard.handle(.answer("1"))).last?.initial == "Alicia")
        #expect(asked(wizard.handle(.interrupt)).last?.question == .discard)
        let edited = asked(wizard.handle(.answer("n")))
        #expect(edited.last?.question == .field("name") && edited.last?.initial == "Alicia")
    }

    /// `.always` shows a field's errors at once: before its first prompt, as the docs say, and
    /// not only after an answer. A field the wizard emptied itself still is not reported empty.
    @Test func anAlwaysFieldShowsItsErrorsBeforeItsFirstPrompt() {
        let form = Form(fields: [
            Field(Self.name, label: "Name", rules: [.minLength(3, message: "Three or more")], mode: .always, initial: "Al"),
        ])
        var wizard = Wizard<String>(form: form, mode: .interactive)
        let first = wizard.start()
        guard let errorsAt = first.firstIndex(where: { if case .errors = $0 { true } else { false } }),
              let askAt = first.firstIndex(where: { if case .ask = $0 { true } else { false } }) else {
            Issue.record("no error before the prompt: \(first)")
            return
        }
        #expect(errorsAt < askAt)
        #expect(first[errorsAt] == .errors([FieldError(field: "name", code: "name.tooShort", message: "Three or more")]))
    }

    @Test func aFieldTheWizardEmptiedIsNotReportedEmptyEvenWhenAlways() {
        let pin = FieldKey<String>("pin"), again = FieldKey<String>("pinAgain")
        let form = Form(fields: [
            Field(pin, label: "PIN", rules: [.required()], mode: .always, isSecret: true),
            Field(again, label: "PIN again", rules: [.required(), .equals(pin)], isSecret: true, dependsOn: [pin]),
        ])
        var wizard = Wizard<String>(form: form, mode: .interactive)
        _ = wizard.start()
        _ = wizard.handle(.answer("1234"))
        let mismatch = wizard.handle(.answer("9999"))
        let errors = mismatch.compactMap { if case .errors(let errors) = $0 { errors } else { nil } }.flatMap { $0 }
        #expect(errors.map(\.code) == ["pinAgain.mismatch"])
        #expect(asked(mismatch).last?.question == .field("pin"))
    }
}
