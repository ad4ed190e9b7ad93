/// How the wizard talks: at a terminal, or with a script on standard input.
public enum WizardMode: Sendable, Equatable {
    /// A person answers: errors are shown and the field asked again; a review ends the form.
    case interactive
    /// A script answers each field once; every error is reported at the end.
    case script
}

/// Why a line could not be used as an answer.
public enum InputProblem: Sendable, Equatable {
    /// The bytes are not valid UTF-8.
    case invalidUTF8
    /// The line holds a NUL byte.
    case nulByte
    /// The line is longer than `limit` bytes.
    case tooLong(limit: Int)
}

/// What happens to the wizard: an answer, an unusable line, end of input, an interrupt, a submit's result.
///
/// An answer may be a password: it prints and mirrors as `answer(<redacted>)`.
public enum WizardInput<Success: Sendable>: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// A line typed or read, without its line ending.
    case answer(String)
    /// A line that cannot be an answer.
    case unreadable(InputProblem)
    /// Input ended (Ctrl-D, end of a script).
    case endOfInput
    /// Ctrl-C.
    case interrupt
    /// What the submit sent by ``WizardEffect/submit(_:)`` came to.
    case submitted(SubmitResult<Success>)
    /// What the check asked for by ``WizardEffect/check(field:form:)`` found: no errors when the
    /// answer may stand (the name is free), else the errors to put on the field (`email.taken`).
    case checked(field: String, errors: [FieldError])

    /// The input without an answer's text.
    public var description: String {
        switch self {
        case .answer: "answer(<redacted>)"
        case .unreadable(let problem): "unreadable(\(problem))"
        case .endOfInput: "endOfInput"
        case .interrupt: "interrupt"
        case .submitted(let result): "submitted(\(result))"
        case .checked(let field, let errors): "checked(\(field), \(errors.map(\.code)))"
        }
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// No children: an answer's text is never reflected.
    public var customMirror: Mirror { Mirror(self, children: ["input": description], displayStyle: .enum) }
}

extension WizardInput: Equatable where Success: Equatable {}

/// What a submit came to.
public enum SubmitResult<Success: Sendable>: Sendable {
    /// It succeeded, with the value it produced (an account's id).
    case succeeded(Success)
    /// It was refused: errors of fields (`email.taken`) or of the whole form
    /// (``FieldError/form(code:message:)``), put back on the form.
    case rejected([FieldError])
    /// It could not be carried out now (a full disk, a server down), with a reason for people.
    case unavailable(reason: String)
}

extension SubmitResult: Equatable where Success: Equatable {}

/// A question the wizard asks.
public enum Question: Sendable, Equatable {
    /// A form field, by name.
    case field(String)
    /// The review: submit, cancel or edit (`Create account? [Y/n/e]`).
    case review
    /// Which field to change, after `e` at the review.
    case pickField
    /// `Discard your answers? [y/N]` after an interrupt.
    case discard
    /// `Try again? [Y/n]` after the submit could not be carried out.
    case retry
}

/// A prompt to show, with whether its answer must not be echoed.
public struct Prompt: Sendable, Equatable {
    /// The question behind the prompt.
    public var question: Question
    /// The text to show, such as `Email: `.
    public var text: String
    /// Whether the answer is a secret: masked, never echoed, never in history.
    public var isSecret: Bool
    /// The answer to start editing from (an initial value, a field changed from the review); "" for none.
    /// In a script, what an empty line keeps. Never a secret.
    public var initial: String
    /// What plain mode (a screen reader) shows instead of ``text``: the field's accessibility
    /// description with the same choices and default; nil to show ``text``.
    public var spoken: String?
    /// Whether the answer is one of the letters ``text`` shows in brackets (`[Y/n/e]`, `[y/N]`):
    /// a display that shows a translation's letters there (`[J/n/ä]`) hands back the English
    /// letter of the same place, which is what the wizard reads.
    public var isKeyed: Bool
    /// Whether a terminal may keep the answer for Up to recall: a field's ``Field/isRemembered``.
    public var isRemembered = true

    /// A prompt for `question` showing `text`.
    public init(question: Question, text: String, isSecret: Bool, initial: String = "", isKeyed: Bool = false) {
        self.question = question
        self.text = text
        self.isSecret = isSecret
        self.initial = initial
        self.isKeyed = isKeyed
    }
}

/// One line of the review: a label and what to show for it (never a secret).
public struct ReviewLine: Sendable, Equatable {
    /// The field's label.
    public var label: String
    /// Its value, or for a secret what stands for it (`set`).
    public var value: String
    /// Whether `value` is the answer as given (shown as it is, never translated), rather than
    /// a text of the program's (`set (strong)`).
    public var isAnswer: Bool

    /// A review line; `isAnswer` when `value` is what was answered.
    public init(label: String, value: String, isAnswer: Bool = false) {
        self.label = label
        self.value = value
        self.isAnswer = isAnswer
    }
}

/// A line the wizard shows after an answer, from its after-answer hook.
public enum WizardNote: Sendable, Equatable {
    /// A line of text, such as `Strength: strong`.
    case text(String)
    /// A password's strength.
    case strength(StrengthLevel)
    /// A ✓/✗ list of a field's checks.
    case checklist([CheckStatus])
}

/// How the wizard ended.
public enum WizardOutcome<Success: Sendable>: Sendable {
    /// The submit succeeded with this value.
    case succeeded(Success)
    /// Answers failed their rules (script mode), or the submit refused them.
    case invalid([FieldError])
    /// The person answered `n` at the review.
    case declined
    /// Interrupted, or the answers discarded.
    case cancelled
    /// Input ended before field `field` (shown as `label`) was answered; `errors` are those of the answered fields.
    case incomplete(field: String, label: String, errors: [FieldError])
    /// The submit could not be carried out and the person (or script) gave up.
    case unavailable(reason: String)
}

extension WizardOutcome: Equatable where Success: Equatable {}

/// What the wizard asks its surroundings to do, in order.
public enum WizardEffect<Success: Sendable>: Sendable {
    /// The first line of the conversation.
    case banner(String)
    /// A field's hint (its requirements), shown once before it is first asked.
    case hint(String)
    /// Show a prompt and read an answer.
    case ask(Prompt)
    /// Show the errors of the field just answered, or of the whole form after a submit.
    case errors([FieldError])
    /// Show a note from the after-answer hook (strength, a checklist).
    case note(WizardNote)
    /// Show the review: its title and one line per field it shows.
    case review(title: String, lines: [ReviewLine])
    /// Show the fields that can be changed, numbered from 1.
    case choices([String])
    /// Show a line of guidance or the reason a submit could not be carried out.
    case notice(String)
    /// Check field `field`'s answer beyond its rules, right after it was given (an availability
    /// lookup), then send back ``WizardInput/checked(field:errors:)``. Asked only for the fields
    /// the wizard was told have a check, and only once the answer passes the field's rules.
    case check(field: String, form: Form)
    /// Submit the form (it passed the gate), then send back ``WizardInput/submitted(_:)``.
    case submit(Form)
    /// The wizard is over.
    case finish(WizardOutcome<Success>)
}

extension WizardEffect: Equatable where Success: Equatable {
    /// Effects are equal when they say the same; two submits are equal when their forms hold the same values.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.banner(let a), .banner(let b)), (.hint(let a), .hint(let b)), (.notice(let a), .notice(let b)): a == b
        case (.ask(let a), .ask(let b)): a == b
        case (.errors(let a), .errors(let b)): a == b
        case (.note(let a), .note(let b)): a == b
        case (.review(let a, let c), .review(let b, let d)): a == b && c == d
        case (.choices(let a), .choices(let b)): a == b
        case (.submit(let a), .submit(let b)): a.context.values == b.context.values
        case (.check(let f, let a), .check(let g, let b)): f == g && a.context.values == b.context.values
        case (.finish(let a), .finish(let b)): a == b
        default: false
        }
    }
}

/// The words of a wizard: its banner, review and questions. Every text has a default.
public struct WizardTexts: Sendable {
    /// The first line of the conversation; nil for none.
    public var banner: String?
    /// The title above the review lines.
    public var reviewTitle = Translation.english("Review")
    /// The review's question. Set ``reviewHelp`` with it to say what `y` does in its words: until
    /// then, a question of your own is explained without naming what it does ("Answer y for yes,
    /// n to cancel, or e to change an answer."), never as the default's "y to submit".
    public var reviewQuestion = Translation.english("Submit? [Y/n/e] ")
    /// Explains the review's question, once, and after an answer it does not know.
    public var reviewHelp: String {
        get {
            if let chosenReviewHelp { return chosenReviewHelp }
            return reviewQuestion == Translation.english("Submit? [Y/n/e] ")
                ? Translation.english("Answer y to submit, n to cancel, or e to change an answer.")
                : Translation.english("Answer y for yes, n to cancel, or e to change an answer.")
        }
        set { chosenReviewHelp = newValue }
    }
    /// The help set, if any: without it the help follows the question.
    private var chosenReviewHelp: String?
    /// The question after `e`, given how many fields can be changed.
    public var pickQuestion: @Sendable (_ count: Int) -> String = { Translation.english("Change which? [1-{count}] ", ["count": String($0)]) }
    /// Explains the pick question after an answer it does not know.
    public var pickHelp: @Sendable (_ count: Int) -> String = {
        Translation.english("Enter a number from 1 to {count}, or press Enter to go back.", ["count": String($0)])
    }
    /// Said after `e` when no field can be changed (every field depends on another).
    public var nothingToChange = Translation.english("There is nothing to change here. Answer y to submit or n to cancel.")
    /// The question after Ctrl-C once something was answered.
    public var discardQuestion = Translation.english("Discard your answers? [y/N] ")
    /// The question after a submit could not be carried out.
    public var retryQuestion = Translation.english("Try again? [Y/n] ")
    /// Explains the retry question after an answer it does not know.
    public var retryHelp = Translation.english("Answer y to try again or n to give up.")
    /// The notice after a submit could not be carried out, given its reason.
    public var unavailable: @Sendable (_ reason: String) -> String = { Translation.english("The form could not be submitted: {reason}.", ["reason": $0]) }
    /// What the review shows for a secret that is set.
    public var secretSet = Translation.english("set")

    /// The default texts, with `banner` as the first line.
    public init(banner: String? = nil) {
        self.banner = banner
    }
}
