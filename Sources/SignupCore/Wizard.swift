/// A conversation over any form as a state machine: inputs in, effects out.
///
/// It holds no terminal, file or clock: the program shows the effects, reads the next line,
/// and feeds it back with ``handle(_:)``. Tests drive it with scripted inputs. `Success` is
/// what a successful submit produces (an account's id).
///
/// What it derives from the form: fields are asked in order; a person hears a field's errors
/// at once and is asked it again, a script hears every error in the outcome; fields that depend
/// on no other are shown at the review and can be changed there (a secret as "set", typed anew);
/// a dependent field failing with `mismatch` (a confirmation) asks its source again.
public struct Wizard<Success: Sendable>: Sendable {
    private enum Step: Sendable, Equatable {
        case notStarted
        case asking(Question)
        case checking(field: String)
        case discarding(returnTo: Question)
        case submitting
        case finished
    }

    /// What to show after field `field` is answered (strength, a checklist), given the form.
    public typealias AfterAnswer = @Sendable (_ field: String, _ form: Form) -> [WizardNote]
    /// What the review shows for field `field` instead of its value (or "set"); nil to keep that.
    public typealias ReviewValue = @Sendable (_ field: String, _ form: Form) -> String?

    /// The mode chosen at creation.
    public let mode: WizardMode
    /// Whether an interrupt asks "Discard your answers?" once an accepted answer changed the form (true by
    /// default); false ends the conversation at once, as an interrupt before any change does.
    public let confirmsDiscard: Bool
    /// The words of the conversation.
    public let texts: WizardTexts
    private let afterAnswer: AfterAnswer
    private let checkedFields: Set<String>
    private let reviewValue: ReviewValue
    private var controller: SubmissionController
    /// The form as the conversation began, presets included: what an interrupt would lose is
    /// what differs from it.
    private let started: Form
    private var attempt: SubmitAttempt?
    private var step = Step.notStarted
    private var reviewExplained = false
    private var hinted: Set<String> = []
    /// What the last prompt put on the line to edit: a question asked again after a declined
    /// discard is asked as it was (Enter on an edit form's field keeps its value).
    private var askedInitial = ""

    /// A wizard over `form`. `presets` answer fields before the conversation starts (from
    /// command-line options, a file), in the form's order; a field may have one.
    /// `checkedFields` have a check beyond their rules right after an answer that passes them
    /// (``WizardEffect/check(field:form:)``): a person hears its errors at once and is asked again.
    public init(
        form: Form,
        mode: WizardMode,
        texts: WizardTexts = WizardTexts(),
        confirmsDiscard: Bool = true,
        checkedFields: [any FieldReference] = [],
        presets: [FieldPreset] = [],
        afterAnswer: @escaping AfterAnswer = { _, _ in [] },
        reviewValue: @escaping ReviewValue = { _, _ in nil }
    ) {
        var form = form
        for field in form.fields {
            precondition(
                field.isAskable,
                "field \(field.name) holds a value a UI sets, which no line stands for: a wizard cannot ask it (use a FormModel, or a type that conforms to AnswerValue)"
            )
            for preset in presets where preset.name == field.name {
                switch preset.answer {
                case .line(let line): form.answer(named: field.name, with: line)
                case .typed: preconditionFailure("unreachable: every field of a wizard is read from a line")
                case .unreadable(let problem): form.reject(named: field.name, with: [.unreadable(problem, field: field.name)])
                }
            }
        }
        for name in presets.map(\.name) + checkedFields.map(\.name) where form[named: name] == nil {
            preconditionFailure("a preset or a checked field names a field this form does not have; its fields: \(form.fields.map(\.name).joined(separator: ", "))")
        }
        self.mode = mode
        self.texts = texts
        self.confirmsDiscard = confirmsDiscard
        self.checkedFields = Set(checkedFields.map(\.name))
        self.afterAnswer = afterAnswer
        self.reviewValue = reviewValue
        self.controller = SubmissionController(form: form)
        self.started = form
    }

    /// The form with every answer so far.
    public var form: Form { controller.form }

    /// The fields the review shows and can change, in the order they are numbered: those that depend on no other.
    public var editableFields: [String] { form.fields.filter(\.dependsOn.isEmpty).map(\.name) }

    /// Starts the conversation: the banner and the first question.
    public mutating func start() -> [WizardEffect<Success>] {
        precondition(step == .notStarted, "start() called twice")
        return (texts.banner.map { [.banner($0)] } ?? []).followed(by: next())
    }

    /// Takes one input and returns what to do about it. An input that fits no question (a
    /// submit's result when none was asked for, anything after the end) changes nothing.
    public mutating func handle(_ input: WizardInput<Success>) -> [WizardEffect<Success>] {
        switch (step, input) {
        case (.notStarted, _), (.finished, _):
            return []
        case (.submitting, .submitted(let result)):
            return submitted(result)
        case (.submitting, .interrupt):
            return finish(.cancelled)
        case (.submitting, _):
            return []
        case (.checking(let name), .checked(let field, let errors)) where field == name:
            if !errors.isEmpty { controller.update { $0.attach(errors) } }
            return answered(name, checked: true)
        case (.checking(let name), .interrupt):
            // A check cut short leaves the answer unchecked: the field is asked again if the
            // conversation goes on.
            controller.update { $0.reset(named: name) }
            return interrupted(at: .field(name))
        case (.checking, _):
            return []
        case (_, .submitted), (_, .checked):
            return []
        case (.discarding(let question), .answer(let text)):
            return isYes(text, default: false) ? finish(.cancelled) : [ask(question, initial: askedInitial)]
        case (.discarding, .unreadable):
            return [.ask(prompt(for: .discard))]
        case (.discarding, .interrupt), (.discarding, .endOfInput):
            return finish(.cancelled)
        case (.asking(let question), .interrupt):
            return interrupted(at: question)
        case (.asking(let question), .endOfInput):
            return endOfInput(at: question)
        case (.asking(.field(let name)), .answer(let text)):
            // A script's empty line keeps an initial value, as Enter does on the line that shows it;
            // a secret's is never shown, so Enter on its empty masked line keeps it too; Enter at a
            // yes/no or a choice takes its default (the current answer, else the initial value).
            let field = form[named: name]!
            let answer: String
            if text.isEmpty && !field.promptStyle.editsLine {
                answer = field.isAnswered ? field.value : field.initialValue
            } else if text.isEmpty && (mode == .script || field.isSecret) && !field.isAnswered {
                answer = field.initialValue
            } else {
                answer = text
            }
            controller.update { $0.answer(named: name, with: answer) }
            return answered(name)
        case (.asking(.field(let name)), .unreadable(let problem)):
            controller.update { $0.reject(named: name, with: [.unreadable(problem, field: name)]) }
            return answered(name)
        case (.asking(let question), .answer(let text)):
            return reply(text, to: question)
        case (.asking(let question), .unreadable):
            return reply("\u{FFFD}", to: question)
        }
    }

    // MARK: - Fields

    private mutating func answered(_ name: String, checked: Bool = false) -> [WizardEffect<Success>] {
        let field = form[named: name]!
        if !checked, checkedFields.contains(name), !field.isRejected, form.errors(named: name).isEmpty {
            step = .checking(field: name)
            return [.check(field: name, form: form)]
        }
        let errors = errorsShown(name)
        // An answer refused as unreadable has nothing to describe: no checklist or strength of it.
        var effects: [WizardEffect<Success>] = field.isRejected ? [] : afterAnswer(name, form).map { .note($0) }
        // A script hears every error once, in the outcome; a person hears them at once.
        guard mode == .interactive else { return effects.followed(by: next()) }
        if !errors.isEmpty { effects.insert(.errors(errors), at: 0) }

        if !field.dependsOn.isEmpty, errors.contains(where: { $0.reason == "mismatch" }) {
            // The confirmation does not match: the field it is compared with is typed again, then
            // the confirmation; other fields it depends on keep their answers.
            let sources = field.comparedFields.filter(field.dependsOn.contains)
            let reset = sources.isEmpty ? field.dependsOn : sources
            controller.update { form in reset.forEach { form.reset(named: $0) } }
            return effects.followed(by: askField(reset[0]))
        }
        if !errors.isEmpty { return effects.followed(by: askField(name, reasonsShown: true)) }
        return effects.followed(by: next())
    }

    /// Asks field `name`. A person asked a field again hears why first: its failing rules come
    /// before the prompt, whatever made it fail (its own answer, another field it reads, a
    /// preset that failed its rules, the submit). Before its first prompt comes its hint.
    private mutating func askField(_ name: String, reasonsShown: Bool = false, initial: String? = nil) -> [WizardEffect<Success>] {
        let field = form[named: name]!
        let errors = errorsShown(name)
        var effects: [WizardEffect<Success>] = []
        if mode == .interactive, let hint = field.hint, !hinted.contains(name) {
            hinted.insert(name)
            effects.append(.hint(hint))
        }
        // An answer (or a submit) has reasons to give, and a field that shows its errors `.always`
        // has them at once, before its first prompt, for the value it holds (an initial value, a
        // preset). An empty field no one answered is not told it is empty, whatever its mode: a
        // new form's first prompt, or a field the wizard emptied itself.
        let hasReasons = field.isAnswered || form.submitAttempted || (field.mode == .always && !field.value.isEmpty)
        if mode == .interactive && !reasonsShown && hasReasons && !errors.isEmpty { effects.append(.errors(errors)) }
        let start = !field.promptStyle.editsLine ? "" : initial ?? (field.isSecret || field.isAnswered ? "" : field.initialValue)
        return effects + [ask(.field(name), initial: start)]
    }

    /// The errors field `name` shows a person now. A field silent while empty (for a UI's disabled
    /// button) is not silent once a person answered it: Enter on its empty line is an answer, and
    /// its errors come at once, as any field's do.
    private func errorsShown(_ name: String) -> [FieldError] {
        form.visibleErrors(named: name, answerSpeaks: mode == .interactive)
    }

    /// Asks the next field to answer; when none is left, the review (interactive) or the submit (script).
    private mutating func next() -> [WizardEffect<Success>] {
        switch mode {
        case .interactive:
            if let name = form.firstFieldNeedingAnswer(answerSpeaks: true) { return askField(name) }
            return review()
        case .script:
            if let field = form.fields.first(where: { !$0.isAnswered }) {
                return [ask(.field(field.name), initial: field.isSecret ? "" : field.initialValue)]
            }
            return submit()
        }
    }

    // MARK: - Review, edit, submit

    private mutating func review() -> [WizardEffect<Success>] {
        let lines = editableFields.map { name in
            let field = form[named: name]!
            let label = field.reviewLabel ?? field.label
            if let shown = reviewValue(name, form) { return ReviewLine(label: label, value: shown) }
            return field.isSecret ? ReviewLine(label: label, value: texts.secretSet) : ReviewLine(label: label, value: field.value, isAnswer: true)
        }
        var effects: [WizardEffect<Success>] = [.review(title: texts.reviewTitle, lines: lines)]
        // The review's question is explained once, the first time, before it is answered.
        if !reviewExplained { effects.append(.notice(texts.reviewHelp)) }
        reviewExplained = true
        return effects + [ask(.review)]
    }

    private mutating func reply(_ text: String, to question: Question) -> [WizardEffect<Success>] {
        let answer = text.trimmingSpaces.lowercased()
        switch question {
        case .review:
            switch answer {
            case "", "y", "yes": return submit()
            case "n", "no": return finish(.declined)
            case "e", "edit":
                let labels = editableFields.map { form[named: $0]!.reviewLabel ?? form[named: $0]!.label }
                guard !labels.isEmpty else { return [.notice(texts.nothingToChange), ask(.review)] }
                return [.choices(labels), ask(.pickField)]
            default: return [.notice(texts.reviewHelp), ask(.review)]
            }
        case .pickField:
            if answer.isEmpty { return review() }
            let fields = editableFields
            let chosen = Int(answer).flatMap { fields.indices.contains($0 - 1) ? fields[$0 - 1] : nil }
                ?? fields.first { $0 == answer || (form[named: $0]?.reviewLabel ?? form[named: $0]?.label)?.lowercased() == answer }
            guard let name = chosen else {
                return [.notice(texts.pickHelp(fields.count)), ask(.pickField)]
            }
            // A text answer is changed from where it is (Enter keeps it); a secret, never shown, is typed anew.
            if form[named: name]!.isSecret {
                controller.update { $0.reset(named: name) }
                return askField(name, initial: "")
            }
            return askField(name, initial: form[named: name]!.value)
        case .retry:
            switch answer {
            case "", "y", "yes": return submit()
            case "n", "no":
                if case .failed(.unavailable(let reason)) = controller.state { return finish(.unavailable(reason: reason)) }
                return finish(.unavailable(reason: Translation.english("it could not be carried out")))
            default: return [.notice(texts.retryHelp), ask(.retry)]
            }
        case .field, .discard:
            preconditionFailure("answers to \(question) are handled elsewhere")
        }
    }

    private mutating func submit() -> [WizardEffect<Success>] {
        guard let attempt = controller.begin() else {
            let errors = form.fields.flatMap { form.errors(named: $0.name) }
            if mode == .script { return finish(.invalid(errors)) }
            return askField(controller.fieldToRevisit ?? form.fields[0].name)
        }
        self.attempt = attempt
        step = .submitting
        return [.submit(attempt.form)]
    }

    private mutating func submitted(_ result: SubmitResult<Success>) -> [WizardEffect<Success>] {
        guard let attempt else { return [] }
        self.attempt = nil
        switch result {
        case .succeeded(let value):
            controller.finish(attempt, with: .success(()))
            return finish(.succeeded(value))
        case .rejected(let errors):
            controller.finish(attempt, with: .failure(.fields(errors)))
            if mode == .script { return finish(.invalid(errors)) }
            let formErrors: [WizardEffect<Success>] = form.formErrors.isEmpty ? [] : [.errors(form.formErrors)]
            if let name = controller.fieldToRevisit { return formErrors.followed(by: askField(name)) }
            return formErrors.followed(by: review())
        case .unavailable(let reason):
            controller.finish(attempt, with: .failure(.unavailable(reason: reason)))
            if mode == .script { return finish(.unavailable(reason: reason)) }
            return [.notice(texts.unavailable(reason)), ask(.retry)]
        }
    }

    // MARK: - Interrupts and end of input

    private mutating func interrupted(at question: Question) -> [WizardEffect<Success>] {
        // Only an accepted answer is lost: the question follows what changed since the
        // conversation began and passed the field's rules, not whether someone typed (Enter on an
        // initial value or a preset, an answer put back, changes nothing; a refused answer was
        // never taken, and the field is asked again).
        let changed = zip(form.fields, started.fields).contains { $0.value != $1.value && form.errors(named: $0.name).isEmpty }
        guard mode == .interactive, confirmsDiscard, changed else { return finish(.cancelled) }
        step = .discarding(returnTo: question)
        return [.ask(prompt(for: .discard))]
    }

    private mutating func endOfInput(at question: Question) -> [WizardEffect<Success>] {
        if mode == .interactive { return interrupted(at: question) }
        guard case .field(let name) = question else { return finish(.cancelled) }
        let errors = form.fields.filter(\.isAnswered).flatMap { form.errors(named: $0.name) }
        return finish(.incomplete(field: name, label: form[named: name]!.label, errors: errors))
    }

    private mutating func finish(_ outcome: WizardOutcome<Success>) -> [WizardEffect<Success>] {
        step = .finished
        return [.finish(outcome)]
    }

    // MARK: - Prompts

    private mutating func ask(_ question: Question, initial: String = "") -> WizardEffect<Success> {
        step = .asking(question)
        askedInitial = initial
        var prompt = prompt(for: question)
        prompt.initial = initial
        return .ask(prompt)
    }

    private func prompt(for question: Question) -> Prompt {
        switch question {
        case .field(let name):
            let field = form[named: name]!
            var prompt = Prompt(question: question, text: promptText(field, words: field.label), isSecret: field.isSecret,
                                isKeyed: field.promptStyle == .yesNo)
            prompt.spoken = field.accessibilityDescription.map { promptText(field, words: $0) }
            prompt.isRemembered = field.isRemembered
            return prompt
        case .review:
            return Prompt(question: question, text: texts.reviewQuestion, isSecret: false, isKeyed: true)
        case .pickField:
            return Prompt(question: question, text: texts.pickQuestion(editableFields.count), isSecret: false)
        case .discard:
            return Prompt(question: question, text: texts.discardQuestion, isSecret: false, isKeyed: true)
        case .retry:
            return Prompt(question: question, text: texts.retryQuestion, isSecret: false, isKeyed: true)
        }
    }

    /// `Label: `, `Label [y/N]: `, `Label (a, b, c) [a]: ` or `Label (separated by commas): `: a
    /// yes/no or a choice shows its default (the current answer, else the initial value), which
    /// Enter takes; a list says how its elements are separated, and names their choices.
    private func promptText(_ field: Field, words: String) -> String {
        let chosen = field.isAnswered ? field.value : field.initialValue
        switch field.promptStyle {
        case .line:
            return Translation.english("{label}: ", translated: ["label": words])
        case .yesNo:
            // The letters are a catalog's text of their own: a translation shows its own (`[J/n]`).
            let choices = chosen == "yes" ? Translation.english("[Y/n]") : chosen == "no" ? Translation.english("[y/N]") : Translation.english("[y/n]")
            return Translation.english("{label} {choices}: ", translated: ["label": words, "choices": choices])
        case .choice(let options):
            let listed = "(" + options.joined(separator: ", ") + ")" + (chosen.isEmpty ? "" : " [\(chosen)]")
            return Translation.english("{label} {choices}: ", ["choices": listed], translated: ["label": words])
        case .list(let options) where options.isEmpty:
            return Translation.english("{label} (separated by commas): ", translated: ["label": words])
        case .list(let options):
            return Translation.english("{label} ({choices}; separated by commas): ", ["choices": options.joined(separator: ", ")], translated: ["label": words])
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
            FieldError(field: field, code: "\(field).invalidEncoding", message: Translation.english("This answer is not valid UTF-8 text"))
        case .nulByte:
            FieldError(field: field, code: "\(field).nulByte", message: Translation.english("This answer contains a NUL byte"))
        case .tooLong(let limit):
            FieldError(
                field: field, code: "\(field).inputTooLong",
                message: Translation.english("This answer is longer than {size} KiB", ["size": String(limit / 1024)])
            )
        }
    }
}

extension String {
    /// The text without white space at either end.
    var trimmingSpaces: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}

/// An answer given before the conversation starts (a command-line option, a file): a line for a
/// field, or a line that could not be read.
public struct FieldPreset: Sendable {
    enum Answer: Sendable {
        case line(String)
        case typed(any Sendable)
        case unreadable(InputProblem)
    }

    /// The name of the field it answers.
    public let name: String
    let answer: Answer

    /// Answers the field of `key` with `line`, as if it were typed.
    public static func line(_ key: some FieldReference, _ line: String) -> FieldPreset {
        FieldPreset(name: key.name, answer: .line(line))
    }

    /// Answers the field of `key` with a typed `value`: for an edit form, a value no line stands for too.
    public static func value<Value: Equatable>(_ key: FieldKey<Value>, _ value: Value) -> FieldPreset {
        if let value = value as? any AnswerValue { return FieldPreset(name: key.name, answer: .line(value.answerText)) }
        return FieldPreset(name: key.name, answer: .typed(value))
    }

    /// Answers the field of `key` with a line that could not be read: shown with its errors before the field is asked.
    public static func unreadable(_ key: some FieldReference, _ problem: InputProblem) -> FieldPreset {
        FieldPreset(name: key.name, answer: .unreadable(problem))
    }
}

extension Array {
    /// Appends `more`, one element at a time. Not `+=` or `+`: those are the standard library's
    /// generic append of a sequence, and in code not specialized for a wizard's success type (the
    /// wizard's own, and a runner's generic loop) their first call asks the runtime for the
    /// array's `Collection` conformance by name, a scan of every conformance record in the
    /// program, before the first prompt.
    package mutating func append(each more: [Element]) {
        reserveCapacity(count + more.count)
        for element in more { append(element) }
    }

    /// This array, then `more` (see ``append(each:)``).
    package func followed(by more: [Element]) -> [Element] {
        var all = self
        all.append(each: more)
        return all
    }
}
