/// The sign-up conversation as a state machine: inputs in, effects out.
///
/// It holds no terminal, file or clock: the program shows the effects, reads the next
/// line, and feeds it back with ``handle(_:)``. Tests drive it with scripted inputs.
public struct SignupWizard: Sendable {
    /// The first line of every conversation.
    public static let banner = "Create your account (Ctrl-C to cancel)"
    /// The fields the review can change, in the order they are numbered.
    public static let editableFields = [SignupForm.email, SignupForm.password]

    private enum Step: Sendable, Equatable {
        case notStarted
        case asking(Question)
        case discarding(returnTo: Question)
        case submitting
        case finished
    }

    /// The mode chosen at creation.
    public let mode: WizardMode
    private var controller: SubmissionController
    private let estimator: StrengthEstimator
    private var step = Step.notStarted
    private var personAnswered = false
    private var reviewExplained = false

    /// A wizard over `form` (see ``SignupForm/make(policy:strength:)``); `presets` answer
    /// fields before the conversation starts (`--email`, a password source).
    /// `unreadablePresets` are answers from such a source that could not be read.
    public init(
        form: Form,
        mode: WizardMode,
        strength estimator: StrengthEstimator,
        presets: [String: String] = [:],
        unreadablePresets: [String: InputProblem] = [:]
    ) {
        var form = form
        for field in form.fields {
            if let value = presets[field.name] { form.answer(field.name, with: value) }
            if let problem = unreadablePresets[field.name] { form.reject(field.name, with: [.unreadable(problem, field: field.name)]) }
        }
        self.mode = mode
        self.controller = SubmissionController(form: form)
        self.estimator = estimator
    }

    /// The form with every answer so far.
    public var form: Form { controller.form }

    /// Starts the conversation: the banner and the first question.
    public mutating func start() -> [WizardEffect] {
        precondition(step == .notStarted, "start() called twice")
        return [.banner(Self.banner)] + next()
    }

    /// Takes one input and returns what to do about it.
    public mutating func handle(_ input: WizardInput) -> [WizardEffect] {
        switch (step, input) {
        case (.notStarted, _), (.finished, _):
            return []
        case (.submitting, .submitted(let result)):
            return submitted(result)
        case (.submitting, .interrupt):
            return finish(.cancelled)
        case (.submitting, _):
            return []
        case (_, .submitted):
            return []
        case (.discarding(let question), .answer(let text)):
            return isYes(text, default: false) ? finish(.cancelled) : [ask(question)]
        case (.discarding, .unreadable):
            return [.ask(prompt(for: .discard))]
        case (.discarding, .interrupt), (.discarding, .endOfInput):
            return finish(.cancelled)
        case (.asking(let question), .interrupt):
            return interrupted(at: question)
        case (.asking(let question), .endOfInput):
            return endOfInput(at: question)
        case (.asking(.field(let name)), .answer(let text)):
            personAnswered = true
            controller.update { $0.answer(name, with: text) }
            return answered(name)
        case (.asking(.field(let name)), .unreadable(let problem)):
            personAnswered = true
            controller.update { $0.reject(name, with: [.unreadable(problem, field: name)]) }
            return answered(name)
        case (.asking(let question), .answer(let text)):
            return reply(text, to: question)
        case (.asking(let question), .unreadable):
            return reply("\u{FFFD}", to: question)
        }
    }

    // MARK: - Fields

    private mutating func answered(_ name: String) -> [WizardEffect] {
        let errors = form.visibleErrors(for: name)
        var effects: [WizardEffect] = []
        if name == SignupForm.password, let level = shownStrength(errors: errors) {
            effects.append(.strength(level))
        }
        // A script hears every error once, in the outcome; a person hears them at once.
        guard mode == .interactive else { return effects + next() }
        if !errors.isEmpty { effects.insert(.errors(errors), at: 0) }

        if name == SignupForm.confirm, errors.contains(where: { $0.reason == "mismatch" }) {
            controller.update { $0.reset(SignupForm.password) }
            return effects + askField(SignupForm.password)
        }
        if !errors.isEmpty { return effects + askField(name, reasonsShown: true) }
        return effects + next()
    }

    /// Asks field `name`. A person asked a field again hears why first: its failing rules come
    /// before the prompt, whatever made it fail (its own answer, a changed email that the
    /// password now contains, a password source that failed its rules, the store).
    private mutating func askField(_ name: String, reasonsShown: Bool = false, initial: String = "") -> [WizardEffect] {
        let errors = form.visibleErrors(for: name)
        let reasons: [WizardEffect] = mode == .interactive && !reasonsShown && !errors.isEmpty ? [.errors(errors)] : []
        return reasons + [ask(.field(name), initial: initial)]
    }

    /// The strength to show after a password: when it passes every rule but those about strength.
    private func shownStrength(errors: [FieldError]) -> StrengthLevel? {
        let value = form[SignupForm.password]?.value ?? ""
        guard !value.isEmpty, errors.allSatisfy({ PasswordPolicy.strengthReasons.contains($0.reason) }) else { return nil }
        return strengthOfPassword
    }

    private var strengthOfPassword: StrengthLevel {
        let password = form[SignupForm.password]?.value ?? ""
        return estimator.estimate(password, knownWords(inEmail: form[SignupForm.email]?.value ?? "")).level
    }

    /// Asks the next field to answer; when none is left, the review (interactive) or the submit (script).
    private mutating func next() -> [WizardEffect] {
        switch mode {
        case .interactive:
            if let name = form.firstFieldNeedingAnswer { return askField(name) }
            return review()
        case .script:
            if let field = form.fields.first(where: { !$0.isAnswered }) { return [ask(.field(field.name))] }
            return submit()
        }
    }

    // MARK: - Review, edit, submit

    private mutating func review() -> [WizardEffect] {
        var effects: [WizardEffect] = [
            .review([
                ReviewLine(label: "Email", value: form[SignupForm.email]?.value ?? ""),
                ReviewLine(label: "Password", value: "set (\(strengthOfPassword.label))"),
            ]),
        ]
        // [Y/n/e] is explained once, the first time, before it is answered.
        if !reviewExplained { effects.append(.notice(Self.reviewHelp)) }
        reviewExplained = true
        return effects + [ask(.review)]
    }

    private static let reviewHelp = "Answer y to create the account, n to cancel, or e to change an answer."

    private mutating func reply(_ text: String, to question: Question) -> [WizardEffect] {
        let answer = text.trimmingSpaces.lowercased()
        switch question {
        case .review:
            switch answer {
            case "", "y", "yes": return submit()
            case "n", "no": return finish(.declined)
            case "e", "edit":
                let labels = Self.editableFields.map { form[$0]?.label ?? $0 }
                return [.choices(labels), ask(.pickField)]
            default: return [.notice(Self.reviewHelp), ask(.review)]
            }
        case .pickField:
            if answer.isEmpty { return review() }
            let fields = Self.editableFields
            let chosen = Int(answer).flatMap { (1...fields.count).contains($0) ? fields[$0 - 1] : nil }
                ?? fields.first { $0 == answer || form[$0]?.label.lowercased() == answer }
            guard let name = chosen else {
                return [.notice("Enter a number from 1 to \(fields.count), or press Enter to go back."), ask(.pickField)]
            }
            // A text answer is changed from where it is (Enter keeps it); a password, never shown, is typed anew.
            if name == SignupForm.password { controller.update { $0.reset(SignupForm.password) } }
            let current = form[name].map { $0.isSecret ? "" : $0.value } ?? ""
            return askField(name, initial: current)
        case .retry:
            switch answer {
            case "", "y", "yes": return submit()
            case "n", "no":
                if case .failed(.unavailable(let reason)) = controller.state { return finish(.storageFailed(reason: reason)) }
                return finish(.storageFailed(reason: "the account could not be saved"))
            default: return [.notice("Answer y to try again or n to give up."), ask(.retry)]
            }
        case .field, .discard:
            preconditionFailure("answers to \(question) are handled elsewhere")
        }
    }

    private mutating func submit() -> [WizardEffect] {
        guard controller.begin() else {
            let errors = form.fields.flatMap { form.errors(for: $0.name) }
            if mode == .script { return finish(.invalid(errors)) }
            return askField(controller.fieldToRevisit ?? SignupForm.email)
        }
        step = .submitting
        let submission = Submission(
            email: form[SignupForm.email]?.value ?? "",
            password: Secret(form[SignupForm.password]?.value ?? ""),
            strength: strengthOfPassword
        )
        return [.submit(submission)]
    }

    private mutating func submitted(_ result: SubmitResult) -> [WizardEffect] {
        switch result {
        case .created(let id):
            controller.finish(.success(()))
            return finish(.created(email: form[SignupForm.email]?.value ?? "", id: id, strength: strengthOfPassword))
        case .emailTaken:
            let taken = FieldError(field: SignupForm.email, code: "email.taken", message: "An account with this email already exists")
            controller.finish(.failure(.fields([taken])))
            if mode == .script { return finish(.invalid([taken])) }
            return askField(controller.fieldToRevisit ?? SignupForm.email)
        case .unavailable(let reason):
            controller.finish(.failure(.unavailable(reason: reason)))
            if mode == .script { return finish(.storageFailed(reason: reason)) }
            return [.notice("The account could not be saved: \(reason)."), ask(.retry)]
        }
    }

    // MARK: - Interrupts and end of input

    private mutating func interrupted(at question: Question) -> [WizardEffect] {
        guard mode == .interactive, personAnswered else { return finish(.cancelled) }
        step = .discarding(returnTo: question)
        return [.ask(prompt(for: .discard))]
    }

    private mutating func endOfInput(at question: Question) -> [WizardEffect] {
        if mode == .interactive { return interrupted(at: question) }
        guard case .field(let name) = question else { return finish(.cancelled) }
        let errors = form.fields.filter(\.isAnswered).flatMap { form.errors(for: $0.name) }
        return finish(.incomplete(field: name, label: form[name]?.label ?? name, errors: errors))
    }

    private mutating func finish(_ outcome: Outcome) -> [WizardEffect] {
        step = .finished
        return [.finish(outcome)]
    }

    // MARK: - Prompts

    private mutating func ask(_ question: Question, initial: String = "") -> WizardEffect {
        step = .asking(question)
        var prompt = prompt(for: question)
        prompt.initial = initial
        return .ask(prompt)
    }

    private func prompt(for question: Question) -> Prompt {
        switch question {
        case .field(let name):
            let field = form[name]
            return Prompt(question: question, text: "\(field?.label ?? name): ", isSecret: field?.isSecret ?? false)
        case .review:
            return Prompt(question: question, text: "Create account? [Y/n/e] ", isSecret: false)
        case .pickField:
            return Prompt(question: question, text: "Change which? [1-\(Self.editableFields.count)] ", isSecret: false)
        case .discard:
            return Prompt(question: question, text: "Discard your answers? [y/N] ", isSecret: false)
        case .retry:
            return Prompt(question: question, text: "Try again? [Y/n] ", isSecret: false)
        }
    }

    private func isYes(_ text: String, default value: Bool) -> Bool {
        switch text.trimmingSpaces.lowercased() {
        case "y", "yes": true
        case "": value
        default: false
        }
    }
}

extension FieldError {
    /// The error of field `field` whose answer could not be read. These codes name problems of
    /// the input itself and differ from the rules' codes (`tooLong` is the rule's length limit,
    /// `invalidCharacter` its control characters), so each code keeps one meaning.
    public static func unreadable(_ problem: InputProblem, field: String) -> FieldError {
        switch problem {
        case .invalidUTF8:
            FieldError(field: field, code: "\(field).invalidEncoding", message: "This answer is not valid UTF-8 text")
        case .nulByte:
            FieldError(field: field, code: "\(field).nulByte", message: "This answer contains a NUL byte")
        case .tooLong(let limit):
            FieldError(field: field, code: "\(field).inputTooLong", message: "This answer is longer than \(limit / 1024) KiB")
        }
    }
}

extension String {
    var trimmingSpaces: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
