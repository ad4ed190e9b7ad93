import Observation
import SignupCore
import Testing

/// What a view model needs of the model beyond binding text: each field's validity and errors,
/// observed; a check on demand; outside errors by key; an edit form's existing values.
@MainActor @Suite struct FormModelCompletenessTests {
    static let email = FieldKey<String>("email")
    static let name = FieldKey<String>("name")
    static let age = FieldKey<Int>("age")

    static func form() -> Form {
        Form(fields: [
            Field(email, label: "Email", rules: [.required(), .email()]),
            Field(name, label: "Name", rules: [.required(), .minLength(2)]),
            Field(age, label: "Age", rules: [.range(13...120)]),
        ])
    }

    /// `model[key].isValid` and `.errors` hold whether the value passes, visible or not, and a
    /// view reading them is told when they change, and only then.
    @Test func eachFieldsValidityAndErrorsAreObservable() {
        let model = FormModel<Int>(form: Self.form())
        #expect(!model[Self.email].isValid && model[Self.email].errors.map(\.code) == ["email.required"])
        #expect(model[Self.email].visibleErrors.isEmpty)  // not answered yet: nothing shown
        #expect(model[Self.age].isValid)
        let told = notifies({ _ = model[Self.email].isValid }, when: { model[Self.email].text = "bob@example.com" })
        #expect(told && model[Self.email].isValid)
        let untouched = notifies({ _ = model[Self.email].errors }, when: { model[Self.name].text = "Bo" })
        #expect(!untouched)
        model[Self.age].text = "7"
        #expect(model[Self.age].errors.map(\.code) == ["age.outOfRange"])
    }

    /// A view that reads the form itself is told when it changes: no read of the model is an
    /// untracked snapshot that goes stale.
    @Test func aReadOfTheWholeFormIsTracked() {
        let model = FormModel<Int>(form: Self.form())
        let told = notifies({ _ = model.form.isValid }, when: { model[Self.email].text = "bob@example.com" })
        #expect(told)
    }

    /// `validate()` shows every error as a submit would, without submitting, and moves the focus.
    @Test func validateShowsEveryErrorWithoutSubmitting() {
        let model = FormModel<Int>(form: Self.form())
        model[Self.email].text = "bob@example.com"
        #expect(model[Self.name].visibleErrors.isEmpty)
        #expect(!model.validate())
        #expect(model[Self.name].visibleErrors.map(\.code) == ["name.required"])
        #expect(model.focusedField == "name" && model.submission == .initial)
        model[Self.name].text = "Bob"
        #expect(model.validate())
    }

    /// A server's answer, remapped to keys, goes on its fields until they change.
    @Test func outsideErrorsGoOnAFieldByKeyUntilItChanges() {
        let model = FormModel<Int>(form: Self.form())
        model[Self.email].text = "bob@example.com"
        model[Self.name].text = "Bob"
        #expect(model.isValid)
        model.addError(on: Self.email, reason: "taken", message: "That address has an account")
        #expect(model[Self.email].visibleErrors.map(\.code) == ["email.taken"] && !model[Self.email].isValid && !model.isValid)
        model.attach([FieldError(Self.name, reason: "reserved", message: "Pick another"), .form(code: "form.closed", message: "Closed")])
        #expect(model[Self.name].errors.map(\.code) == ["name.reserved"] && model.formErrors.map(\.code) == ["form.closed"])
        model[Self.email].text = "bo@example.com"
        #expect(model[Self.email].isValid)
    }

    /// An edit form opens on the record: its values are shown, nothing is dirty, and dirtiness
    /// is whether a value differs from the record's.
    @Test func anEditFormOpensOnExistingValuesAndIsDirtyOnlyAgainstThem() {
        let model = FormModel<Int>(form: Self.form(), existing: [.line(Self.email, "alice@example.com"), .value(Self.age, 42)])
        #expect(model[Self.email].text == "alice@example.com" && model.value(Self.age) == 42)
        #expect(!model.isDirty && !model[Self.email].isAnswered && model[Self.email].visibleErrors.isEmpty)
        model[Self.email].text = "alice@example.org"
        #expect(model.isDirty && model[Self.email].isDirty)
        model[Self.email].text = "alice@example.com"
        #expect(!model.isDirty)
        model.answer(Self.age, with: 43)
        model.reset(Self.age)
        #expect(model.value(Self.age) == 42 && !model.isDirty)
    }

    /// An edit screen that stays open: a successful save makes what was saved the starting
    /// point, so nothing is dirty and leaving asks nothing; the next edit is dirty again, and a
    /// reset goes back to what was saved. A failed save changes nothing of that.
    @Test func aSuccessfulSaveLeavesNothingToDiscard() async {
        let model = FormModel<Int>(
            form: Self.form(), existing: [.line(Self.email, "alice@example.com"), .line(Self.name, "Alice"), .value(Self.age, 42)])
        model[Self.email].text = "alice@example.org"
        #expect(model.isDirty && model.asksBeforeDiscarding)
        await model.submit { _ in throw SubmissionFailure.unavailable(reason: "offline") }
        #expect(model.isDirty && model.asksBeforeDiscarding)
        await model.submit { _ in 1 }
        #expect(model.submission == .succeeded)
        #expect(!model.isDirty && !model[Self.email].isDirty && !model.asksBeforeDiscarding)
        model.answer(Self.age, with: 43)
        #expect(model.isDirty && model.asksBeforeDiscarding && model.canSubmit)
        model.reset(Self.age)
        #expect(model.value(Self.age) == 42 && model[Self.email].text == "alice@example.org" && !model.isDirty)
    }

    /// The same opening serves a terminal: the record's value is on the line, and Enter keeps it.
    @Test func aWizardOpensOnExistingValuesToo() {
        var wizard = Wizard<Int>(form: Self.form().opening(on: [.line(Self.email, "alice@example.com")]), mode: .interactive)
        let first = wizard.start()
        guard case .ask(let prompt) = first.last else { Issue.record("\(first)"); return }
        #expect(prompt.initial == "alice@example.com")
    }
}

/// The model's async check of a field, as the terminal runner's `checkedFields`: after the
/// value settles or on demand, cancelled by a change, with a pending state.
@MainActor @Suite struct FormModelCheckTests {
    static let name = FieldKey<String>("name")

    /// Waits until `done` holds, up to five seconds.
    func eventually(_ done: () -> Bool) async {
        for _ in 0..<500 where !done() { try? await Task.sleep(for: .milliseconds(10)) }
    }

    func model(settling: Duration, lookups: Lookups) -> FormModel<Int> {
        let model = FormModel<Int>(form: Form(fields: [Field(Self.name, rules: [.required(), .minLength(3)])]))
        model.checking(Self.name, settling: settling) { form in
            await lookups.isTaken(form.text(Self.name)) ? [FieldError(Self.name, reason: "taken", message: "Taken")] : []
        }
        return model
    }

    @MainActor final class Lookups {
        var asked: [String] = []
        var delay = Duration.zero
        func isTaken(_ name: String) async -> Bool {
            asked.append(name)
            try? await Task.sleep(for: delay)
            return name == "admin"
        }
    }

    @Test func onDemandItsErrorsGoOnTheFieldUntilItChanges() async {
        let lookups = Lookups()
        let model = model(settling: .seconds(60), lookups: lookups)
        model[Self.name].text = "admin"
        #expect(model[Self.name].isChecking)  // waiting for the value to settle
        await model.check(Self.name)
        #expect(model[Self.name].visibleErrors.map(\.code) == ["name.taken"] && !model[Self.name].isChecking)
        model[Self.name].text = "ab"  // fails its own rules: nothing to check
        await model.check(Self.name)
        #expect(lookups.asked == ["admin"] && model[Self.name].errors.map(\.code) == ["name.tooShort"])
    }

    @Test func aChangeBeforeTheValueSettlesCancelsTheCheck() async {
        let lookups = Lookups()
        let model = model(settling: .milliseconds(50), lookups: lookups)
        model[Self.name].text = "admin"
        model[Self.name].text = "bob"
        await eventually { !model[Self.name].isChecking }
        #expect(lookups.asked == ["bob"] && model[Self.name].isValid)
    }

    @Test func aResultForAValueChangedMeanwhileIsDropped() async {
        let lookups = Lookups()
        lookups.delay = .milliseconds(100)
        let model = model(settling: .zero, lookups: lookups)
        model[Self.name].text = "admin"
        await eventually { lookups.asked == ["admin"] }
        model[Self.name].text = "bob"  // while admin is being looked up
        await eventually { !model[Self.name].isChecking && lookups.asked.count == 2 }
        try? await Task.sleep(for: .milliseconds(150))  // the admin lookup has ended by now
        #expect(model[Self.name].isValid && model[Self.name].text == "bob")
    }
}
