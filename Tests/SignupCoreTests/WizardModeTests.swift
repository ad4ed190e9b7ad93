import SignupCore
import Testing

/// The wizard in each validation mode: when a field's errors are heard, and that it never loops
/// or reports a value it cleared itself.
@Suite struct WizardModeTests {
    struct Done: Sendable, Equatable {}

    static func form(username: ValidationMode = .onChange, passwords: ValidationMode = .onChange) -> Form {
        Form(fields: [
            Field(K.username, label: "User name", rules: [.required(), .minLength(3)], mode: username),
            Field(K.password, label: "Password", rules: [.required(), .minLength(8)], mode: passwords, isSecret: true),
            Field(K.confirm, label: "Confirm", rules: [.required(), .equals(K.password)], mode: passwords,
                  isSecret: true, dependsOn: [K.password]),
        ])
    }

    /// Runs the wizard with `answers`, stopping after 40 effects (a loop would never end).
    func run(_ form: Form, _ answers: [String]) -> (effects: [WizardEffect<Done>], outcome: WizardOutcome<Done>?) {
        var wizard = Wizard<Done>(form: form, mode: .interactive)
        var answers = answers
        var effects: [WizardEffect<Done>] = []
        var pending = wizard.start()
        while !pending.isEmpty, effects.count < 40 {
            let effect = pending.removeFirst()
            effects.append(effect)
            switch effect {
            case .ask: pending += wizard.handle(answers.isEmpty ? .endOfInput : .answer(answers.removeFirst()))
            case .submit: pending += wizard.handle(.submitted(.succeeded(Done())))
            case .finish(let outcome): return (effects, outcome)
            default: break
            }
        }
        return (effects, nil)
    }

    func prompts(_ effects: [WizardEffect<Done>]) -> [String] {
        effects.compactMap { if case .ask(let prompt) = $0 { prompt.text } else { nil } }
    }

    func shown(_ effects: [WizardEffect<Done>]) -> [[String]] {
        effects.compactMap { if case .errors(let errors) = $0 { errors.map(\.code) } else { nil } }
    }

    /// `.onSubmit`: a failing answer is kept without a word until the submit, then the field is
    /// asked again with its reasons; it is never asked again silently.
    @Test func onSubmitReportsAtTheSubmitThenAsksTheFieldWithItsReasons() {
        let (effects, outcome) = run(Self.form(username: .onSubmit), ["bo", "Password1", "Password1", "y", "bob", "y"])
        #expect(prompts(effects) == ["User name: ", "Password: ", "Confirm: ", "Submit? [Y/n/e] ", "User name: ", "Submit? [Y/n/e] "])
        #expect(shown(effects) == [["username.tooShort"]])
        // The reasons come before the prompt that asks the field again.
        let errorsAt = effects.firstIndex { if case .errors = $0 { true } else { false } }
        let secondAsk = effects.lastIndex { if case .ask(let p) = $0, p.text == "User name: " { true } else { false } }
        #expect(errorsAt != nil && secondAsk != nil && errorsAt! < secondAsk!)
        #expect(outcome == .succeeded(Done()))
    }

    /// `.always`: after a mismatched confirmation the wizard empties the password to ask it
    /// again; it does not then report "required" for the value it emptied itself.
    @Test func alwaysNeverReportsAValueTheWizardCleared() {
        let (effects, outcome) = run(Self.form(passwords: .always), ["bob", "Password1", "Password2", "Password1", "Password1", "y"])
        #expect(prompts(effects) == ["User name: ", "Password: ", "Confirm: ", "Password: ", "Confirm: ", "Submit? [Y/n/e] "])
        #expect(shown(effects) == [["confirm.mismatch"]])
        #expect(outcome == .succeeded(Done()))
    }

    /// `.always` at the first prompt of a new form still shows no error text.
    @Test func alwaysShowsNothingBeforeTheFirstAnswer() {
        let (effects, _) = run(Self.form(username: .always, passwords: .always), [])
        #expect(shown(effects).isEmpty)
        #expect(prompts(effects).first == "User name: ")
    }

    /// `.onChange` (the default) for comparison: errors at once, the field asked again.
    @Test func onChangeReportsAtOnce() {
        let (effects, outcome) = run(Self.form(), ["bo", "bob", "Password1", "Password1", "y"])
        #expect(prompts(effects) == ["User name: ", "User name: ", "Password: ", "Confirm: ", "Submit? [Y/n/e] "])
        #expect(shown(effects) == [["username.tooShort"]])
        #expect(outcome == .succeeded(Done()))
    }
}

/// The discard question: asked only when the form changed, and only when wanted.
@Suite struct WizardDiscardTests {
    struct Done: Sendable, Equatable {}

    static func form() -> Form {
        Form(fields: [
            Field(K.name, label: "Name", rules: [.required()]),
            Field(K.planText, label: "Plan", initial: "free"),
            Field(K.note, label: "Note"),
        ])
    }

    /// The prompts of a wizard given `answers`, then an interrupt.
    func promptsAfterInterrupt(_ answers: [String], confirmsDiscard: Bool = true) -> (prompts: [String], outcome: WizardOutcome<Done>?) {
        var wizard = Wizard<Done>(form: Self.form(), mode: .interactive, confirmsDiscard: confirmsDiscard)
        var effects = wizard.start()
        for answer in answers { effects += wizard.handle(.answer(answer)) }
        effects += wizard.handle(.interrupt)
        let prompts = effects.compactMap { if case .ask(let prompt) = $0 { prompt.text } else { nil } }
        let outcome = effects.compactMap { if case .finish(let outcome) = $0 { outcome } else { nil } }.first
        return (prompts, outcome)
    }

    @Test func aChangedFormAsksBeforeDiscarding() {
        let (prompts, outcome) = promptsAfterInterrupt(["bob"])
        #expect(prompts.last == "Discard your answers? [y/N] ")
        #expect(outcome == nil)
    }

    @Test func anUnchangedFormEndsAtOnce() {
        // The name was answered and then the plan kept its initial value: a change. Without any
        // answer, and with answers that only keep initial values, nothing would be lost.
        #expect(promptsAfterInterrupt([]).outcome == .cancelled)
        var wizard = Wizard<Done>(form: Form(fields: [Field(K.planText, label: "Plan", initial: "free"), Field(K.x, label: "X")]),
                                  mode: .interactive)
        _ = wizard.start()
        _ = wizard.handle(.answer("free"))
        #expect(wizard.handle(.interrupt) == [.finish(.cancelled)])
    }

    @Test func theQuestionCanBeTurnedOff() {
        let (prompts, outcome) = promptsAfterInterrupt(["bob"], confirmsDiscard: false)
        #expect(!prompts.contains("Discard your answers? [y/N] "))
        #expect(outcome == .cancelled)
    }
}

/// A check right after an answer (an availability lookup): its errors are heard at once.
@Suite struct WizardCheckTests {
    static func form() -> Form {
        Form(fields: [
            Field(K.name, label: "Name", rules: [.required(), .minLength(3)]),
            Field(K.note, label: "Note"),
        ])
    }
    static let taken = FieldError(field: "name", code: "name.taken", message: "That name is taken")

    /// Drives a wizard whose `name` is checked: `check` answers each check.
    func drive(_ mode: WizardMode, _ answers: [WizardInput<String>], check: (String) -> [FieldError])
        -> (effects: [WizardEffect<String>], outcome: WizardOutcome<String>?) {
        var wizard = Wizard<String>(form: Self.form(), mode: mode, checkedFields: [K.name])
        var answers = answers
        var effects: [WizardEffect<String>] = []
        var pending = wizard.start()
        while !pending.isEmpty, effects.count < 60 {
            let effect = pending.removeFirst()
            effects.append(effect)
            switch effect {
            case .ask: pending += wizard.handle(answers.isEmpty ? .endOfInput : answers.removeFirst())
            case .check(let field, let form): pending += wizard.handle(.checked(field: field, errors: check(form.text(K.name))))
            case .submit(let form): pending += wizard.handle(.submitted(.succeeded(form.text(K.name))))
            case .finish(let outcome): return (effects, outcome)
            default: break
            }
        }
        return (effects, nil)
    }

    func checks(_ effects: [WizardEffect<String>]) -> [String] {
        effects.compactMap { if case .check(_, let form) = $0 { form.text(K.name) } else { nil } }
    }

    @Test func aTakenNameIsReportedRightAfterItsAnswerAndAskedAgain() {
        let (effects, outcome) = drive(.interactive, [.answer("bob"), .answer("bobby"), .answer(""), .answer("y")]) {
            $0 == "bob" ? [Self.taken] : []
        }
        #expect(checks(effects) == ["bob", "bobby"])
        let prompts = effects.compactMap { if case .ask(let prompt) = $0 { prompt.text } else { nil } }
        #expect(prompts == ["Name: ", "Name: ", "Note: ", "Submit? [Y/n/e] "])
        #expect(effects.contains(.errors([Self.taken])))
        #expect(outcome == .succeeded("bobby"))
    }

    @Test func onlyAnAnswerThatPassesItsRulesIsChecked() {
        let (effects, _) = drive(.interactive, [.answer("bo"), .answer("bob"), .answer(""), .answer("y")]) { _ in [] }
        #expect(checks(effects) == ["bob"])
    }

    @Test func aScriptHearsTheCheckInItsOutcome() {
        let (_, outcome) = drive(.script, [.answer("bob"), .answer("hi")]) { _ in [Self.taken] }
        #expect(outcome == .invalid([Self.taken]))
    }

    @Test func anInterruptDuringACheckIsAnInterruptAtItsField() {
        var wizard = Wizard<String>(form: Self.form(), mode: .interactive, checkedFields: [K.name])
        _ = wizard.start()
        #expect(wizard.handle(.answer("bob")).count == 1)  // the check
        // The check was cut short: nothing else was answered, so nothing is lost.
        #expect(wizard.handle(.interrupt) == [.finish(.cancelled)])
    }
}
