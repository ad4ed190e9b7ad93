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
public enum WizardInput: Sendable, Equatable {
    case answer(String)
    case unreadable(InputProblem)
    case endOfInput
    case interrupt
    case submitted(SubmitResult)
}

/// What the store said about a submit.
public enum SubmitResult: Sendable, Equatable {
    case created(id: Int64)
    case emailTaken
    case unavailable(reason: String)
}

/// A question the wizard asks.
public enum Question: Sendable, Equatable {
    /// A form field, by name.
    case field(String)
    /// `Create account? [Y/n/e]`
    case review
    /// Which field to change, after `e` at the review.
    case pickField
    /// `Discard your answers? [y/N]` after an interrupt.
    case discard
    /// `Try again? [Y/n]` after the store failed.
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
    /// The answer to start editing from (a field changed from the review); "" for none. Never a secret.
    public var initial: String

    public init(question: Question, text: String, isSecret: Bool, initial: String = "") {
        self.question = question
        self.text = text
        self.isSecret = isSecret
        self.initial = initial
    }
}

/// One line of the review: a label and what to show for it (never a secret).
public struct ReviewLine: Sendable, Equatable {
    public var label: String
    public var value: String

    public init(label: String, value: String) {
        self.label = label
        self.value = value
    }
}

/// What to store: the email as entered (trimmed, NFC) and the password (NFC, which its rules made equal to its NFKC form).
public struct Submission: Sendable, Equatable {
    public var email: String
    public var password: Secret
    public var strength: StrengthLevel

    public init(email: String, password: Secret, strength: StrengthLevel) {
        self.email = email
        self.password = password
        self.strength = strength
    }
}

/// How the wizard ended.
public enum Outcome: Sendable, Equatable {
    /// The account was created.
    case created(email: String, id: Int64, strength: StrengthLevel)
    /// Answers failed their rules (script mode), or the email was taken.
    case invalid([FieldError])
    /// The person answered `n` at the review.
    case declined
    /// Interrupted, or the answers discarded.
    case cancelled
    /// Input ended before field `field` (shown as `label`) was answered.
    case incomplete(field: String, label: String, errors: [FieldError])
    /// The store failed and the person (or script) gave up.
    case storageFailed(reason: String)
}

/// What the wizard asks its surroundings to do, in order.
public enum WizardEffect: Sendable, Equatable {
    /// The first line of the conversation.
    case banner(String)
    /// Show a prompt and read an answer.
    case ask(Prompt)
    /// Show the errors of the field just answered.
    case errors([FieldError])
    /// Show the password's strength.
    case strength(StrengthLevel)
    /// Show the review.
    case review([ReviewLine])
    /// Show the fields that can be changed, numbered from 1.
    case choices([String])
    /// Show a line of guidance or a store failure.
    case notice(String)
    /// Store the account, then send back ``WizardInput/submitted(_:)``.
    case submit(Submission)
    /// The wizard is over.
    case finish(Outcome)
}
