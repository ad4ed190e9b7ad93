import SignupCore
import Testing

@Suite struct FormTests {
    @Test func aNewFormShowsNoErrorsButIsNotValid() {
        let form = standardForm()
        for field in form.fields {
            #expect(form.state(of: field.name) == .idle)
            #expect(form.visibleErrors(for: field.name).isEmpty)
        }
        #expect(!form.isValid)
        #expect(form.firstInvalidField == "email")
        #expect(codes(form.errors["email"] ?? []) == ["email.required"])
    }

    @Test func errorsAppearOnlyAfterTheFieldIsAnswered() {
        var form = standardForm()
        form.answer("email", with: "nope")
        #expect(codes(form.visibleErrors(for: "email")) == ["email.invalid"])
        #expect(form.visibleErrors(for: "password").isEmpty)  // not answered yet
        #expect(form.state(of: "password") == .idle)
    }

    @Test func everyFailingRuleIsReportedInOrder() {
        var form = standardForm()
        form.answer("password", with: "abc")
        #expect(codes(form.visibleErrors(for: "password")) == ["password.tooShort", "password.needsDigit", "password.needsUppercase", "password.tooWeak"])
    }

    @Test func emailIsTrimmedAndPasswordIsNot() {
        var form = standardForm()
        form.answer("email", with: "  alice@example.com \t")
        form.answer("password", with: " Quartz-Lantern-58 ")
        #expect(form["email"]?.value == "alice@example.com")
        #expect(form["password"]?.value == " Quartz-Lantern-58 ")
    }

    @Test func passwordsAreNFCNormalizedAndCompatibilityFormsRefused() {
        var form = standardForm()
        form.answer("password", with: "Que\u{301}bec-Lantern-58")  // NFD é
        form.answer("confirm", with: "Qu\u{E9}bec-Lantern-58")     // NFC é
        #expect(form["password"]?.value == "Qu\u{E9}bec-Lantern-58")
        #expect(form.visibleErrors(for: "password").isEmpty)
        #expect(form.visibleErrors(for: "confirm").isEmpty)
        form.answer("password", with: "Ｑuartz-Lantern-58")  // fullwidth Q: kept as typed, and refused
        #expect(form["password"]?.value == "Ｑuartz-Lantern-58")
        #expect(codes(form.visibleErrors(for: "password")) == ["password.compatibilityCharacter"])
    }

    @Test func theGateOpensOnlyWhenEveryFieldPasses() {
        var form = standardForm()
        form.answer("email", with: "alice@example.com")
        form.answer("password", with: goodPassword)
        #expect(!form.isValid)
        #expect(form.firstInvalidField == "confirm")
        form.answer("confirm", with: goodPassword)
        #expect(form.isValid)
        #expect(form.errors.isEmpty)
        #expect(form.firstInvalidField == nil)
    }

    @Test func aChangedPasswordMakesTheConfirmationUnansweredAgain() {
        var form = standardForm()
        form.answer("password", with: goodPassword)
        form.answer("confirm", with: goodPassword)
        #expect(form.state(of: "confirm") == .valid)
        form.answer("password", with: "Other-Lantern-77")
        #expect(form["confirm"]?.isAnswered == false)
        #expect(form["confirm"]?.value == "")
        #expect(form.state(of: "confirm") == .idle)
        form.answer("password", with: "Other-Lantern-77")  // the same answer again changes nothing
        form.answer("confirm", with: "Other-Lantern-77")
        form.answer("password", with: "Other-Lantern-77")
        #expect(form["confirm"]?.isAnswered == true)
    }

    @Test func dirtyTracking() {
        var form = standardForm()
        #expect(!form.isDirty)
        form.answer("email", with: "a@example.com")
        #expect(form.isDirty)
        #expect(form["email"]?.isDirty == true)
        #expect(form["password"]?.isDirty == false)
    }

    @Test func validationModes() {
        var form = Form(fields: [
            Field(name: "live", rules: [.required()], mode: .always),
            Field(name: "later", rules: [.minLength(3)], mode: .onSubmit),
            Field(name: "normal", rules: [.minLength(3)]),
        ])
        #expect(codes(form.visibleErrors(for: "live")) == ["live.required"])  // before any answer
        form.answer("later", with: "ab")
        form.answer("normal", with: "ab")
        #expect(form.state(of: "later") == .edited)
        #expect(form.visibleErrors(for: "later").isEmpty)
        #expect(codes(form.visibleErrors(for: "normal")) == ["normal.tooShort"])
        form.markSubmitAttempted()
        #expect(codes(form.visibleErrors(for: "later")) == ["later.tooShort"])
    }

    @Test func messageOverridesByCodeOrReason() {
        var form = Form(fields: [
            Field(name: "pin", rules: [.minLength(4), .containsDigit()], messages: ["pin.tooShort": "Four or more", "needsDigit": "Digits only"]),
        ])
        form.answer("pin", with: "ab")
        #expect(form.visibleErrors(for: "pin").map(\.message) == ["Four or more", "Digits only"])
    }

    @Test func secretFieldsDoNotPrintTheirValue() {
        var form = standardForm()
        form.answer("password", with: goodPassword)
        let text = "\(form["password"]!) \(String(describing: form["password"]!))"
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
        #expect(codes(controller.form.visibleErrors(for: "password")) == ["password.required"])  // visible after a submit
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
        #expect(controller.form.visibleErrors(for: "email") == [taken])
        #expect(controller.fieldToRevisit == "email")
        #expect(!controller.form.isValid)
        controller.update { $0.answer("email", with: "bob@example.com") }
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
        #expect(controller.form["email"]?.value == "alice@example.com")
        #expect(controller.begin() != nil)
    }
}
