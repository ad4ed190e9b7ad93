import SignupCore
import Testing

/// Begins a submit, failing the test when the gate refuses.
func begun(_ controller: inout SubmissionController) throws -> SubmitAttempt {
    let attempt = controller.begin()
    return try #require(attempt)
}

/// The failure of a submit's result, nil when it succeeded.
func failure(_ result: Result<Void, SubmissionFailure>) -> SubmissionFailure? {
    if case .failure(let failure) = result { failure } else { nil }
}

@Suite struct ControllerSafetyTests {
    @Test func aSecondSubmitWhileOneRunsIsRefused() throws {
        var controller = SubmissionController(form: filledForm())
        let first = try begun(&controller)
        let r1 = controller.begin()
        #expect(r1 == nil)
        #expect(controller.state == .submitting)
        let r2 = controller.finish(first, with: .success(()))
        #expect(r2)
        #expect(controller.state == .succeeded)
    }

    @Test func aStrayResultIsIgnoredAndNeverTraps() throws {
        var controller = SubmissionController(form: filledForm())
        let first = try begun(&controller)
        let r3 = controller.finish(first, with: .failure(.unavailable(reason: "down")))
        #expect(r3)
        let again = controller.finish(first, with: .success(()))
        #expect(!again)  // the same result twice
        #expect(controller.state == .failed(.unavailable(reason: "down")))
        let second = try begun(&controller)
        let late = controller.finish(first, with: .success(()))
        #expect(!late)  // an older attempt's late result
        #expect(controller.state == .submitting)
        let r4 = controller.finish(second, with: .success(()))
        #expect(r4)
    }

    @Test func theFormCannotChangeUnderARunningSubmit() throws {
        var controller = SubmissionController(form: filledForm())
        let attempt = try begun(&controller)
        let changed = controller.update { $0.answer(K.email, line: "mallory@example.com") }
        #expect(!changed)
        #expect(controller.form[K.email]?.value == "alice@example.com")
        #expect(attempt.form[K.email]?.value == "alice@example.com")
    }

    @Test func anAsyncSubmitsThrownFieldErrorsGoBackOnTheirFields() async throws {
        var controller = SubmissionController(form: filledForm())
        let attempt = try begun(&controller)
        let result = await SubmissionController.perform(attempt) { form in
            try await Task.sleep(for: .milliseconds(1))
            throw SubmissionFailure.fields([FieldError(field: "email", code: "email.taken", message: "Taken")])
        }
        controller.finish(attempt, with: result)
        #expect(codes(controller.form.visibleErrors(for: K.email)) == ["email.taken"])
        #expect(controller.fieldToRevisit == "email")
    }

    @Test func aThrownFieldErrorAndAnyOtherErrorAreMapped() async throws {
        struct Offline: Error, CustomStringConvertible { var description: String { "the network is down" } }
        var controller = SubmissionController(form: filledForm())
        let attempt = try begun(&controller)
        let taken = await SubmissionController.perform(attempt) { _ in throw FieldError(field: "email", code: "email.taken", message: "Taken") }
        #expect(failure(taken) == (.fields([FieldError(field: "email", code: "email.taken", message: "Taken")])))
        let offline = await SubmissionController.perform(attempt) { _ in throw Offline() }
        #expect(failure(offline) == .unavailable(reason: "the network is down"))
    }

    @Test func formLevelErrorsAreKeptAndShown() throws {
        var controller = SubmissionController(form: filledForm())
        let attempt = try begun(&controller)
        let limited = FieldError.form(code: "form.rateLimited", message: "Too many sign-ups from here; try again in a minute")
        controller.finish(attempt, with: .failure(.fields([limited])))
        #expect(controller.form.formErrors == [limited])
        #expect(controller.state == .failed(.fields([limited])))
        controller.update { $0.answer(K.email, line: "bob@example.com") }
        #expect(controller.form.formErrors.isEmpty)  // an answer changes the form: the error no longer holds
    }

    @Test func theWizardShowsFormLevelErrorsAndReturnsToTheReview() {
        var wizard = Wizard<Int>(form: filledForm(), mode: .interactive, texts: WizardTexts(banner: "Join"))
        var effects = wizard.start()
        #expect(effects.last == .ask(Prompt(question: .review, text: "Submit? [Y/n/e] ", isSecret: false, isKeyed: true)))
        effects = wizard.handle(.answer("y"))
        guard case .submit = effects.last else {
            Issue.record("expected a submit, got \(effects)")
            return
        }
        let limited = FieldError.form(code: "form.rateLimited", message: "Too many sign-ups")
        effects = wizard.handle(.submitted(.rejected([limited])))
        #expect(effects.first == .errors([limited]))
        #expect(effects.last == .ask(Prompt(question: .review, text: "Submit? [Y/n/e] ", isSecret: false, isKeyed: true)))
        #expect(wizard.handle(.submitted(.succeeded(3))).isEmpty)  // a stray result: nothing happens
    }

    @Test func aScriptHearsFormLevelErrorsInTheOutcome() {
        var wizard = Wizard<Int>(form: filledForm(), mode: .script)
        var effects = wizard.start()
        let limited = FieldError.form(code: "form.rateLimited", message: "Too many sign-ups")
        effects = wizard.handle(.submitted(.rejected([limited])))
        #expect(effects == [.finish(.invalid([limited]))])
    }
}
