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
        form.answer("age", with: " 42 ")
        form.answer("height", with: "1.75")
        form.answer("terms", with: "Yes")
        form.answer("plan", with: "TEAM")
        #expect(form.value(age) == 42)
        #expect(form.value(height) == 1.75)
        #expect(form.value(terms) == true)
        #expect(form.value(plan) == .team)
        #expect(form.isValid)
    }

    @Test func aLineThatDoesNotParseHasItsTypesOwnCode() {
        var form = typedForm()
        form.answer("age", with: "forty")
        form.answer("height", with: "nan")
        form.answer("terms", with: "maybe")
        form.answer("plan", with: "gold")
        #expect(codes(form.visibleErrors(for: "age")) == ["age.notAWholeNumber"])
        #expect(codes(form.visibleErrors(for: "height")) == ["height.notANumber"])
        #expect(codes(form.visibleErrors(for: "terms")) == ["terms.notYesOrNo"])
        #expect(codes(form.visibleErrors(for: "plan")) == ["plan.notAChoice"])
        #expect(form.visibleErrors(for: "plan").first?.message == "Choose one of: free, team, enterprise")
        #expect(form.value(age) == nil)
    }

    @Test func rulesCheckTheTypedValue() {
        var form = typedForm()
        form.answer("age", with: "9")
        form.answer("height", with: "3")
        form.answer("terms", with: "no")
        form.answer("plan", with: "3")  // by number: enterprise, not allowed here
        #expect(codes(form.visibleErrors(for: "age")) == ["age.outOfRange"])
        #expect(form.visibleErrors(for: "age").first?.message == "Enter a value from 13 to 120")
        #expect(codes(form.visibleErrors(for: "height")) == ["height.outOfRange"])
        #expect(codes(form.visibleErrors(for: "terms")) == ["terms.mustBeYes"])
        #expect(codes(form.visibleErrors(for: "plan")) == ["plan.notAllowed"])
    }

    @Test func typedAnswersWriteTheirOwnLine() {
        var form = typedForm()
        form.answer(age, with: 30)
        form.answer(terms, with: true)
        form.answer(plan, with: .free)
        #expect(form["age"]?.value == "30")
        #expect(form["terms"]?.value == "yes")
        #expect(form.value(plan) == .free)
    }

    @Test func anInitialValueIsNeitherAnsweredNorDirtyNorShowsErrors() {
        var form = typedForm(initialAge: 200)
        #expect(form.value(age) == 200)
        #expect(form["age"]?.isAnswered == false)
        #expect(form["age"]?.isDirty == false)
        #expect(!form.isDirty)
        #expect(form.state(of: "age") == .idle)  // out of range, but nobody typed it
        form.answer("age", with: "30")
        #expect(form.isDirty)
        form.answer("age", with: "200")
        #expect(form["age"]?.isDirty == false)  // back to the initial value: not dirty any more
        #expect(!form.isDirty)
    }

    @Test func isDirtyClearsWhenTheValueReturnsToItsInitialOne() {
        var form = standardForm()
        form.answer("email", with: "a@example.com")
        #expect(form.isDirty)
        form.answer("email", with: "")
        #expect(!form.isDirty)
    }

    @Test func anUnknownNameStopsTheProgramAtOnce() async {
        await #expect(processExitsWith: .failure) {
            var form = standardForm()
            form.answer("usrname", with: "x")
        }
        await #expect(processExitsWith: .failure) {
            var form = standardForm()
            form.reset("pasword")
        }
        await #expect(processExitsWith: .failure) {
            _ = standardForm().visibleErrors(for: "emial")
        }
    }

    @Test func aRuleNamingAFieldTheFormLacksStopsTheProgramAtOnce() async {
        await #expect(processExitsWith: .failure) {
            _ = Form(fields: [
                Field(name: "password", isSecret: true),
                Field(name: "confirm", rules: [.equals(field: "pasword")], isSecret: true),
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
            _ = Wizard<Int>(form: typedForm(), mode: .script, presets: ["agee": "3"])
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
        #expect(form.checklist(for: "password").allSatisfy { !$0.passed })  // nothing typed: nothing passes
        form.answer("password", with: "abcdefgh1")
        let passed = Dictionary(uniqueKeysWithValues: form.checklist(for: "password").map { ($0.code, $0.passed) })
        #expect(passed == [
            "password.tooShort": true, "password.tooLong": true, "password.needsDigit": true,
            "password.needsUppercase": false, "password.tooWeak": true,
        ])
    }

    @Test func thePasswordFieldsHintSaysThePolicysRequirements() {
        #expect(standardForm()["password"]?.hint == "Password requirements: at least 8 characters, a digit, an uppercase letter, strength at least reasonable")
        let strict = SignupForm.make(policy: .strict, strength: fakeEstimator)
        #expect(strict["password"]?.hint == "Password requirements: at least 12 characters, an uppercase letter, a lowercase letter, a digit, a symbol, strength at least reasonable")
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
