import SignupCore
import Testing

enum Plan: String, CaseIterable, AnswerValue { case free, team, enterprise }

let age = FieldKey<Int>("age")
let height = FieldKey<Double>("height")
let terms = FieldKey<Bool>("terms")
let plan = FieldKey<Plan>("plan")

func typedForm(initialAge: Int? = nil) -> Form {
    Form(fields: [
        Field(age, label: "Age", rules: [.required(), .range(13...120)], initial: initialAge),
        Field(height, label: "Height", rules: [.range(0.5...2.5)]),
        Field(terms, label: "Accept the terms", rules: [.required(), .mustBeTrue()]),
        Field(plan, label: "Plan", rules: [.oneOf([Plan.free, .team])]),
    ])
}

@Suite struct TypedAnswerTests {
    @Test func linesAreReadAsTheirTypes() {
        var form = typedForm()
        form.answer(K.age, line: " 42 ")
        form.answer(K.height, line: "1.75")
        form.answer(K.terms, line: "Yes")
        form.answer(K.plan, line: "TEAM")
        #expect(form.value(age) == 42)
        #expect(form.value(height) == 1.75)
        #expect(form.value(terms) == true)
        #expect(form.value(plan) == .team)
        #expect(form.isValid)
    }

    @Test func aLineThatDoesNotParseHasItsTypesOwnCode() {
        var form = typedForm()
        form.answer(K.age, line: "forty")
        form.answer(K.height, line: "nan")
        form.answer(K.terms, line: "maybe")
        form.answer(K.plan, line: "gold")
        #expect(codes(form.visibleErrors(for: K.age)) == ["age.notAWholeNumber"])
        #expect(codes(form.visibleErrors(for: K.height)) == ["height.notANumber"])
        #expect(codes(form.visibleErrors(for: K.terms)) == ["terms.notYesOrNo"])
        #expect(codes(form.visibleErrors(for: K.plan)) == ["plan.notAChoice"])
        #expect(form.visibleErrors(for: K.plan).first?.message == "Choose one of: free, team, enterprise")
        #expect(form.value(age) == nil)
    }

    @Test func rulesCheckTheTypedValue() {
        var form = typedForm()
        form.answer(K.age, line: "9")
        form.answer(K.height, line: "3")
        form.answer(K.terms, line: "no")
        form.answer(K.plan, line: "3")  // by number: enterprise, not allowed here
        #expect(codes(form.visibleErrors(for: K.age)) == ["age.outOfRange"])
        #expect(form.visibleErrors(for: K.age).first?.message == "Enter a value from 13 to 120")
        #expect(codes(form.visibleErrors(for: K.height)) == ["height.outOfRange"])
        #expect(codes(form.visibleErrors(for: K.terms)) == ["terms.mustBeYes"])
        #expect(codes(form.visibleErrors(for: K.plan)) == ["plan.notAllowed"])
    }

    @Test func typedAnswersWriteTheirOwnLine() {
        var form = typedForm()
        form.answer(age, with: 30)
        form.answer(terms, with: true)
        form.answer(plan, with: .free)
        #expect(form[K.age]?.value == "30")
        #expect(form[K.terms]?.value == "yes")
        #expect(form.value(plan) == .free)
    }

    @Test func anInitialValueIsNeitherAnsweredNorDirtyNorShowsErrors() {
        var form = typedForm(initialAge: 200)
        #expect(form.value(age) == 200)
        #expect(form[K.age]?.isAnswered == false)
        #expect(form[K.age]?.isDirty == false)
        #expect(!form.isDirty)
        #expect(form.state(of: K.age) == .idle)  // out of range, but nobody typed it
        form.answer(K.age, line: "30")
        #expect(form.isDirty)
        form.answer(K.age, line: "200")
        #expect(form[K.age]?.isDirty == false)  // back to the initial value: not dirty any more
        #expect(!form.isDirty)
    }

    @Test func isDirtyClearsWhenTheValueReturnsToItsInitialOne() {
        var form = standardForm()
        form.answer(K.email, line: "a@example.com")
        #expect(form.isDirty)
        form.answer(K.email, line: "")
        #expect(!form.isDirty)
    }

    /// A misspelt key does not compile; a key of a field some other form has stops the program where it is used.
    @Test func aKeyOfAFieldTheFormLacksStopsTheProgramAtOnce() async {
        await #expect(processExitsWith: .failure) {
            var form = standardForm()
            form.answer(FieldKey<String>("usrname"), line: "x")
        }
        await #expect(processExitsWith: .failure) {
            var form = standardForm()
            form.reset(FieldKey<String>("pasword"))
        }
        await #expect(processExitsWith: .failure) {
            _ = standardForm().visibleErrors(for: FieldKey<String>("emial"))
        }
    }

    @Test func aRuleNamingAFieldTheFormLacksStopsTheProgramAtOnce() async {
        await #expect(processExitsWith: .failure) {
            _ = Form(fields: [
                Field(K.password, isSecret: true),
                Field(K.confirm, rules: [.equals(FieldKey<String>("pasword"))], isSecret: true),
            ])
        }
    }

    @Test func aKeyOfTheWrongTypeStopsTheProgramAtOnce() async {
        await #expect(processExitsWith: .failure) {
            let form = typedForm()
            _ = form.value(FieldKey<String>("age"))
        }
    }

    @Test func aPresetNamingNoFieldStopsTheProgramAtOnce() async {
        await #expect(processExitsWith: .failure) {
            _ = Wizard<Int>(form: typedForm(), mode: .script, presets: [.line(FieldKey<String>("agee"), "3")])
        }
    }
}

@Suite struct RuleCheckTests {
    @Test func aPolicyListsItsChecksForAChecklist() {
        let rules = PasswordPolicy.standard.rules(strength: fakeEstimator)
        #expect(rules.flatMap(\.checks).map(\.label) == [
            "at least 8 characters", "at most 1024 characters", "a digit", "an uppercase letter", "strength at least reasonable",
        ])
    }

    @Test func theChecklistSaysWhichChecksPass() {
        var form = standardForm()
        #expect(form.checklist(for: K.password).allSatisfy { !$0.passed })  // nothing typed: nothing passes
        form.answer(K.password, line: "abcdefgh1")
        let passed = Dictionary(uniqueKeysWithValues: form.checklist(for: K.password).map { ($0.code, $0.passed) })
        #expect(passed == [
            "password.tooShort": true, "password.tooLong": true, "password.needsDigit": true,
            "password.needsUppercase": false, "password.tooWeak": true,
        ])
    }

    @Test func thePasswordFieldsHintSaysThePolicysRequirements() {
        #expect(standardForm()[K.password]?.hint == "Password requirements: at least 8 characters, a digit, an uppercase letter, strength at least reasonable")
        let strict = SignupForm.make(policy: .strict, strength: fakeEstimator)
        #expect(strict[K.password]?.hint == "Password requirements: at least 12 characters, an uppercase letter, a lowercase letter, a digit, a symbol, strength at least reasonable")
    }

    @Test func theHintComesBeforeTheFirstPasswordPromptOnlyAndNoErrorWithIt() {
        let drive = Drive(.interactive)
        _ = drive.run([a("alice@example.com"), a("short"), a(goodPassword), a(goodPassword), a("y")])
        let hints = drive.effects.compactMap { if case .hint(let text) = $0 { text } else { nil } }
        #expect(hints.count == 1)
        guard let at = drive.effects.firstIndex(where: { if case .hint = $0 { true } else { false } }) else { return }
        #expect(drive.effects[at + 1] == .ask(Prompt(question: password, text: "Password: ", isSecret: true)))
        #expect(drive.shownErrors.first == ["password.tooShort", "password.needsDigit", "password.needsUppercase", "password.tooWeak"])
        let errorsBefore = drive.effects[..<at].contains { if case .errors = $0 { true } else { false } }
        #expect(!errorsBefore)
    }

    @Test func aScriptHearsNoHint() {
        let drive = Drive(.script)
        _ = drive.run([a("alice@example.com"), a(goodPassword), a(goodPassword)])
        #expect(!drive.effects.contains { if case .hint = $0 { true } else { false } })
    }
}
