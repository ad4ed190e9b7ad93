/// One failing check of a field: a stable code and a message for people.
///
/// Codes are `field.reason` (`password.tooShort`); they never change. Messages may be
/// improved or overridden, and never contain what was typed into a secret field.
public struct FieldError: Sendable, Equatable, Hashable, Codable {
    /// The field's name, such as `password`.
    public var field: String
    /// The stable code, such as `password.tooShort`.
    public var code: String
    /// The text shown to people.
    public var message: String

    public init(field: String, code: String, message: String) {
        self.field = field
        self.code = code
        self.message = message
    }

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

    public init(reason: String, message: String) {
        self.reason = reason
        self.message = message
    }
}

/// The values of a form's other fields, for rules that look across fields.
public struct RuleContext: Sendable {
    /// The current (normalized) value of every field, by name.
    public var values: [String: String]

    public init(values: [String: String] = [:]) {
        self.values = values
    }

    /// The value of the field `name`, or `""` when it has none.
    public subscript(field name: String) -> String { values[name] ?? "" }
}

/// A check of one value that reports every way it fails.
///
/// Rules other than ``required(message:)`` pass on an empty value, so an empty answer
/// reports only that it is required.
public struct Rule: Sendable {
    private let check: @Sendable (String, RuleContext) -> [RuleFailure]

    /// A rule from a closure that returns its failures for a value in its context.
    public init(check: @escaping @Sendable (_ value: String, _ context: RuleContext) -> [RuleFailure]) {
        self.check = check
    }

    /// Every failure of `value`, in the rule's order.
    public func validate(_ value: String, in context: RuleContext = RuleContext()) -> [RuleFailure] {
        check(value, context)
    }

    /// A rule that fails with `reason` and `message` when `predicate` is false for a non-empty value.
    public static func custom(
        _ reason: String,
        message: String,
        where predicate: @escaping @Sendable (_ value: String, _ context: RuleContext) -> Bool
    ) -> Rule {
        Rule { value, context in
            value.isEmpty || predicate(value, context) ? [] : [RuleFailure(reason: reason, message: message)]
        }
    }

    /// The same rule with `text` as the message of every failure it reports.
    public func message(_ text: String) -> Rule {
        let check = self.check
        return Rule { value, context in
            check(value, context).map { RuleFailure(reason: $0.reason, message: text) }
        }
    }
}
