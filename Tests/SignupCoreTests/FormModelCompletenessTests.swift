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

    /// The same opening serves a terminal: the record's value is on the line, and Enter keeps it.
    @Test func aWizardOpensOnExistingValuesToo() {
        var wizard = Wizard<Int>(form: Self.form().opening(on: [.line(Self.email, "alice@example.com")]), mode: .interactive)
        let first = wizard.start()
        guard case .ask(let prompt) = first.last else { Issue.record("\(first)"); return }
        #expect(prompt.initial == "alice@example.com")
    }
}
