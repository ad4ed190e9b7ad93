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

/// One question of a form: its key, rules and current answer.
///
/// A secret field never shows its value: not in `description`, `debugDescription`, `dump`,
/// `Mirror` or string interpolation.
public struct Field: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The stable name used in codes and JSON, such as `password`: its key's name.
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
    /// What its rules check, in order, for a checklist.
    public let checks: [RuleCheck]
    /// When its errors become visible.
    public var mode: ValidationMode
    /// Whether its value is a secret: never shown, echoed or printed.
    public let isSecret: Bool
    /// Whether, while its value is empty, it shows no error before a submit (a disabled button
    /// with no message): it still fails its rules, so the form is not valid. A ``Wizard`` at a
    /// terminal shows the errors of such a field once a person answered it (Enter on its empty line).
    public let isSilentWhileEmpty: Bool
    /// The names of the fields whose change makes this one unanswered again (a confirmation
    /// depends on its password).
    public let dependsOn: [String]
    /// Message texts by code (`password.tooShort`) or by reason (`tooShort`) that replace the rules' own.
    public var messages: [String: String]
    /// A line shown at a terminal before the field is first asked, such as its requirements; nil
    /// for none. A script (``WizardMode/script``) never gets it: its output is a protocol.
    public var hint: String?
    /// Whether a terminal keeps its answers for Up to recall (true); false for a one-time
    /// answer such as a code sent by email, which must not outlive its question.
    public var isRemembered = true
    /// Applied to every answer before it is stored and checked (trimming, Unicode normalization).
    public let normalize: @Sendable (String) -> String
    /// The type its answers are read as.
    let valueType: ObjectIdentifier
    /// The name of that type, for the message of a key of the wrong type.
    let valueTypeName: String
    /// The names of the fields its rules read.
    let referencedFields: [String]
    /// The names of the fields its `mismatch` rules compare it with (a confirmation's password).
    let comparedFields: [String]
    /// Reads a (normalized) line as the field's value; nil when it does not parse (or is empty,
    /// for a type with no empty value). nil for a value a UI sets, which no line stands for.
    private let parse: (@Sendable (String) -> (any Sendable)?)?
    /// Whether two values of the field's type are equal (a field's dirtiness).
    private let sameValue: @Sendable (_ one: (any Sendable)?, _ other: (any Sendable)?) -> Bool
    /// The initial value as its type: what ``isDirty`` compares with and a reset puts back.
    private var initialTypedValue: (any Sendable)?
    /// The failure of a line that does not parse, such as `notAWholeNumber`.
    private let notParsed: RuleFailure
    /// Its rules on a parsed value (nil: none), all failures or, for a checklist, every check.
    private let evaluate: @Sendable (_ value: (any Sendable)?, _ context: RuleContext, _ every: Bool) -> [RuleFailure]

    /// The value before any answer: "" unless an initial value was given. Not an answer.
    public internal(set) var initialValue: String
    /// The current answer as text, normalized (the initial value until answered).
    public private(set) var value: String
    /// The current answer as its type, parsed once when it was given; nil when empty or not parsing.
    private(set) var typedValue: (any Sendable)?
    /// Whether the field has been answered since it was created or last reset.
    public internal(set) var isAnswered = false
    /// Whether the last answer could not be read: only its external errors are reported.
    public internal(set) var isRejected = false
    /// Errors put on the field from outside its rules (the store's `email.taken`), until it changes.
    public internal(set) var externalErrors: [FieldError] = []

    /// The field of `key` with `rules` over its typed value; by default errors show once it is answered.
    ///
    /// The line is read as `Value` once, when answered (else the type's own code, such as
    /// `age.notAWholeNumber`), then `rules` see the typed value. An `initial` value is put on the
    /// line to edit (a yes/no or a choice shows it as the default Enter takes); it counts neither
    /// as answered nor as dirty. `normalize` is applied to every line first: by default nothing
    /// for a text (a password is never trimmed) and white space trimmed at either end for other
    /// types; a line that parses is kept as its value's own text (`2` for a choice becomes its
    /// name, `+7` is `7`), so the review shows what was chosen. `isSilentWhileEmpty` keeps its
    /// errors hidden while it is empty, until a submit (a wizard at a terminal shows them once answered). `label` is its prompt's words;
    /// `reviewLabel` its name in the review, `accessibilityDescription` what plain mode (a screen
    /// reader) says instead of the prompt's words; both default to `label`.
    ///
    /// `messages` replace the texts of failures by code (`age.outOfRange`) or by reason
    /// (`outOfRange`). A key that is another field's code (`agee.outOfRange`), or names a reason
    /// neither the rules nor the type (`notAWholeNumber`) fail with, is a misspelling and stops the
    /// program here; only a rule made from a closure (``Rule/init(checks:referencing:appliesWhenEmpty:check:)``)
    /// does not say which reasons it has, and then any reason is taken.
    public init<Value: AnswerValue>(
        _ key: FieldKey<Value>,
        label: String? = nil,
        rules: [Rule<Value>] = [],
        mode: ValidationMode = .onChange,
        initial: Value? = nil,
        isSecret: Bool = false,
        isSilentWhileEmpty: Bool = false,
        dependsOn: [any FieldReference] = [],
        messages: [String: String] = [:],
        hint: String? = nil,
        reviewLabel: String? = nil,
        accessibilityDescription: String? = nil,
        normalize: (@Sendable (String) -> String)? = nil
    ) {
        let identity: @Sendable (String) -> String = { $0 }
        let given: @Sendable (String) -> String = normalize ?? (Value.self == String.self ? identity : Field.trimmingWhiteSpace)
        let normalize: @Sendable (String) -> String = { text in
            let line = given(text)
            return Value(answer: line)?.answerText ?? line
        }
        let parse: @Sendable (String) -> (any Sendable)? = { text in
            // An empty line is a value only for a type that has an empty one (a text).
            guard let value = Value(answer: text), !text.isEmpty || isEmptyValue(value) else { return nil }
            return value
        }
        let initialText = normalize(initial?.answerText ?? "")
        self.init(
            key, label: label, rules: rules, mode: mode, isSecret: isSecret, isSilentWhileEmpty: isSilentWhileEmpty, dependsOn: dependsOn,
            messages: messages, hint: hint, reviewLabel: reviewLabel, accessibilityDescription: accessibilityDescription,
            read: (Value.promptStyle, normalize, parse, Value.notParsed), initial: (initialText, parse(initialText))
        )
    }

    /// The field of `key`, whose value a UI sets (``Form/answer(_:with:)``,
    /// ``FormModel/answer(_:with:)``): any `Sendable & Equatable` value no line stands for, such
    /// as a colour picked or a point on a map, starting as `initial`. Its rules see the value;
    /// it is dirty when the value differs from `initial` (or from the record an edit form opens
    /// on). A terminal cannot ask it: a ``Wizard`` over a form that has one stops the program when
    /// it is made, before any prompt. Its text is always empty. (A value a line stands for, an
    /// ``AnswerValue``, made this way is not asked at a terminal either.)
    public init<Value: Sendable & Equatable>(
        setByUI key: FieldKey<Value>,
        label: String? = nil,
        rules: [Rule<Value>] = [],
        mode: ValidationMode = .onChange,
        initial: Value,
        isSecret: Bool = false,
        dependsOn: [any FieldReference] = [],
        messages: [String: String] = [:],
        reviewLabel: String? = nil
    ) {
        self.init(
            key, label: label, rules: rules, mode: mode, isSecret: isSecret, isSilentWhileEmpty: false, dependsOn: dependsOn,
            messages: messages, hint: nil, reviewLabel: reviewLabel, accessibilityDescription: nil, read: nil, initial: ("", initial)
        )
    }

    /// How a line is read: the prompt's style, the normalization, the parse and its failure.
    private typealias Reading = (
        style: PromptStyle, normalize: @Sendable (String) -> String, parse: @Sendable (String) -> (any Sendable)?, notParsed: RuleFailure
    )

    /// A field read from a line as `read` says, or set by a UI when `read` is nil.
    private init<Value: Sendable & Equatable>(
        _ key: FieldKey<Value>, label: String?, rules: [Rule<Value>], mode: ValidationMode, isSecret: Bool, isSilentWhileEmpty: Bool,
        dependsOn: [any FieldReference], messages: [String: String], hint: String?, reviewLabel: String?, accessibilityDescription: String?,
        read: Reading?, initial: (text: String, typed: (any Sendable)?)
    ) {
        precondition(!key.name.isEmpty, "a field needs a name: \"\" is the whole form's")
        let all = Rule.allFailures(rules)
        for code in messages.keys {
            guard let reason = Self.reason(of: code, field: key.name) else {
                preconditionFailure("field \(key.name) has a message for \(code), a code of another field")
            }
            precondition(
                all.reasons.map { $0.contains(reason) || reason == read?.notParsed.reason } ?? true,
                "field \(key.name) has a message for \(code), a reason none of its rules fail with"
            )
        }
        self.name = key.name
        self.label = label ?? key.name
        self.reviewLabel = reviewLabel
        self.accessibilityDescription = accessibilityDescription
        self.promptStyle = read?.style ?? .line
        self.checks = rules.flatMap(\.checks)
        self.mode = mode
        self.isSecret = isSecret
        self.isSilentWhileEmpty = isSilentWhileEmpty
        self.dependsOn = dependsOn.map(\.name)
        self.messages = messages
        self.hint = hint
        let identity: @Sendable (String) -> String = { $0 }
        self.normalize = read?.normalize ?? identity
        self.valueType = ObjectIdentifier(Value.self)
        self.valueTypeName = "\(Value.self)"
        self.referencedFields = rules.flatMap(\.referencedFields)
        self.comparedFields = rules.filter { $0.checks.contains { $0.reason == "mismatch" } }.flatMap(\.referencedFields)
        self.parse = read?.parse
        self.sameValue = Self.sameValue(of: Value.self)
        self.notParsed = read?.notParsed ?? RuleFailure(reason: "invalid", message: "")
        self.evaluate = { value, context, every in
            let typed = value as? Value
            return every ? all.evaluateEvery(typed, in: context) : all.evaluate(typed, in: context)
        }
        self.initialValue = initial.text
        self.value = initial.text
        self.typedValue = initial.typed
        self.initialTypedValue = initial.typed
    }

    /// Whether two values, each nil or a `Value`, are equal.
    private static func sameValue<Value: Sendable & Equatable>(of type: Value.Type) -> @Sendable ((any Sendable)?, (any Sendable)?) -> Bool {
        { $0 as? Value == $1 as? Value }
    }

    /// The current value as `Value`, or nil.
    func value<Value>(as type: Value.Type) -> Value? { typedValue as? Value }

    /// Whether it holds the same text and value as `other`.
    func holdsSameValue(as other: Field) -> Bool {
        value == other.value && sameValue(typedValue, other.typedValue)
    }

    /// Whether a terminal can ask it: its value is read from a line (its type is an ``AnswerValue``).
    public var isAskable: Bool { parse != nil }

    /// The reason a `messages:` key of field `field` names (`tooShort` for `password.tooShort` or
    /// `tooShort`); nil for a code of another field.
    static func reason(of code: String, field: String) -> String? {
        if code.hasPrefix(field + ".") { return String(code.dropFirst(field.count + 1)) }
        return code.contains(".") ? nil : code
    }

    /// The entries of `messages` (a table shared by several fields, such as a policy's) that a
    /// field of `key` with `rules` can use: its own codes and the reasons it fails with.
    static func messages<Value: AnswerValue>(_ messages: [String: String], for key: FieldKey<Value>, rules: [Rule<Value>]) -> [String: String] {
        let reasons = Rule.allFailures(rules).reasons
        return messages.filter { code, _ in
            guard let reason = reason(of: code, field: key.name) else { return false }
            return reasons.map { $0.contains(reason) || reason == Value.notParsed.reason } ?? true
        }
    }

    /// Sets the current answer's text (already normalized) and the value it stands for.
    mutating func assign(_ text: String) {
        precondition(isAskable, "field \(name) holds a value a UI sets, not a line: set it with answer(_:with:)")
        value = text
        typedValue = parse?(text)
    }

    /// Sets the current value of a field no line stands for.
    mutating func assign(typed value: any Sendable) {
        typedValue = value
    }

    /// Makes `text` (already normalized), or for a field no line stands for `typed`, the initial
    /// value and the current one.
    mutating func open(on text: String, typed: (any Sendable)?) {
        if isAskable {
            assign(text)
        } else {
            typedValue = typed
        }
        initialValue = value
        initialTypedValue = typedValue
    }

    /// Makes the current value the initial one: what ``isDirty`` compares with from now on.
    mutating func keepAsInitial() {
        initialValue = value
        initialTypedValue = typedValue
    }

    /// Puts the initial value back.
    mutating func restoreInitial() {
        value = initialValue
        typedValue = initialTypedValue
    }

    /// The text without white space at either end: the default for fields of types other than `String`.
    @Sendable public static func trimmingWhiteSpace(_ text: String) -> String { text.trimmingSpaces }

    /// Whether the value differs from the initial one.
    public var isDirty: Bool { value != initialValue || !sameValue(typedValue, initialTypedValue) }

    /// Whether it holds no value: an empty text or collection, nil, an empty line.
    var isEmpty: Bool { isAskable ? value.isEmpty : isEmptyValue(typedValue) }

    /// Every failing rule for the current value, whether or not it is visible yet.
    public func validate(in context: RuleContext) -> [FieldError] {
        if isRejected { return externalErrors }
        return failures(in: context, every: false).map { error(for: $0) } + externalErrors
    }

    /// Every check its rules list, with whether the current value passes it: a ✓/✗ checklist.
    public func checklist(in context: RuleContext) -> [CheckStatus] {
        let failing = Set(failures(in: context, every: true).map(\.reason))
        return checks.map { check in
            CheckStatus(check: check, code: "\(name).\(check.reason)", passed: !isEmpty && !failing.contains(check.reason))
        }
    }

    /// A line that does not parse fails with the type's reason alone; otherwise the rules see the value.
    private func failures(in context: RuleContext, every: Bool) -> [RuleFailure] {
        if !value.isEmpty && typedValue == nil { return [notParsed] }
        return evaluate(typedValue, context, every)
    }

    private func error(for failure: RuleFailure) -> FieldError {
        let code = "\(name).\(failure.reason)"
        return FieldError(field: name, code: code, message: messages[code] ?? messages[failure.reason] ?? failure.message, spokenMessage: failure.spokenMessage)
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
