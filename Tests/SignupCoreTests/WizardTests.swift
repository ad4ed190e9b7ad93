import SignupCore
import Testing

/// Runs a wizard, answering each question from `answers` and each submit from `store`, and
/// returns every effect it produced. Running out of answers ends the input.
final class Drive {
    var effects: [WizardEffect<CreatedAccount>] = []
    var wizard: Wizard<CreatedAccount>

    init(_ mode: WizardMode, presets: [FieldPreset] = [], policy: PasswordPolicy = .standard) {
        wizard = SignupForm.wizard(form: SignupForm.make(policy: policy, strength: fakeEstimator), mode: mode, strength: fakeEstimator, presets: presets)
    }

    /// What the store says to a submit, the way `signup` turns it into a wizard input.
    enum Reply { case created(id: Int64), emailTaken, unavailable(reason: String) }

    func run(_ answers: [WizardInput<CreatedAccount>], store: [Reply] = [.created(id: 7)]) -> WizardOutcome<CreatedAccount>? {
        var answers = answers
        var store = store
        var pending = wizard.start()
        while !pending.isEmpty {
            let effect = pending.removeFirst()
            effects.append(effect)
            switch effect {
            case .ask: pending += wizard.handle(answers.isEmpty ? .endOfInput : answers.removeFirst())
            case .submit(let form):
                let submission = SignupForm.submission(from: form, strength: fakeEstimator)
                switch store.isEmpty ? .created(id: 1) : store.removeFirst() {
                case .created(let id): pending += wizard.handle(.submitted(.succeeded(submission.created(id: id))))
                case .emailTaken: pending += wizard.handle(.submitted(.rejected([SignupForm.emailTaken])))
                case .unavailable(let reason): pending += wizard.handle(.submitted(.unavailable(reason: reason)))
                }
            case .finish(let outcome): return outcome
            default: break
            }
        }
        return nil
    }

    var questions: [Question] { effects.compactMap { if case .ask(let p) = $0 { p.question } else { nil } } }
    var shownErrors: [[String]] { effects.compactMap { if case .errors(let e) = $0 { codes(e) } else { nil } } }
    var submissions: [Submission] {
        effects.compactMap { if case .submit(let form) = $0 { SignupForm.submission(from: form, strength: fakeEstimator) } else { nil } }
    }
    var notices: [String] { effects.compactMap { if case .notice(let n) = $0 { n } else { nil } } }
}

func a(_ text: String) -> WizardInput<CreatedAccount> { .answer(text) }

/// The outcome of a sign-up that created the account `id` for `email`.
func created(email: String, id: Int64, strength: StrengthLevel) -> WizardOutcome<CreatedAccount> {
    .succeeded(CreatedAccount(email: email, id: id, strength: strength))
}

let email = Question.field("email"), password = Question.field("password"), confirm = Question.field("confirm")

@Suite struct InteractiveWizardTests {
    @Test func happyPathEndsInReviewThenCreated() {
        let drive = Drive(.interactive)
        let outcome = drive.run([a("alice@example.com"), a(goodPassword), a(goodPassword), a("")])
        #expect(outcome == created(email: "alice@example.com", id: 7, strength: .strong))
        #expect(drive.effects.first == .banner(SignupForm.banner))
        #expect(drive.questions == [email, password, confirm, .review])
        #expect(drive.shownErrors.isEmpty)
        #expect(drive.effects.contains(.note(.strength(.strong))))
        #expect(drive.effects.contains(.review(title: "Review", lines: [ReviewLine(label: "Email", value: "alice@example.com", isAnswer: true), ReviewLine(label: "Password", value: "set (strong)")])))
        #expect(drive.submissions.map(\.email) == ["alice@example.com"])
        #expect(drive.submissions.first?.password.reveal() == goodPassword)
    }

    @Test func theFirstPromptShowsNoErrorText() {
        var wizard = SignupForm.wizard(form: standardForm(), mode: .interactive, strength: fakeEstimator)
        let effects = wizard.start()
        #expect(effects == [.banner(SignupForm.banner), .ask(Prompt(question: email, text: "Email: ", isSecret: false))])
    }

    @Test func eachFieldsErrorsAreShownAndTheFieldAskedAgain() {
        let drive = Drive(.interactive)
        _ = drive.run([a("bad"), a("alice@example.com"), a("short"), a(goodPassword), a(""), a(goodPassword), a("y")])
        #expect(drive.questions == [email, email, password, password, confirm, confirm, .review])
        #expect(drive.shownErrors == [["email.invalid"], ["password.tooShort", "password.needsDigit", "password.needsUppercase", "password.tooWeak"], ["confirm.required"]])
    }

    @Test func passwordPromptsAreSecret() {
        let drive = Drive(.interactive)
        _ = drive.run([a("alice@example.com"), a(goodPassword), a(goodPassword), a("y")])
        let secret = drive.effects.compactMap { if case .ask(let p) = $0 { p.isSecret ? p.question : nil } else { nil } }
        #expect(secret == [password, confirm])
    }

    @Test func aMismatchAsksForBothPasswordsAgain() {
        let drive = Drive(.interactive)
        let outcome = drive.run([a("alice@example.com"), a(goodPassword), a("Quartz-Lantern-59"), a("Other-Lantern-77"), a("Other-Lantern-77"), a("y")])
        #expect(drive.questions == [email, password, confirm, password, confirm, .review])
        #expect(drive.shownErrors == [["confirm.mismatch"]])
        #expect(drive.submissions.first?.password.reveal() == "Other-Lantern-77")
        #expect(outcome == created(email: "alice@example.com", id: 7, strength: .strong))
    }

    @Test func strengthIsShownWhenOnlyStrengthFails() {
        let drive = Drive(.interactive)
        _ = drive.run([a("alice@example.com"), a("Abcdef1x"), a(goodPassword)])
        #expect(drive.shownErrors.first == ["password.tooWeak"])
        #expect(drive.effects.contains(.note(.strength(.reasonable))) == false)
        let strengths = drive.effects.compactMap { if case .note(.strength(let l)) = $0 { l } else { nil } }
        #expect(strengths == [StrengthLevel(bits: 32), .strong])
    }

    @Test func declineAtTheReview() {
        let drive = Drive(.interactive)
        #expect(drive.run([a("alice@example.com"), a(goodPassword), a(goodPassword), a("n")]) == .declined)
        #expect(drive.submissions.isEmpty)
    }

    @Test func anUnknownReviewAnswerAsksAgain() {
        let drive = Drive(.interactive)
        _ = drive.run([a("alice@example.com"), a(goodPassword), a(goodPassword), a("maybe"), a("y")])
        #expect(drive.questions.suffix(2) == [.review, .review])
        // [Y/n/e] is explained once before its first answer, and again after one it does not know.
        #expect(drive.notices.count == 2 && drive.notices[0] == drive.notices[1])
    }

    @Test func editTheEmailFromTheReview() {
        let drive = Drive(.interactive)
        let outcome = drive.run([a("alice@example.com"), a(goodPassword), a(goodPassword), a("e"), a("1"), a("bob@example.com"), a("y")])
        #expect(drive.effects.contains(.choices(["Email", "Password"])))
        #expect(drive.questions == [email, password, confirm, .review, .pickField, email, .review])
        #expect(outcome == created(email: "bob@example.com", id: 7, strength: .strong))
    }

    @Test func editThePasswordAsksItsConfirmationAgain() {
        let drive = Drive(.interactive)
        _ = drive.run([a("alice@example.com"), a(goodPassword), a(goodPassword), a("e"), a("2"), a(goodPassword), a(goodPassword), a("y")])
        #expect(drive.questions == [email, password, confirm, .review, .pickField, password, confirm, .review])
    }

    @Test func pickFieldAcceptsNamesAndGoesBackOnEnter() {
        let drive = Drive(.interactive)
        _ = drive.run([a("alice@example.com"), a(goodPassword), a(goodPassword), a("e"), a("9"), a(""), a("e"), a("email"), a("carol@example.com"), a("y")])
        #expect(drive.questions == [email, password, confirm, .review, .pickField, .pickField, .review, .pickField, email, .review])
    }

    @Test func interruptOnAnUntouchedFormCancelsAtOnce() {
        let drive = Drive(.interactive)
        #expect(drive.run([.interrupt]) == .cancelled)
        #expect(drive.questions == [email])
    }

    @Test func interruptWithAnswersAsksToDiscard() {
        let drive = Drive(.interactive)
        let outcome = drive.run([a("alice@example.com"), .interrupt, a("n"), .interrupt, a(""), a(goodPassword), a(goodPassword), .interrupt, a("y")])
        #expect(drive.questions == [email, password, .discard, password, .discard, password, confirm, .review, .discard])
        #expect(outcome == .cancelled)
        #expect(drive.submissions.isEmpty)
    }

    /// A refused answer was never taken: an interrupt after it alone loses nothing and asks nothing.
    @Test func interruptAfterOnlyARefusedAnswerCancelsAtOnce() {
        let drive = Drive(.interactive)
        #expect(drive.run([a("not an address"), .interrupt]) == .cancelled)
        #expect(drive.questions == [email, email])
        let accepted = Drive(.interactive)
        #expect(accepted.run([a("alice@example.com"), a("short"), .interrupt, a("y")]) == .cancelled)
        #expect(accepted.questions == [email, password, password, .discard])
    }

    @Test func interruptAtTheDiscardQuestionCancels() {
        let drive = Drive(.interactive)
        #expect(drive.run([a("alice@example.com"), .interrupt, .interrupt]) == .cancelled)
    }

    @Test func endOfInputIsTheSameAsInterrupt() {
        let untouched = Drive(.interactive)
        #expect(untouched.run([.endOfInput]) == .cancelled)
        let touched = Drive(.interactive)
        #expect(touched.run([a("alice@example.com"), .endOfInput, a("no"), a(goodPassword), a(goodPassword), a("y")]) == created(email: "alice@example.com", id: 7, strength: .strong))
        #expect(touched.questions == [email, password, .discard, password, confirm, .review])
    }

    @Test func takenEmailGoesBackToTheEmailPromptThenTheReview() {
        let drive = Drive(.interactive)
        let outcome = drive.run([a("alice@example.com"), a(goodPassword), a(goodPassword), a("y"), a("bob@example.com"), a("y")], store: [.emailTaken, .created(id: 8)])
        #expect(drive.questions == [email, password, confirm, .review, email, .review])
        #expect(drive.shownErrors == [["email.taken"]])
        #expect(outcome == created(email: "bob@example.com", id: 8, strength: .strong))
    }

    @Test func storeFailureOffersRetryWithTheAnswersKept() {
        let drive = Drive(.interactive)
        let outcome = drive.run([a("alice@example.com"), a(goodPassword), a(goodPassword), a("y"), a("y")], store: [.unavailable(reason: "the disk is full"), .created(id: 9)])
        #expect(drive.questions == [email, password, confirm, .review, .retry])
        #expect(drive.notices.count == 2)  // the review's first-time explanation, then the failure
        #expect(drive.notices.last == "The account could not be saved: the disk is full.")
        #expect(drive.submissions.count == 2)
        #expect(drive.submissions[1].email == "alice@example.com")
        #expect(outcome == created(email: "alice@example.com", id: 9, strength: .strong))
    }

    @Test func storeFailureThenGivingUp() {
        let drive = Drive(.interactive)
        let outcome = drive.run([a("alice@example.com"), a(goodPassword), a(goodPassword), a("y"), a("n")], store: [.unavailable(reason: "locked")])
        #expect(outcome == .unavailable(reason: "locked"))
    }

    @Test func unreadableLinesAreFieldErrors() {
        let drive = Drive(.interactive)
        _ = drive.run([.unreadable(.invalidUTF8), .unreadable(.nulByte), .unreadable(.tooLong(limit: 65536)), a("alice@example.com")])
        #expect(drive.shownErrors == [["email.invalidEncoding"], ["email.nulByte"], ["email.inputTooLong"]])  // not the rules' codes
    }

    @Test func presetsAreNotAskedAndDoNotCountAsAnswers() {
        let drive = Drive(.interactive, presets: [.line(K.email, "alice@example.com")])
        #expect(drive.run([.interrupt]) == .cancelled)
        #expect(drive.questions == [password])
    }

    @Test func anInvalidPresetIsShownThenAsked() {
        let drive = Drive(.interactive, presets: [.line(K.email, "nope")])
        _ = drive.run([a("alice@example.com")])
        #expect(drive.shownErrors == [["email.invalid"]])
        #expect(drive.questions.prefix(2) == [email, password])
    }
}

@Suite struct ScriptWizardTests {
    @Test func happyPathSubmitsWithoutReview() {
        let drive = Drive(.script)
        let outcome = drive.run([a("alice@example.com"), a(goodPassword), a(goodPassword)])
        #expect(drive.questions == [email, password, confirm])
        #expect(outcome == created(email: "alice@example.com", id: 7, strength: .strong))
    }

    @Test func everyErrorOfEveryFieldIsReportedOnceAtTheEnd() {
        let drive = Drive(.script)
        let outcome = drive.run([a("bad"), a("short"), a("other")])
        #expect(drive.questions == [email, password, confirm])
        #expect(drive.shownErrors.isEmpty)
        guard case .invalid(let errors) = outcome else {
            Issue.record("expected invalid, got \(String(describing: outcome))")
            return
        }
        #expect(codes(errors) == ["email.invalid", "password.tooShort", "password.needsDigit", "password.needsUppercase", "password.tooWeak", "confirm.mismatch"])
        #expect(drive.submissions.isEmpty)
    }

    @Test func endOfInputNamesTheUnansweredField() {
        for (count, field, label) in [(0, "email", "Email"), (1, "password", "Password"), (2, "confirm", "Confirm password")] {
            let drive = Drive(.script)
            let answers = Array([a("alice@example.com"), a(goodPassword)].prefix(count))
            #expect(drive.run(answers) == .incomplete(field: field, label: label, errors: []))
        }
    }

    @Test func endOfInputKeepsTheErrorsFoundSoFar() {
        let drive = Drive(.script)
        #expect(drive.run([a("bad")]) == .incomplete(field: "password", label: "Password", errors: [FieldError(field: "email", code: "email.invalid", message: "Enter a valid email address, like name@example.com")]))
    }

    @Test func presetsAnswerFieldsSoOnlyTheRestIsRead() {
        let drive = Drive(.script, presets: [.line(K.password, goodPassword), .line(K.confirm, goodPassword)])
        #expect(drive.run([a("alice@example.com")]) == created(email: "alice@example.com", id: 7, strength: .strong))
        #expect(drive.questions == [email])
    }

    @Test func unreadablePresetsAreErrors() {
        let drive = Drive(.script, presets: [.unreadable(K.password, .nulByte), .unreadable(K.confirm, .nulByte)])
        #expect(drive.run([a("alice@example.com")]) == .invalid([
            FieldError(field: "password", code: "password.nulByte", message: "This answer contains a NUL byte"),
            FieldError(field: "confirm", code: "confirm.nulByte", message: "This answer contains a NUL byte"),
        ]))
    }

    @Test func takenEmailIsInvalid() {
        let drive = Drive(.script)
        #expect(drive.run([a("alice@example.com"), a(goodPassword), a(goodPassword)], store: [.emailTaken]) == .invalid([
            FieldError(field: "email", code: "email.taken", message: "An account with this email already exists"),
        ]))
    }

    @Test func storeFailureIsFinal() {
        let drive = Drive(.script)
        #expect(drive.run([a("alice@example.com"), a(goodPassword), a(goodPassword)], store: [.unavailable(reason: "read-only")]) == .unavailable(reason: "read-only"))
    }

    @Test func interruptCancels() {
        let drive = Drive(.script)
        #expect(drive.run([a("alice@example.com"), .interrupt]) == .cancelled)
    }

    @Test func strengthIsShownInScriptsToo() {
        let drive = Drive(.script)
        _ = drive.run([a("alice@example.com"), a(goodPassword), a(goodPassword)])
        #expect(drive.effects.contains(.note(.strength(.strong))))
    }
}
