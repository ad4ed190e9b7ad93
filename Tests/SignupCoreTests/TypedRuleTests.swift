import Observation
import SignupCore
import Testing

/// Rules over typed values: each family, how rules compose, and what an empty value is checked for.
@Suite struct TypedRuleTests {
    func reasons<Value>(_ rule: Rule<Value>, _ value: Value, _ context: RuleContext = RuleContext()) -> [String] {
        rule.validate(value, in: context).map(\.reason)
    }

    @Test func aPatternMatchesTheWholeValueOrAPartAsTheCallerSays() {
        #expect(reasons(.pattern("[0-9]{4}", .wholeMatch), "12345") == ["invalid"])
        #expect(reasons(.pattern("[0-9]{4}", .wholeMatch), "1234") == [])
        #expect(reasons(.pattern("[0-9]", .contains), "abc1def") == [])
        #expect(reasons(.pattern("[0-9]", .contains), "abcdef") == ["invalid"])
    }

    @Test func aRangeChecksAnyComparableValue() {
        #expect(reasons(Rule<Int>.range(13...120), 12) == ["outOfRange"])
        #expect(reasons(Rule<Int>.range(13...120), 13) == [])
        #expect(reasons(Rule<Int>.range(13...120), 121) == ["outOfRange"])
        #expect(reasons(Rule<Double>.range(0.5...2.5), 2.6) == ["outOfRange"])
        #expect(Rule<Int>.range(13...120).validate(7).first?.message == "Enter a value from 13 to 120")
    }

    @Test func countBoundsAreStrictOrNotAsNamed() {
        let two = ["a", "b"]
        #expect(reasons(Rule<[String]>.count(atLeast: 2), two) == [])
        #expect(reasons(Rule<[String]>.count(moreThan: 2), two) == ["tooFew"])
        #expect(reasons(Rule<[String]>.count(atMost: 2), two) == [])
        #expect(reasons(Rule<[String]>.count(fewerThan: 2), two) == ["tooMany"])
        #expect(reasons(Rule<[String]>.count(atLeast: 3), two) == ["tooFew"])
        #expect(reasons(Rule<[String]>.count(atMost: 1), two) == ["tooMany"])
        #expect(reasons(Rule<String>.count(atMost: 2), "abc") == ["tooMany"])  // a text is a collection of characters
    }

    @Test func oneOfAndMustBeTrueCheckTheTypedValue() {
        #expect(reasons(Rule<Plan>.oneOf([.free, .team]), .enterprise) == ["notAllowed"])
        #expect(reasons(Rule<Plan>.oneOf([.free, .team]), .team) == [])
        #expect(reasons(Rule<Bool>.mustBeTrue(), false) == ["mustBeYes"])
        #expect(reasons(Rule<Bool>.mustBeTrue(), true) == [])
    }

    /// "Must be true" is not true when nothing was answered: a yes/no never set, or an empty
    /// answer, fails `mustBeYes` with the rule alone, as no does; yes passes.
    @MainActor @Test func mustBeTrueAloneRefusesAYesNoNeverAnswered() {
        let terms = FieldKey<Bool>("terms")
        var form = Form(fields: [Field(terms, label: "Accept the terms", rules: [.mustBeTrue()])])
        #expect(!form.isValid)
        #expect(form.errors(for: terms).map(\.code) == ["terms.mustBeYes"])
        form.answer(terms, line: "")
        #expect(form.errors(for: terms).map(\.code) == ["terms.mustBeYes"])
        form.answer(terms, line: "yes")
        #expect(form.isValid)
        let model = FormModel<Bool>(form: Form(fields: [Field(terms, label: "Accept the terms", rules: [.mustBeTrue()])]))
        #expect(!model.canSubmit)
        model.answer(terms, with: false)
        #expect(!model.canSubmit)
        model.answer(terms, with: true)
        #expect(model.canSubmit)
    }

    @Test func equalsComparesWithAnotherFieldOfTheSameType() {
        let seats = FieldKey<Int>("seats"), seatsAgain = FieldKey<Int>("seatsAgain")
        var form = Form(fields: [
            Field(seats, rules: [.required()]),
            Field(seatsAgain, rules: [.required(), .equals(seats, message: "Give the same number")], dependsOn: [seats]),
        ])
        form.answer(seats, with: 12)
        form.answer(seatsAgain, line: " 012 ")  // the same number, typed differently
        #expect(form.visibleErrors(for: seatsAgain).isEmpty)
        form.answer(seatsAgain, line: "13")
        #expect(codes(form.visibleErrors(for: seatsAgain)) == ["seatsAgain.mismatch"])
        #expect(form.visibleErrors(for: seatsAgain).first?.message == "Give the same number")
        #expect(form.value(seatsAgain) == 13)
    }

    @Test func everyFailureIsReportedByDefault() {
        let rule = Rule<String>.allFailures([.minLength(8), .containsDigit(), .containsUppercase()])
        #expect(reasons(rule, "abc") == ["tooShort", "needsDigit", "needsUppercase"])
        var form = Form(fields: [Field(K.x, rules: [.minLength(8), .containsDigit()])])
        form.answer(K.x, with: "abc")
        #expect(codes(form.visibleErrors(for: K.x)) == ["x.tooShort", "x.needsDigit"])
    }

    @Test func firstFailureStopsAtTheFirstRuleThatFails() {
        let rule = Rule<String>.firstFailure([.email(), .minLength(30), .containsDigit()])
        #expect(reasons(rule, "nope") == ["invalid"])
        #expect(reasons(rule, "a@example.com") == ["tooShort"])
        #expect(reasons(rule, "a-long-name-for-sure@example.com") == ["needsDigit"])
        #expect(rule.checks.map(\.reason) == ["invalid", "tooShort", "needsDigit"], "its checks are those of all its rules")
    }

    @Test func byPriorityReportsOnlyTheHighestFailingRank() {
        let rule = Rule<String>.byPriority([
            .containsDigit().priority(1), .minLength(8).priority(2), .containsUppercase().priority(1), .maxLength(3),
        ])
        #expect(reasons(rule, "abc") == ["tooShort"])
        #expect(reasons(rule, "abcdefgh") == ["needsDigit", "needsUppercase"])
        #expect(reasons(rule, "Abcdefgh1") == ["tooLong"])
        #expect(reasons(rule, "") == [])
    }

    @Test func aChecklistShowsEveryCheckEvenUnderFirstFailure() {
        var form = Form(fields: [Field(K.x, rules: [.firstFailure([.minLength(8), .containsDigit()])])])
        form.answer(K.x, with: "abc")
        let passed = form.checklist(for: K.x).map(\.passed)
        #expect(passed == [false, false], "a digit is missing too, though only the length is reported")
        #expect(codes(form.visibleErrors(for: K.x)) == ["x.tooShort"])
    }

    @Test func onlyRequiredAppliesToAnEmptyValueUnlessARuleSaysSo() {
        #expect(Rule<String>.required().appliesWhenEmpty)
        #expect(!Rule<String>.minLength(8).appliesWhenEmpty)
        #expect(reasons(.minLength(8), "") == [])
        let strict = Rule<String>.minLength(8).applyingWhenEmpty()
        #expect(strict.appliesWhenEmpty)
        #expect(reasons(strict, "") == ["tooShort"])
        #expect(reasons(Rule<[String]>.count(atLeast: 1), []) == [])
        #expect(reasons(Rule<[String]>.count(atLeast: 1).applyingWhenEmpty(), []) == ["tooFew"])
        #expect(reasons(Rule<[String]>.required(), []) == ["required"])
        #expect(reasons(.equals(K.password), "", RuleContext(values: ["password": "x"])) == [], "an empty confirmation is required's to report")
    }

    @Test func anEmptyNumberHasNoValueSoOnlyRequiredSpeaks() {
        var form = Form(fields: [Field(K.age, rules: [.required(), .range(13...120)], mode: .always)])
        #expect(codes(form.visibleErrors(for: K.age)) == ["age.required"])
        #expect(form.value(K.age) == nil)
        form.answer(K.age, line: "abc")
        #expect(codes(form.visibleErrors(for: K.age)) == ["age.notAWholeNumber"], "a line that does not parse is not checked by the rules")
        form.answer(K.age, with: 7)
        #expect(codes(form.visibleErrors(for: K.age)) == ["age.outOfRange"])
    }

    @Test func aFieldCanBeInvalidButSilentWhileEmpty() {
        var form = Form(fields: [
            Field(K.username, rules: [.required(), .minLength(3)], mode: .always, isSilentWhileEmpty: true),
        ])
        #expect(!form.isValid, "the button stays disabled")
        #expect(form.visibleErrors(for: K.username).isEmpty, "with no message")
        #expect(form.state(of: K.username) == .edited)
        form.answer(K.username, with: "al")
        #expect(codes(form.visibleErrors(for: K.username)) == ["username.tooShort"], "a value that fails is shown as usual")
        form.answer(K.username, with: "")
        #expect(form.visibleErrors(for: K.username).isEmpty)
        form.markSubmitAttempted()
        #expect(codes(form.visibleErrors(for: K.username)) == ["username.required"], "a submit says why")
        let loud = Form(fields: [Field(K.username, rules: [.required()], mode: .always)])
        #expect(codes(loud.visibleErrors(for: K.username)) == ["username.required"])
    }

    @Test func aNameTheWizardHandsBackMatchesItsKey() {
        func which(_ name: String) -> String {
            switch name {
            case K.email: "the address"
            case K.password: "the password"
            default: "another"
            }
        }
        #expect(which("email") == "the address")
        #expect(which("password") == "the password")
        #expect(which("confirm") == "another")
    }

    @Test func aFieldsValueIsParsedOnceAndReadTyped() {
        var form = typedForm()
        form.answer(K.plan, with: .team)
        form.answer(K.height, line: "1.80")
        #expect(form.value(K.plan) == .team)
        #expect(form.value(K.height) == 1.8)
        #expect(form.context[K.height] == 1.8)
        #expect(form.text(K.height) == "1.8")
    }
}

/// Focus moves by key, and a failed submit moves it to the first invalid field.
@MainActor @Suite struct FocusByKeyTests {
    @Test func theFocusMovesByKey() async {
        let model = FormModel<Int>(form: standardForm())
        #expect(model.focusedField == nil)
        model.focus(on: K.password)
        #expect(model.isFocused(K.password) && !model.isFocused(K.email))
        #expect(model.focusedField == "password")
        model.clearFocus()
        #expect(model.focusedField == nil)
        model[K.email].text = "alice@example.com"
        _ = await model.submit { _ in 1 }
        #expect(model.isFocused(K.password), "the first invalid field")
    }
}
