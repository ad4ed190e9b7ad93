import SignupCore
import Testing

@Suite struct FormTests {
    @Test func aNewFormShowsNoErrorsButIsNotValid() {
        let form = standardForm()
        for key in [K.email, K.password, K.confirm] {
            #expect(form.state(of: key) == .idle)
            #expect(form.visibleErrors(for: key).isEmpty)
        }
        #expect(!form.isValid)
        #expect(form.firstInvalidField == "email")
        #expect(codes(form.errors["email"] ?? []) == ["email.required"])
    }

    @Test func errorsAppearOnlyAfterTheFieldIsAnswered() {
        var form = standardForm()
        form.answer(K.email, line: "nope")
        #expect(codes(form.visibleErrors(for: K.email)) == ["email.invalid"])
        #expect(form.visibleErrors(for: K.password).isEmpty)  // not answered yet
        #expect(form.state(of: K.password) == .idle)
    }

    @Test func everyFailingRuleIsReportedInOrder() {
        var form = standardForm()
        form.answer(K.password, line: "abc")
        #expect(codes(form.visibleErrors(for: K.password)) == ["password.tooShort", "password.needsDigit", "password.needsUppercase", "password.tooWeak"])
    }

    @Test func emailIsTrimmedAndPasswordIsNot() {
        var form = standardForm()
        form.answer(K.email, line: "  alice@example.com \t")
        form.answer(K.password, line: " Quartz-Lantern-58 ")
        #expect(form[K.email]?.value == "alice@example.com")
        #expect(form[K.password]?.value == " Quartz-Lantern-58 ")
    }

    @Test func passwordsAreNFCNormalizedAndCompatibilityFormsRefused() {
        var form = standardForm()
        form.answer(K.password, line: "Que\u{301}bec-Lantern-58")  // NFD é
        form.answer(K.confirm, line: "Qu\u{E9}bec-Lantern-58")     // NFC é
        #expect(form[K.password]?.value == "Qu\u{E9}bec-Lantern-58")
        #expect(form.visibleErrors(for: K.password).isEmpty)
        #expect(form.visibleErrors(for: K.confirm).isEmpty)
        form.answer(K.password, line: "Ｑuartz-Lantern-58")  // fullwidth Q: kept as typed, and refused
        #expect(form[K.password]?.value == "Ｑuartz-Lantern-58")
        #expect(codes(form.visibleErrors(for: K.password)) == ["password.compatibilityCharacter"])
    }

    @Test func theGateOpensOnlyWhenEveryFieldPasses() {
        var form = standardForm()
        form.answer(K.email, line: "alice@example.com")
        form.answer(K.password, line: goodPassword)
        #expect(!form.isValid)
        #expect(form.firstInvalidField == "confirm")
        form.answer(K.confirm, line: goodPassword)
        #expect(form.isValid)
        #expect(form.errors.isEmpty)
        #expect(form.firstInvalidField == nil)
    }

    @Test func aChangedPasswordMakesTheConfirmationUnansweredAgain() {
        var form = standardForm()
        form.answer(K.password, line: goodPassword)
        form.answer(K.confirm, line: goodPassword)
        #expect(form.state(of: K.confirm) == .valid)
        form.answer(K.password, line: "Other-Lantern-77")
        #expect(form[K.confirm]?.isAnswered == false)
        #expect(form[K.confirm]?.value == "")
        #expect(form.state(of: K.confirm) == .idle)
        form.answer(K.password, line: "Other-Lantern-77")  // the same answer again changes nothing
        form.answer(K.confirm, line: "Other-Lantern-77")
        form.answer(K.password, line: "Other-Lantern-77")
        #expect(form[K.confirm]?.isAnswered == true)
    }

    @Test func dirtyTracking() {
        var form = standardForm()
        #expect(!form.isDirty)
        form.answer(K.email, line: "a@example.com")
        #expect(form.isDirty)
        #expect(form[K.email]?.isDirty == true)
        #expect(form[K.password]?.isDirty == false)
    }

    @Test func validationModes() {
        var form = Form(fields: [
            Field(K.live, rules: [.required()], mode: .always),
            Field(K.later, rules: [.minLength(3)], mode: .onSubmit),
            Field(K.normal, rules: [.minLength(3)]),
        ])
        #expect(codes(form.visibleErrors(for: K.live)) == ["live.required"])  // before any answer
        form.answer(K.later, line: "ab")
        form.answer(K.normal, line: "ab")
        #expect(form.state(of: K.later) == .edited)
        #expect(form.visibleErrors(for: K.later).isEmpty)
        #expect(codes(form.visibleErrors(for: K.normal)) == ["normal.tooShort"])
        form.markSubmitAttempted()
        #expect(codes(form.visibleErrors(for: K.later)) == ["later.tooShort"])
    }

    @Test func messageOverridesByCodeOrReason() {
        var form = Form(fields: [
            Field(K.pin, rules: [.minLength(4), .containsDigit()], messages: ["pin.tooShort": "Four or more", "needsDigit": "Digits only"]),
        ])
        form.answer(K.pin, line: "ab")
        #expect(form.visibleErrors(for: K.pin).map(\.message) == ["Four or more", "Digits only"])
    }

    @Test func secretFieldsDoNotPrintTheirValue() {
        var form = standardForm()
        form.answer(K.password, line: goodPassword)
        let text = "\(form[K.password]!) \(String(describing: form[K.password]!))"
        #expect(!text.contains(goodPassword))
        #expect(text.contains("<redacted>"))
        let secret = Secret(goodPassword)
        #expect("\(secret)" == "<redacted>")
        #expect(String(reflecting: secret) == "Secret(<redacted>)")
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(!dumped.contains(goodPassword))
        #expect(secret.reveal() == goodPassword)
    }
}

@Suite struct SubmissionControllerTests {
    @Test func theGateRefusesAnInvalidForm() {
        var controller = SubmissionController(form: standardForm())
        #expect(controller.begin() == nil)
        guard case .failed(.fields(let errors)) = controller.state else {
            Issue.record("expected field errors, got \(controller.state)")
            return
        }
        #expect(codes(errors) == ["email.required", "password.required", "confirm.required"])
        #expect(controller.fieldToRevisit == "email")
        #expect(codes(controller.form.visibleErrors(for: K.password)) == ["password.required"])  // visible after a submit
    }

    @Test func initialSubmittingSucceeded() throws {
        var controller = SubmissionController(form: filledForm())
        #expect(controller.state == .initial)
        let started = controller.begin()
        let attempt = try #require(started)
        #expect(controller.state == .submitting)
        controller.finish(attempt, with: .success(()))
        #expect(controller.state == .succeeded)
    }

    @Test func emailTakenIsPutBackOnTheEmailField() throws {
        var controller = SubmissionController(form: filledForm())
        let started = controller.begin()
        let attempt = try #require(started)
        let taken = FieldError(field: "email", code: "email.taken", message: "An account with this email already exists")
        controller.finish(attempt, with: .failure(.fields([taken])))
        #expect(controller.state == .failed(.fields([taken])))
        #expect(controller.form.visibleErrors(for: K.email) == [taken])
        #expect(controller.fieldToRevisit == "email")
        #expect(!controller.form.isValid)
        controller.update { $0.answer(K.email, line: "bob@example.com") }
        #expect(controller.form.isValid)
        #expect(controller.fieldToRevisit == nil)
        #expect(controller.state == .initial)
    }

    @Test func storeFailuresKeepTheAnswers() throws {
        var controller = SubmissionController(form: filledForm())
        let started = controller.begin()
        let attempt = try #require(started)
        controller.finish(attempt, with: .failure(.unavailable(reason: "the disk is full")))
        #expect(controller.state == .failed(.unavailable(reason: "the disk is full")))
        #expect(controller.form[K.email]?.value == "alice@example.com")
        #expect(controller.begin() != nil)
    }
}
