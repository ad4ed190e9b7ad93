/// One failing check of a field: a stable code and a message for people.
///
/// Codes are `field.reason` (`password.tooShort`); they never change. Messages may be
/// improved or overridden, and never contain what was typed into a secret field.
/// An error of the whole form (a submit refused for no one field) has the field name `""`.
public struct FieldError: Sendable, Equatable, Hashable, Codable {
    /// The field's name, such as `password`; `""` for an error of the whole form.
    public var field: String
    /// The stable code, such as `password.tooShort` (or `form.rateLimited` for the whole form).
    public var code: String
    /// The text shown to people.
    public var message: String

    /// An error of field `field` with the stable `code` and a `message` for people.
    public init(field: String, code: String, message: String) {
        self.field = field
        self.code = code
        self.message = message
    }

    /// An error of the whole form, not of one field (a submit refused for a reason of its own).
    public static func form(code: String, message: String) -> FieldError {
        FieldError(field: "", code: code, message: message)
    }

    /// Whether the error belongs to the whole form rather than to one field.
    public var isFormLevel: Bool { field.isEmpty }

    /// The part of the code after the field name, such as `tooShort`.
    public var reason: String {
        code.hasPrefix(field + ".") ? String(code.dropFirst(field.count + 1)) : code
    }
}

/// A failure reported by a rule before it is tied to a field.
public struct RuleFailure: Sendable, Equatable {
    /// The reason, such as `tooShort`; the field turns it into the code `password.tooShort`.
    public var reason: String
    /// The default text shown to people.
    public var message: String

    /// A failure with `reason` and a default `message`.
    public init(reason: String, message: String) {
        self.reason = reason
        self.message = message
    }
}

/// One requirement a rule checks, for a checklist or a hint: the reason it fails with and a short label.
///
/// `RuleCheck(reason: "tooShort", label: "at least 8 characters")`. Rules that only refuse
/// unusual input (`required`, control, invisible or compatibility characters) list none.
public struct RuleCheck: Sendable, Equatable, Hashable {
    /// The reason the rule fails with when this check does not pass, such as `needsDigit`.
    public var reason: String
    /// What the check asks for, in a few words: `a digit`.
    public var label: String

    /// A check failing with `reason`, described by `label`.
    public init(reason: String, label: String) {
        self.reason = reason
        self.label = label
    }
}

/// The values of a form's other fields, for rules that look across fields.
///
/// Prints and mirrors without the values of secret fields.
public struct RuleContext: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The current (normalized) value of every field, by name.
    public var values: [String: String]
    /// The names of the fields whose values are secrets: never printed.
    public var secretFields: Set<String>

    /// A context of `values`, of which those named in `secretFields` are secrets.
    public init(values: [String: String] = [:], secretFields: Set<String> = []) {
        self.values = values
        self.secretFields = secretFields
    }

    /// The value of the field `name`, or `""` when it has none.
    public subscript(field name: String) -> String { values[name] ?? "" }

    /// The values, secrets shown as `<redacted>`, in name order.
    public var description: String {
        let shown = values.keys.sorted().map { "\($0): " + (secretFields.contains($0) ? "<redacted>" : values[$0]!.debugDescription) }
        return "RuleContext(" + shown.joined(separator: ", ") + ")"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The values by name, secrets replaced by `<redacted>`.
    public var customMirror: Mirror {
        let shown = values.keys.sorted().map { (label: Optional($0), value: (secretFields.contains($0) ? "<redacted>" : values[$0]!) as Any) }
        return Mirror(self, children: shown, displayStyle: .struct)
    }
}

/// A check of one value that reports every way it fails, and lists what it checks.
///
/// Rules other than ``required(message:)`` pass on an empty value, so an empty answer
/// reports only that it is required.
public struct Rule: Sendable {
    private let check: @Sendable (String, RuleContext) -> [RuleFailure]
    /// What the rule checks, for a checklist: one entry per reason it can fail with that people design for.
    public let checks: [RuleCheck]
    /// The fields whose values the rule reads (a confirmation reads its password); a form
    /// refuses, at creation, a rule naming a field it does not have.
    public let referencedFields: [String]

    /// A rule from a closure that returns its failures for a value in its context, listing
    /// `checks` and reading the fields `referencing`.
    public init(
        checks: [RuleCheck] = [],
        referencing: [String] = [],
        check: @escaping @Sendable (_ value: String, _ context: RuleContext) -> [RuleFailure]
    ) {
        self.check = check
        self.checks = checks
        self.referencedFields = referencing
    }

    /// Every failure of `value`, in the rule's order.
    public func validate(_ value: String, in context: RuleContext = RuleContext()) -> [RuleFailure] {
        check(value, context)
    }

    /// A rule that fails with `reason` and `message` when `predicate` is false for a non-empty
    /// value; with a `label` it lists that check.
    public static func custom(
        _ reason: String,
        message: String,
        label: String? = nil,
        referencing: [String] = [],
        where predicate: @escaping @Sendable (_ value: String, _ context: RuleContext) -> Bool
    ) -> Rule {
        Rule(checks: label.map { [RuleCheck(reason: reason, label: $0)] } ?? [], referencing: referencing) { value, context in
            value.isEmpty || predicate(value, context) ? [] : [RuleFailure(reason: reason, message: message)]
        }
    }

    /// The same rule with `text` as the message of every failure it reports.
    public func message(_ text: String) -> Rule {
        let check = self.check
        return Rule(checks: checks, referencing: referencedFields) { value, context in
            check(value, context).map { RuleFailure(reason: $0.reason, message: text) }
        }
    }

    /// The same rule with `text` as the label of each check it lists.
    public func label(_ text: String) -> Rule {
        Rule(checks: checks.map { RuleCheck(reason: $0.reason, label: text) }, referencing: referencedFields, check: check)
    }

    /// The labels of the checks of `rules`, joined for one line: `at least 8 characters, a digit`.
    public static func requirements(of rules: [Rule], leavingOut reasons: Set<String> = []) -> String {
        Translation.list(rules.flatMap(\.checks).filter { !reasons.contains($0.reason) }.map(\.label))
    }
}
