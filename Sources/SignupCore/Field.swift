/// When a field's errors become visible.
public enum ValidationMode: String, Sendable, Codable {
    /// After the field has been answered (the default: errors are deferred).
    case onChange
    /// At once, even before the field is answered.
    case always
    /// Only after the form has been submitted once.
    case onSubmit
}

/// What a field shows about itself.
public enum FieldState: Sendable, Equatable {
    /// Never answered: nothing to show.
    case idle
    /// Answered, but its errors are not shown yet (``ValidationMode/onSubmit`` before a submit).
    case edited
    /// Answered and every rule passes.
    case valid
    /// Its errors are shown: every failing rule, in order.
    case invalid([FieldError])
}

/// One line of a checklist: a check of a field's rules and whether the current value passes it.
public struct CheckStatus: Sendable, Equatable {
    /// The check, with its label.
    public var check: RuleCheck
    /// The stable code it fails with, such as `password.needsDigit`.
    public var code: String
    /// Whether the current value passes it (never, while the value is empty).
    public var passed: Bool

    /// A line of a checklist.
    public init(check: RuleCheck, code: String, passed: Bool) {
        self.check = check
        self.code = code
        self.passed = passed
    }
}

/// One question of a form: its name, rules and current answer.
///
/// A secret field never shows its value: not in `description`, `debugDescription`, `dump`,
/// `Mirror` or string interpolation.
public struct Field: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The stable name used in codes and JSON, such as `password`.
    public let name: String
    /// The words of its prompt, such as `Confirm password`.
    public var label: String
    /// Its name in the review (`Password`), when the prompt's words do not fit there; nil for ``label``.
    public var reviewLabel: String?
    /// What a screen reader should hear for it, used instead of the prompt's words in plain mode
    /// (`--plain`, `TERM=dumb`): a fuller sentence than a terse label; nil for ``label``.
    public var accessibilityDescription: String?
    /// How it is asked: a line, a yes/no, a choice (from the type of its answers).
    public let promptStyle: PromptStyle
    /// The rules checked in order; every failure is reported.
    public var rules: [Rule]
    /// When its errors become visible.
    public var mode: ValidationMode
    /// Whether its value is a secret: never shown, echoed or printed.
    public let isSecret: Bool
    /// Fields whose change makes this one unanswered again (a confirmation depends on its password).
    public var dependsOn: [String]
    /// Message texts by code (`password.tooShort`) or by reason (`tooShort`) that replace the rules' own.
    public var messages: [String: String]
    /// A line shown before the field is first asked, such as its requirements; nil for none.
    public var hint: String?
    /// Applied to every answer before it is stored and checked (trimming, Unicode normalization).
    public let normalize: @Sendable (String) -> String
    /// The type its answers are read as (`String` unless made with a ``FieldKey``).
    let valueType: ObjectIdentifier
    /// The name of that type, for the message of a key of the wrong type.
    let valueTypeName: String

    /// The value before any answer: "" unless an initial value was given. Not an answer.
    public let initialValue: String
    /// The current answer, normalized (the initial value until answered).
    public internal(set) var value: String
    /// Whether the field has been answered since it was created or last reset.
    public internal(set) var isAnswered = false
    /// Whether the last answer could not be read: only its external errors are reported.
    public internal(set) var isRejected = false
    /// Errors put on the field from outside its rules (the store's `email.taken`), until it changes.
    public internal(set) var externalErrors: [FieldError] = []

    /// A text field named `name` with `rules`; by default errors show once it is answered.
    /// An `initial` value is put on the line to edit; it counts neither as answered nor as dirty.
    /// `label` is its prompt's words; `reviewLabel` its name in the review, `accessibilityDescription`
    /// what plain mode (a screen reader) says instead of the prompt's words; both default to `label`.
    public init(
        name: String,
        label: String? = nil,
        rules: [Rule] = [],
        mode: ValidationMode = .onChange,
        isSecret: Bool = false,
        dependsOn: [String] = [],
        messages: [String: String] = [:],
        hint: String? = nil,
        reviewLabel: String? = nil,
        accessibilityDescription: String? = nil,
        initial: String = "",
        normalize: @escaping @Sendable (String) -> String = { $0 }
    ) {
        self.init(
            name: name, label: label, rules: rules, mode: mode, isSecret: isSecret, dependsOn: dependsOn,
            messages: messages, hint: hint, initialText: initial, normalize: normalize, type: String.self
        )
        self.reviewLabel = reviewLabel
        self.accessibilityDescription = accessibilityDescription
    }

    /// A field whose answers are read as `Value` (a number, yes/no, a choice): the line must
    /// parse (else the type's own code, such as `age.notAWholeNumber`), then `rules` are checked.
    /// Surrounding white space is trimmed before parsing unless `normalize` says otherwise; a line
    /// that parses is kept as its value's own text (`2` for a choice becomes its name, `+7` is `7`),
    /// so the review shows what was chosen. A `Bool` is asked as `Label [y/N]: ` and a choice as
    /// `Label (a, b, c) [a]: `, with `initial` as the default Enter takes (never put on the line).
    public init<Value: AnswerValue>(
        _ key: FieldKey<Value>,
        label: String? = nil,
        rules: [Rule] = [],
        initial: Value? = nil,
        mode: ValidationMode = .onChange,
        isSecret: Bool = false,
        dependsOn: [String] = [],
        messages: [String: String] = [:],
        hint: String? = nil,
        reviewLabel: String? = nil,
        accessibilityDescription: String? = nil,
        normalize: @escaping @Sendable (String) -> String = Field.trimmingWhiteSpace
    ) {
        self.init(
            name: key.name, label: label, rules: [.parses(as: Value.self)] + rules, mode: mode, isSecret: isSecret,
            dependsOn: dependsOn, messages: messages, hint: hint, initialText: initial?.answerText ?? "",
            normalize: { text in
                let line = normalize(text)
                return Value(answer: line)?.answerText ?? line
            },
            type: Value.self
        )
        self.reviewLabel = reviewLabel
        self.accessibilityDescription = accessibilityDescription
    }

    private init<Value: AnswerValue>(
        name: String, label: String?, rules: [Rule], mode: ValidationMode, isSecret: Bool, dependsOn: [String],
        messages: [String: String], hint: String?, initialText: String,
        normalize: @escaping @Sendable (String) -> String, type: Value.Type
    ) {
        precondition(!name.isEmpty, "a field needs a name: \"\" is the whole form's")
        self.name = name
        self.label = label ?? name
        self.rules = rules
        self.mode = mode
        self.isSecret = isSecret
        self.dependsOn = dependsOn
        self.messages = messages
        self.hint = hint
        self.normalize = normalize
        self.valueType = ObjectIdentifier(type)
        self.promptStyle = Value.promptStyle
        self.valueTypeName = "\(type)"
        let initial = normalize(initialText)
        self.initialValue = initial
        self.value = initial
    }

    /// The text without white space at either end: the default for typed fields.
    @Sendable public static func trimmingWhiteSpace(_ text: String) -> String { text.trimmingSpaces }

    /// Whether the value differs from the initial one.
    public var isDirty: Bool { value != initialValue }

    /// Every failing rule for the current value, whether or not it is visible yet.
    public func validate(in context: RuleContext) -> [FieldError] {
        if isRejected { return externalErrors }
        let failures = rules.flatMap { $0.validate(value, in: context) }
        return failures.map { error(for: $0) } + externalErrors
    }

    /// Every check its rules list, with whether the current value passes it: a ✓/✗ checklist.
    public func checklist(in context: RuleContext) -> [CheckStatus] {
        let failing = Set(rules.flatMap { $0.validate(value, in: context) }.map(\.reason))
        return rules.flatMap(\.checks).map { check in
            CheckStatus(check: check, code: "\(name).\(check.reason)", passed: !value.isEmpty && !failing.contains(check.reason))
        }
    }

    private func error(for failure: RuleFailure) -> FieldError {
        let code = "\(name).\(failure.reason)"
        return FieldError(field: name, code: code, message: messages[code] ?? messages[failure.reason] ?? failure.message)
    }

    /// The value as people may see it: `<redacted>` for a secret.
    var shownValue: String { isSecret ? "<redacted>" : value.debugDescription }

    /// The field without a secret's value.
    public var description: String {
        "Field(\(name), value: \(shownValue), answered: \(isAnswered))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// Name, label, value (`<redacted>` for a secret), answered, dirty.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "name": name, "label": label, "value": isSecret ? "<redacted>" : value,
            "isAnswered": isAnswered, "isDirty": isDirty, "isSecret": isSecret,
        ], displayStyle: .struct)
    }
}
