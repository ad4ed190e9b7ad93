import SignupCore
import Testing

/// A form that is not a sign-up: a user name, an age, a plan. What the wizard says and does comes
/// from the form and the texts, never from signup's fields.
@Suite struct GenericWizardTests {
    struct Member: Sendable, Equatable { var name: String; var age: Int }

    static let username = FieldKey<String>("username")

    static func form() -> Form {
        Form(fields: [
            Field(K.username, label: "User name", rules: [.required(), .minLength(3)]),
            Field(age, label: "Age", rules: [.required(), .range(13...120)]),
            Field(plan, label: "Plan", initial: Plan.free),
        ])
    }

    func run(_ mode: WizardMode, _ answers: [WizardInput<Member>], texts: WizardTexts = WizardTexts(),
             results: [SubmitResult<Member>]? = nil, form: Form = form(),
             afterAnswer: @escaping Wizard<Member>.AfterAnswer = { _, _ in [] }) -> (effects: [WizardEffect<Member>], outcome: WizardOutcome<Member>?) {
        var wizard = Wizard<Member>(form: form, mode: mode, texts: texts, afterAnswer: afterAnswer)
        var answers = answers
        var results = results
        var effects: [WizardEffect<Member>] = []
        var pending = wizard.start()
        while !pending.isEmpty {
            let effect = pending.removeFirst()
            effects.append(effect)
            switch effect {
            case .ask: pending += wizard.handle(answers.isEmpty ? .endOfInput : answers.removeFirst())
            case .submit(let form):
                let member = Member(name: form.value(Self.username) ?? "", age: form.value(age) ?? 0)
                pending += wizard.handle(.submitted(results?.isEmpty == false ? results!.removeFirst() : .succeeded(member)))
            case .finish(let outcome): return (effects, outcome)
            default: break
            }
        }
        return (effects, nil)
    }

    func prompts(_ effects: [WizardEffect<Member>]) -> [String] {
        effects.compactMap { if case .ask(let prompt) = $0 { prompt.text } else { nil } }
    }

    @Test func itAsksItsOwnFieldsAndReviewsThemInItsOwnWords() {
        let (effects, outcome) = run(.interactive, [.answer("bob"), .answer("42"), .answer("free"), .answer("y")])
        #expect(prompts(effects) == ["User name: ", "Age: ", "Plan (free, team, enterprise) [free]: ", "Submit? [Y/n/e] "])
        #expect(effects.contains(.review(title: "Review", lines: [
            ReviewLine(label: "User name", value: "bob", isAnswer: true), ReviewLine(label: "Age", value: "42", isAnswer: true),
            ReviewLine(label: "Plan", value: "free", isAnswer: true),
        ])))
        #expect(!effects.contains { if case .banner = $0 { true } else { false } })  // no banner unless given
        #expect(outcome == .succeeded(Member(name: "bob", age: 42)))
        let said = effects.map { "\($0)" }.joined()
        #expect(!said.contains("account") && !said.contains("email") && !said.contains("Email"))
    }

    /// At a terminal a choice lists its options and shows its default, which Enter takes: the
    /// default is never put on the line to edit (where typing `team` would make `freeteam`).
    @Test func aChoiceShowsItsOptionsAndEnterTakesTheDefault() {
        let (effects, outcome) = run(.interactive, [.answer("bob"), .answer("42"), .answer(""), .answer("y")])
        let plan = effects.compactMap { if case .ask(let prompt) = $0, prompt.question == .field("plan") { prompt } else { nil } }
        #expect(plan.first?.text == "Plan (free, team, enterprise) [free]: ")
        #expect(plan.first?.initial == "")
        #expect(outcome == .succeeded(Member(name: "bob", age: 42)))
        #expect(effects.contains(.review(title: "Review", lines: [
            ReviewLine(label: "User name", value: "bob", isAnswer: true), ReviewLine(label: "Age", value: "42", isAnswer: true),
            ReviewLine(label: "Plan", value: "free", isAnswer: true),
        ])))
    }

    /// A yes/no shows its default as `[Y/n]` or `[y/N]`; a field's review label and accessibility
    /// description replace its prompt's words where they are used.
    @Test func aYesNoShowsItsDefaultAndLabelsHaveTheirOwnJobs() {
        var newsletter = Field(FieldKey<Bool>("news"), label: "Newsletter?", initial: false, reviewLabel: "Newsletter",
                               accessibilityDescription: "Send me the monthly newsletter?")
        newsletter.hint = nil
        var wizard = Wizard<Bool>(form: Form(fields: [newsletter]), mode: .interactive)
        let first = wizard.start()
        guard case .ask(let prompt) = first.last else { Issue.record("\(first)"); return }
        #expect(prompt.text == "Newsletter? [y/N]: " && prompt.initial == "")
        #expect(prompt.spoken == "Send me the monthly newsletter? [y/N]: ")
        let review = wizard.handle(.answer(""))
        #expect(review.contains(.review(title: "Review", lines: [ReviewLine(label: "Newsletter", value: "no", isAnswer: true)])))
    }

    /// A hint comes once before the field's first prompt at a terminal, never in a script.
    @Test func aHintIsShownOnceAtATerminalAndNeverToAScript() {
        var name = Field(FieldKey<String>("name"), label: "Name", rules: [.minLength(3)])
        name.hint = "At least 3 letters"
        for mode in [WizardMode.interactive, .script] {
            var wizard = Wizard<String>(form: Form(fields: [name]), mode: mode)
            let effects = wizard.start() + wizard.handle(.answer("bo")) + wizard.handle(.answer("bob"))
            let hints = effects.filter { $0 == .hint("At least 3 letters") }.count
            #expect(hints == (mode == .interactive ? 1 : 0), "\(mode): \(effects)")
        }
    }

    @Test func aScriptsEmptyLineKeepsTheInitialValue() {
        let (_, outcome) = run(.script, [.answer("bob"), .answer("42"), .answer("")])
        #expect(outcome == .succeeded(Member(name: "bob", age: 42)))
    }

    @Test func editingOffersItsOwnFields() {
        let (effects, outcome) = run(.interactive, [.answer("bob"), .answer("42"), .answer("free"), .answer("e"), .answer("2"), .answer("43"), .answer("y")])
        #expect(effects.contains(.choices(["User name", "Age", "Plan"])))
        #expect(prompts(effects).contains("Change which? [1-3] "))
        #expect(outcome == .succeeded(Member(name: "bob", age: 43)))
    }

    @Test func aTakenNameFromTheSubmitGoesBackOnItsField() {
        let taken = FieldError(field: "username", code: "username.taken", message: "That name is taken")
        let (effects, outcome) = run(.interactive, [.answer("bob"), .answer("42"), .answer("free"), .answer("y"), .answer("bobby"), .answer("y")],
                                     results: [.rejected([taken])])
        #expect(effects.contains(.errors([taken])))
        #expect(prompts(effects).filter { $0 == "User name: " }.count == 2)
        #expect(outcome == .succeeded(Member(name: "bobby", age: 42)))
    }

    @Test func yourOwnTextsAreUsed() {
        var texts = WizardTexts(banner: "Join the club")
        texts.reviewQuestion = "Join? [Y/n/e] "
        let (effects, _) = run(.interactive, [.answer("bob"), .answer("42"), .answer("free"), .answer("n")], texts: texts)
        #expect(effects.first == .banner("Join the club"))
        #expect(prompts(effects).last == "Join? [Y/n/e] ")
    }

    /// A question of your own is never explained as the default's "y to submit"; a help set
    /// with it is used as it is.
    @Test func aReviewQuestionOfYourOwnGetsAHelpThatFitsIt() {
        var texts = WizardTexts()
        #expect(texts.reviewHelp == "Answer y to submit, n to cancel, or e to change an answer.")
        texts.reviewQuestion = "Create account? [Y/n/e] "
        let (effects, _) = run(.interactive, [.answer("bob"), .answer("42"), .answer("free"), .answer("n")], texts: texts)
        #expect(effects.contains(.notice("Answer y for yes, n to cancel, or e to change an answer.")))
        #expect(!effects.contains(.notice("Answer y to submit, n to cancel, or e to change an answer.")))
        texts.reviewHelp = "Answer y to create the account."
        #expect(texts.reviewHelp == "Answer y to create the account.")
        texts.reviewQuestion = "Join? [Y/n/e] "
        #expect(texts.reviewHelp == "Answer y to create the account.")
    }

    @Test func aScriptHearsEveryTypedErrorAtTheEnd() {
        let (_, outcome) = run(.script, [.answer("bo"), .answer("old"), .answer("gold")])
        guard case .invalid(let errors) = outcome else {
            Issue.record("expected invalid, got \(String(describing: outcome))")
            return
        }
        #expect(codes(errors) == ["username.tooShort", "age.notAWholeNumber", "plan.notAChoice"])
    }

    func notes(_ effects: [WizardEffect<Member>]) -> [WizardNote] {
        effects.compactMap { if case .note(let note) = $0 { note } else { nil } }
    }

    func shownErrors(_ effects: [WizardEffect<Member>]) -> [[String]] {
        effects.compactMap { if case .errors(let errors) = $0 { codes(errors) } else { nil } }
    }

    /// A checklist or a strength describes an answer: a line refused as unreadable (invalid
    /// UTF-8, a NUL) is none, so only its encoding error is shown.
    @Test func anUnreadableAnswerGetsNoAfterAnswerNotes() {
        let describe: Wizard<Member>.AfterAnswer = { name, form in
            name == "username" ? [.text("checked \(form.value(Self.username) ?? "")")] : []
        }
        let (effects, outcome) = run(.interactive, [.unreadable(.invalidUTF8), .unreadable(.nulByte), .answer("bob"), .answer("42"), .answer("free"), .answer("y")],
                                     afterAnswer: describe)
        #expect(shownErrors(effects) == [["username.invalidEncoding"], ["username.nulByte"]])
        #expect(notes(effects) == [.text("checked bob")])
        #expect(outcome == .succeeded(Member(name: "bob", age: 42)))
        let (scripted, _) = run(.script, [.unreadable(.invalidUTF8), .answer("42"), .answer("free")], afterAnswer: describe)
        #expect(notes(scripted).isEmpty)
    }

    static func silentForm() -> Form {
        Form(fields: [
            Field(K.username, label: "User name", rules: [.required(), .minLength(3)], isSilentWhileEmpty: true),
            Field(age, label: "Age", rules: [.required(), .range(13...120)]),
            Field(plan, label: "Plan", initial: Plan.free),
        ])
    }

    /// A field silent while empty is for a UI's disabled button; a person at a terminal who
    /// pressed Enter on it answered it, and hears why at once, as for any field.
    @Test func enterOnAFieldSilentWhileEmptySaysRequiredAtOnce() {
        let (effects, outcome) = run(.interactive, [.answer(""), .answer("bob"), .answer("42"), .answer("free"), .answer("y")], form: Self.silentForm())
        #expect(shownErrors(effects) == [["username.required"]])
        #expect(Array(prompts(effects).prefix(3)) == ["User name: ", "User name: ", "Age: "])
        #expect(!effects.contains { if case .review(_, let lines) = $0 { lines.contains { $0.value.isEmpty } } else { false } })
        #expect(outcome == .succeeded(Member(name: "bob", age: 42)))
        // A script hears it at the end, as every error.
        let (scripted, scriptOutcome) = run(.script, [.answer(""), .answer("42"), .answer("free")], form: Self.silentForm())
        #expect(shownErrors(scripted).isEmpty)
        guard case .invalid(let errors) = scriptOutcome else {
            Issue.record("expected invalid, got \(String(describing: scriptOutcome))")
            return
        }
        #expect(codes(errors) == ["username.required"])
    }
}
