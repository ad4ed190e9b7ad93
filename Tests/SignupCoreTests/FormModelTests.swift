import Observation
import SignupCore
import Testing

/// The observable model a UI binds to, driven as a UI would and watched with
/// `withObservationTracking`, the way SwiftUI watches it.
@MainActor @Suite struct FormModelTests {
    static func signUp() -> Form {
        Form(fields: [
            Field(name: "email", label: "Email", rules: [.required(), .email()]),
            Field(name: "password", label: "Password", rules: [.required(), .minLength(8)], isSecret: true),
            Field(name: "confirm", label: "Confirm", rules: [.required(), .equals(field: "password")], isSecret: true,
                  dependsOn: ["password"]),
            Field(name: "plan", label: "Plan", initial: "free"),
        ])
    }

    /// Whether running `change` notifies whoever ran `read`.
    func notifies(_ read: @escaping @MainActor () -> Void, when change: () -> Void) -> Bool {
        nonisolated(unsafe) var fired = false
        withObservationTracking { read() } onChange: { fired = true }
        change()
        return fired
    }

    @Test func errorsAreDeferredUntilAFieldIsAnswered() {
        let model = FormModel<Int>(form: Self.signUp())
        #expect(model["email"].state == .idle && model["email"].visibleErrors.isEmpty)
        #expect(!model.isValid)
        model["email"].text = "not an email"
        #expect(model["email"].visibleErrors.map(\.code) == ["email.invalid"])
        #expect(model["password"].visibleErrors.isEmpty)
    }

    @Test func aChangeNotifiesOnlyWhatReadIt() {
        let model = FormModel<Int>(form: Self.signUp())
        let notified1 = notifies({ _ = model["email"].text }, when: { model["plan"].text = "pro" })
        #expect(!notified1)
        let notified2 = notifies({ _ = model["plan"].text }, when: { model["plan"].text = "team" })
        #expect(notified2)
        let notified3 = notifies({ _ = model["email"].visibleErrors }, when: { model["email"].text = "bad" })
        #expect(notified3)
        // Typing again into a field that stays invalid for the same reason changes nothing a view shows.
        let notified4 = notifies({ _ = model["email"].visibleErrors }, when: { model["email"].text = "worse" })
        #expect(!notified4)
        // A new password makes the confirmation unanswered again: its view is told.
        model["password"].text = "Password1"
        model["confirm"].text = "Password1"
        let notified5 = notifies({ _ = model["confirm"].isAnswered }, when: { model["password"].text = "Password2" })
        #expect(notified5)
        #expect(!model["confirm"].isAnswered)
    }

    @Test func validityAndDirtinessFollowTheAnswers() {
        let model = FormModel<Int>(form: Self.signUp())
        #expect(!model.isDirty && !model.asksBeforeDiscarding)
        let notified6 = notifies({ _ = model.isDirty }, when: { model["plan"].text = "pro" })
        #expect(notified6)
        #expect(model.isDirty && model.asksBeforeDiscarding)
        model.confirmsDiscard = false
        #expect(!model.asksBeforeDiscarding)
        model["plan"].text = "free"  // back to the initial value: not dirty
        #expect(!model.isDirty)
        model["email"].text = "alice@example.com"
        model["password"].text = "Password1"
        #expect(!model.isValid)
        let notified7 = notifies({ _ = model.isValid }, when: { model["confirm"].text = "Password1" })
        #expect(notified7)
        #expect(model.isValid)
    }

    @Test func aFailedGateShowsEveryErrorAndFocusesTheFirstInvalidField() async {
        let model = FormModel<Int>(form: Self.signUp())
        model["email"].text = "alice@example.com"
        var ran = false
        let result = await model.submit { _ in ran = true; return 1 }
        #expect(result == nil && !ran)
        #expect(model.focus == "password")
        #expect(model["password"].visibleErrors.map(\.code) == ["password.required"])
        model.focusesFirstInvalidFieldAfterFailedSubmit = false
        model.focus = "email"
        _ = await model.submit { _ in 1 }
        #expect(model.focus == "email")
    }

    @Test func aSubmitReturnsItsTypedSuccessAndServerErrorsGoBackOnTheirFields() async {
        let model = FormModel<Int64>(form: Self.signUp())
        model["email"].text = "alice@example.com"
        model["password"].text = "Password1"
        model["confirm"].text = "Password1"
        let taken = await model.submit { _ in
            throw FieldError(field: "email", code: "email.taken", message: "An account with this email already exists")
        }
        #expect(taken == .failure(.fields([FieldError(field: "email", code: "email.taken", message: "An account with this email already exists")])))
        #expect(model["email"].visibleErrors.map(\.code) == ["email.taken"])
        #expect(model.focus == "email")
        model["email"].text = "alice2@example.com"
        let created = await model.submit { form in Int64(form.text("email").count) }
        #expect(created == .success(18))
        #expect(model.success == 18 && model.submission == .succeeded)
    }

    @Test func aSecretFieldNeverShowsItsText() {
        let model = FormModel<Int>(form: Self.signUp())
        model["password"].text = "Hunter2Zebra"
        var dumped = ""
        dump(model["password"], to: &dumped)
        let shown = "\(model["password"]) \(String(describing: model["password"])) \(String(reflecting: model["password"])) \(dumped)"
        #expect(!shown.contains("Hunter2Zebra"))
        #expect(shown.contains("FieldModel(password)"))
    }
}
