import SignupCore
import Testing

/// What a developer porting a SwiftUI sign-up tutorial writes in one line, each as one call of
/// the library: exact lengths, messages made from a rule's parameter, white space as empty, both
/// meanings of a character class, a spoken text for an error.
@Suite struct TutorialIdiomTests {
    static let code = FieldKey<String>("code")
    static let tags = FieldKey<[String]>("tags")

    /// A six-digit code: too short and too long give the one message, with the reason `wrongCount`.
    @Test func anExactLengthIsOneRuleWithOneMessage() {
        let rule = Rule<String>.count(equalTo: 6)
        #expect(rule.validate("12345").map(\.message) == ["Use exactly 6 characters"])
        #expect(rule.validate("1234567").map(\.reason) == ["wrongCount"])
        #expect(rule.validate("123456").isEmpty)
        #expect(rule.checks.map(\.label) == ["exactly 6 characters"])
        let choices = Rule<[String]>.count(equalTo: 2)
        #expect(choices.validate(["a"]).map(\.message) == ["Choose exactly 2"])
        var form = Form(fields: [Field(Self.code, label: "Code", rules: [.required(), .count(equalTo: 6)])])
        form.answer(Self.code, line: "123")
        #expect(form.errors(for: Self.code).map(\.code) == ["code.wrongCount"])
    }

    /// `.count(atLeast: 8) { "… \($0) …" }`: the message is made from the rule's own number.
    @Test func aMessageIsMadeFromTheRulesParameter() {
        #expect(Rule<String>.count(atLeast: 8) { "At least \($0), please" }.validate("short").map(\.message) == ["At least 8, please"])
        #expect(Rule<String>.count(atMost: 3) { "No more than \($0)" }.validate("four").map(\.message) == ["No more than 3"])
        #expect(Rule<String>.count(equalTo: 4) { "PINs have \($0) digits" }.validate("12").map(\.message) == ["PINs have 4 digits"])
        #expect(Rule<[String]>.count(moreThan: 1) { "More than \($0)" }.validate(["a"]).map(\.message) == ["More than 1"])
        #expect(Rule<[String]>.count(fewerThan: 2) { "Fewer than \($0)" }.validate(["a", "b"]).map(\.message) == ["Fewer than 2"])
        #expect(Rule<String>.minLength(10) { "\($0) or more" }.validate("abc").map(\.message) == ["10 or more"])
        #expect(Rule<String>.maxLength(2) { "\($0) at most" }.validate("abc").map(\.message) == ["2 at most"])
    }

    /// `.required()` refuses a text of spaces alone, as FormsKit's isNotEmpty and Django do; it can
    /// be told to accept one.
    @Test func requiredRefusesWhiteSpaceAlone() {
        #expect(Rule<String>.required().validate("   ").map(\.reason) == ["required"])
        #expect(Rule<String>.required().validate("\t\n").map(\.reason) == ["required"])
        #expect(Rule<String?>.required().validate("  ").map(\.reason) == ["required"])
        #expect(Rule<String>.required().validate(" a ").isEmpty)
        #expect(Rule<String>.required(allowingWhiteSpace: true).validate("   ").isEmpty)
        var profile = Validated("", .required())
        profile.value = "   "
        #expect(!profile.isValid)
    }

    /// The two meanings of "digit" and "symbol": `Character`'s (the default) and `CharacterSet`'s.
    @Test func characterClassesSayWhichMeaningTheyUse() {
        #expect(Rule<String>.containsDigit().validate("half½").isEmpty)
        #expect(Rule<String>.containsDigit(in: .decimalDigit).validate("half½").map(\.reason) == ["needsDigit"])
        #expect(Rule<String>.containsDigit(in: .decimalDigit).validate("pass7").isEmpty)
        #expect(Rule<String>.containsSymbol().validate("a b").map(\.reason) == ["needsSymbol"])
        #expect(Rule<String>.containsSymbol().validate("a!b").isEmpty)
        #expect(Rule<String>.containsSymbol(in: .symbol).validate("a!b").map(\.reason) == ["needsSymbol"])
        #expect(Rule<String>.containsSymbol(in: .symbol).validate("a+b").isEmpty)
        #expect(Rule<String>.containsSymbol(in: .symbolOrPunctuation).validate("a!b").isEmpty)
        #expect(Rule<String>.containsSymbol(in: .punctuation).validate("a b").map(\.reason) == ["needsSymbol"])
    }

    /// An error carries what a screen reader says apart from the text shown, through a field.
    @Test func anErrorHasASpokenTextOfItsOwn() {
        let rule = Rule<String>.containsSymbol().spoken("Add a symbol, such as an exclamation mark")
        let failure = rule.validate("abc")
        #expect(failure.map(\.message) == ["Add a symbol, such as ! or #"])
        #expect(failure.map(\.accessibilityLabel) == ["Add a symbol, such as an exclamation mark"])
        var form = Form(fields: [Field(Self.code, label: "Code", rules: [rule])])
        form.answer(Self.code, line: "abc")
        let error = form.errors(for: Self.code).first
        #expect(error?.accessibilityLabel == "Add a symbol, such as an exclamation mark")
        #expect(error?.message == "Add a symbol, such as ! or #")
        // Without one, the message is what is spoken.
        #expect(Rule<String>.minLength(3).validate("a").first?.accessibilityLabel == "Use at least 3 characters")
        #expect(rule.message("Needs a symbol").validate("abc").first?.spokenMessage == "Add a symbol, such as an exclamation mark")
    }
}

/// The model as an edit screen and a sign-up screen use it: saves again after a change, waits
/// for a pending availability check before it submits, and lets errors settle while typing.
@MainActor @Suite struct FormModelSubmitTests {
    static let email = FieldKey<String>("email")
    static let name = FieldKey<String>("name")

    static func form() -> Form {
        Form(fields: [
            Field(email, label: "Email", rules: [.required(), .email()]),
            Field(name, label: "Name", rules: [.required(), .minLength(2)]),
        ])
    }

    /// An edit screen that stays open saves twice: the second save goes through after a change,
    /// and the Save button's `canSubmit` says when one can.
    @Test func anEditScreenSavesAgainAfterAChange() async {
        let model = FormModel<Int>(form: Self.form(), existing: [.line(Self.email, "ann@example.com"), .line(Self.name, "Ann")])
        #expect(model.canSubmit)
        var saved: [String] = []
        let first = await model.submit { form in saved.append(form.text(Self.name)); return 1 }
        #expect(first == .success(1))
        #expect(!model.canSubmit)  // nothing changed: a double click is not a second save
        #expect(await model.submit { _ in 2 } == nil)
        model[Self.name].text = "Anna"
        #expect(model.canSubmit)
        let second = await model.submit { form in saved.append(form.text(Self.name)); return 3 }
        #expect(second == .success(3))
        #expect(saved == ["Ann", "Anna"])
        #expect(model.success == 3)
    }

    /// A submit while the email's availability check is pending waits for it, and its error
    /// refuses the submit: it never lands on a form already submitted.
    @Test func aSubmitWaitsForAPendingCheck() async {
        let model = FormModel<Int>(form: Self.form())
        model.checking(Self.email, settling: .seconds(30)) { form in
            form.text(Self.email) == "taken@example.com" ? [FieldError(Self.email, reason: "taken", message: "Taken")] : []
        }
        model[Self.name].text = "Bob"
        model[Self.email].text = "taken@example.com"
        #expect(model[Self.email].isChecking)
        var submitted = false
        let result = await model.submit { _ in submitted = true; return 1 }
        #expect(result == nil)
        #expect(!submitted)
        #expect(model[Self.email].visibleErrors.map(\.code) == ["email.taken"])
        #expect(!model[Self.email].isChecking)
        model[Self.email].text = "free@example.com"
        #expect(await model.submit { _ in 2 } == .success(2))
    }

    /// With `errorSettling`, an error new to the field shows only once the value stayed that long;
    /// an error fixed leaves at once, and `validate()` shows everything.
    @Test func ruleErrorsSettleBeforeTheyShow() async throws {
        let model = FormModel<Int>(form: Self.form())
        model.errorSettling = .milliseconds(200)
        model[Self.email].text = "a"
        #expect(model[Self.email].visibleErrors.isEmpty)  // typing: not yet
        #expect(model[Self.email].errors.map(\.code) == ["email.invalid"])
        var waited = 0
        while model[Self.email].visibleErrors.isEmpty, waited < 100 {
            try await Task.sleep(for: .milliseconds(50))
            waited += 1
        }
        #expect(model[Self.email].visibleErrors.map(\.code) == ["email.invalid"])
        model[Self.email].text = "ann@example.com"
        #expect(model[Self.email].visibleErrors.isEmpty)  // fixed: gone at once
        model[Self.name].text = "B"
        #expect(model[Self.name].visibleErrors.isEmpty)
        model.validate()
        #expect(model[Self.name].visibleErrors.map(\.code) == ["name.tooShort"])
    }
}
