import Observation
import SignupCore
import Testing

/// The observable model a UI binds to, driven as a UI would and watched with
/// `withObservationTracking`, the way SwiftUI watches it.
@MainActor @Suite struct FormModelTests {
    static func signUp() -> Form {
        Form(fields: [
            Field(K.email, label: "Email", rules: [.required(), .email()]),
            Field(K.password, label: "Password", rules: [.required(), .minLength(8)], isSecret: true),
            Field(K.confirm, label: "Confirm", rules: [.required(), .equals(K.password)], isSecret: true,
                  dependsOn: [K.password]),
            Field(K.planText, label: "Plan", initial: "free"),
        ])
    }

    @Test func errorsAreDeferredUntilAFieldIsAnswered() {
        let model = FormModel<Int>(form: Self.signUp())
        #expect(model[K.email].state == .idle && model[K.email].visibleErrors.isEmpty)
        #expect(!model.isValid)
        model[K.email].text = "not an email"
        #expect(model[K.email].visibleErrors.map(\.code) == ["email.invalid"])
        #expect(model[K.password].visibleErrors.isEmpty)
    }

    @Test func aChangeNotifiesOnlyWhatReadIt() {
        let model = FormModel<Int>(form: Self.signUp())
        let notified1 = notifies({ _ = model[K.email].text }, when: { model[K.planText].text = "pro" })
        #expect(!notified1)
        let notified2 = notifies({ _ = model[K.planText].text }, when: { model[K.planText].text = "team" })
        #expect(notified2)
        let notified3 = notifies({ _ = model[K.email].visibleErrors }, when: { model[K.email].text = "bad" })
        #expect(notified3)
        // Typing again into a field that stays invalid for the same reason changes nothing a view shows.
        let notified4 = notifies({ _ = model[K.email].visibleErrors }, when: { model[K.email].text = "worse" })
        #expect(!notified4)
        // A new password makes the confirmation unanswered again: its view is told.
        model[K.password].text = "Password1"
        model[K.confirm].text = "Password1"
        let notified5 = notifies({ _ = model[K.confirm].isAnswered }, when: { model[K.password].text = "Password2" })
        #expect(notified5)
        #expect(!model[K.confirm].isAnswered)
    }

    @Test func validityAndDirtinessFollowTheAnswers() {
        let model = FormModel<Int>(form: Self.signUp())
        #expect(!model.isDirty && !model.asksBeforeDiscarding)
        let notified6 = notifies({ _ = model.isDirty }, when: { model[K.planText].text = "pro" })
        #expect(notified6)
        #expect(model.isDirty && model.asksBeforeDiscarding)
        model.confirmsDiscard = false
        #expect(!model.asksBeforeDiscarding)
        model[K.planText].text = "free"  // back to the initial value: not dirty
        #expect(!model.isDirty)
        model[K.email].text = "alice@example.com"
        model[K.password].text = "Password1"
        #expect(!model.isValid)
        let notified7 = notifies({ _ = model.isValid }, when: { model[K.confirm].text = "Password1" })
        #expect(notified7)
        #expect(model.isValid)
    }

    @Test func aFailedGateShowsEveryErrorAndFocusesTheFirstInvalidField() async {
        let model = FormModel<Int>(form: Self.signUp())
        model[K.email].text = "alice@example.com"
        var ran = false
        let result = await model.submit { _ in ran = true; return 1 }
        #expect(result == nil && !ran)
        #expect(model.focusedField == "password")
        #expect(model[K.password].visibleErrors.map(\.code) == ["password.required"])
        model.focusesFirstInvalidFieldAfterFailedSubmit = false
        model.focus(on: K.email)
        _ = await model.submit { _ in 1 }
        #expect(model.focusedField == "email")
    }

    @Test func aSubmitReturnsItsTypedSuccessAndServerErrorsGoBackOnTheirFields() async {
        let model = FormModel<Int64>(form: Self.signUp())
        model[K.email].text = "alice@example.com"
        model[K.password].text = "Password1"
        model[K.confirm].text = "Password1"
        let taken = await model.submit { _ in
            throw FieldError(field: "email", code: "email.taken", message: "An account with this email already exists")
        }
        #expect(taken == .failure(.fields([FieldError(field: "email", code: "email.taken", message: "An account with this email already exists")])))
        #expect(model[K.email].visibleErrors.map(\.code) == ["email.taken"])
        #expect(model.focusedField == "email")
        model[K.email].text = "alice2@example.com"
        let created = await model.submit { form in Int64(form.text(K.email).count) }
        #expect(created == .success(18))
        #expect(model.success == 18 && model.submission == .succeeded)
    }

    @Test func anEditAfterASubmitDoesNotTellAnIsSubmittingViewAnything() async {
        let model = FormModel<Int>(form: Self.signUp())
        // The gate refuses: the submission fails, isSubmitting stays false.
        _ = await model.submit { _ in 1 }
        #expect(!model.isSubmitting)
        let afterGate = notifies({ _ = model.isSubmitting }, when: { model[K.email].text = "alice@example.com" })
        #expect(!afterGate)
        // The submit itself fails: the same after the next edit.
        model[K.password].text = "Password1"
        model[K.confirm].text = "Password1"
        _ = await model.submit { _ in throw SubmissionFailure.unavailable(reason: "down") }
        #expect(!model.isSubmitting)
        let afterFailure = notifies({ _ = model.isSubmitting }, when: { model[K.email].text = "bob@example.com" })
        #expect(!afterFailure)
        // Moving the focus to where it already is tells nobody either.
        model.focus(on: K.email)
        let sameFocus = notifies({ _ = model.focusedField }, when: { model.focus(on: K.email) })
        #expect(!sameFocus)
        // A submit that starts does tell it.
        nonisolated(unsafe) var started = false
        withObservationTracking { _ = model.isSubmitting } onChange: { started = true }
        _ = await model.submit { _ in 2 }
        #expect(started)
    }

    /// A UI's binding answers on every keystroke: a field silent while empty stays silent when
    /// emptied again, with the button disabled, until a submit is tried.
    @Test func aFieldSilentWhileEmptyStaysSilentInTheModelUntilASubmit() async {
        let model = FormModel<Int>(form: Form(fields: [
            Field(K.username, label: "User name", rules: [.required(), .minLength(3)], isSilentWhileEmpty: true),
        ]))
        model[K.username].text = "al"
        #expect(model[K.username].visibleErrors.map(\.code) == ["username.tooShort"])
        model[K.username].text = ""
        #expect(model[K.username].isAnswered && model[K.username].visibleErrors.isEmpty && !model.isValid)
        _ = await model.submit { _ in 1 }
        #expect(model[K.username].visibleErrors.map(\.code) == ["username.required"])
    }

    @Test func aSecretFieldNeverShowsItsText() {
        let model = FormModel<Int>(form: Self.signUp())
        model[K.password].text = "Hunter2Zebra"
        var dumped = ""
        dump(model[K.password], to: &dumped)
        let shown = "\(model[K.password]) \(String(describing: model[K.password])) \(String(reflecting: model[K.password])) \(dumped)"
        #expect(!shown.contains("Hunter2Zebra"))
        #expect(shown.contains("FieldModel(password)"))
    }
}
