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

/// One question of a form: its name, rules and current answer.
public struct Field: Sendable, CustomStringConvertible {
    /// The stable name used in codes and JSON, such as `password`.
    public let name: String
    /// The words of its prompt, such as `Confirm password`.
    public var label: String
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
    /// Applied to every answer before it is stored and checked (trimming, Unicode normalization).
    public let normalize: @Sendable (String) -> String

    /// The current answer, normalized.
    public internal(set) var value: String = ""
    /// Whether the field has been answered since it was created or last reset.
    public internal(set) var isAnswered = false
    /// Whether the value differs from the initial one.
    public internal(set) var isDirty = false
    /// Whether the last answer could not be read: only its external errors are reported.
    public internal(set) var isRejected = false
    /// Errors put on the field from outside its rules (the store's `email.taken`), until it changes.
    public internal(set) var externalErrors: [FieldError] = []

    /// A field named `name` with `rules`; by default errors show once it is answered.
    public init(
        name: String,
        label: String? = nil,
        rules: [Rule] = [],
        mode: ValidationMode = .onChange,
        isSecret: Bool = false,
        dependsOn: [String] = [],
        messages: [String: String] = [:],
        normalize: @escaping @Sendable (String) -> String = { $0 }
    ) {
        self.name = name
        self.label = label ?? name
        self.rules = rules
        self.mode = mode
        self.isSecret = isSecret
        self.dependsOn = dependsOn
        self.messages = messages
        self.normalize = normalize
    }

    /// Every failing rule for the current value, whether or not it is visible yet.
    public func validate(in context: RuleContext) -> [FieldError] {
        if isRejected { return externalErrors }
        let failures = rules.flatMap { $0.validate(value, in: context) }
        return failures.map { failure in
            let code = "\(name).\(failure.reason)"
            return FieldError(field: name, code: code, message: messages[code] ?? messages[failure.reason] ?? failure.message)
        } + externalErrors
    }

    /// A secret field describes itself without its value.
    public var description: String {
        "Field(\(name), value: \(isSecret ? "<redacted>" : value.debugDescription), answered: \(isAnswered))"
    }
}
