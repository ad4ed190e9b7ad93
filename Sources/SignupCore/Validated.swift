/// One value checked by ``Rule``s outside any form: `@Validated(.required(), .email()) var email = ""`.
///
/// The projected value tells what the rules say of the current value: `$email.errors`,
/// `$email.isValid`, and `$email.visibleErrors` for a view, which stays empty until the value
/// has changed (or, with `mode: .onSubmit`, until ``validate()``), as a form's deferred errors do.
/// The rules are the same values a ``Field`` takes, over any `Sendable & Equatable` value: an
/// optional (`Int?`, where `.required()` refuses nil), a collection (`[String]`, `Set<Tag>`,
/// with the `count` rules), a number, a choice.
///
/// ```swift
/// struct Profile {
///     @Validated(.required(), .email()) var email = ""
///     @Validated(.required(), .count(atMost: 3)) var tags: Set<String> = []
///     @Validated(.required(), .range(13...120)) var age: Int? = nil
/// }
/// var profile = Profile()
/// profile.email = "ann@"
/// profile.$email.isValid        // false
/// profile.$email.visibleErrors  // the address's error: the value changed
/// profile.$tags.visibleErrors   // []: not changed yet, though it fails `required`
/// profile.$tags.validate()      // false, and now its error is visible
/// ```
///
/// It is a value: copying it copies the value and what is visible. In an `@Observable` class,
/// where the macro takes no property wrapper, declare it as a stored property of this type and
/// read and set ``value``: the class tracks the property as a whole, so a view that shows
/// `model.email.visibleErrors` is told of every change to it.
///
/// ```swift
/// @Observable final class SignUpModel {
///     var email = Validated("", .required(), .email())
/// }
/// model.email.value = "ann@example.com"   // a view reading model.email is redrawn
/// ```
///
/// A rule that reads another field (``Rule/equals(_:message:)``) has no form to read it from
/// here, and stops the program when the value is made.
@propertyWrapper
public struct Validated<Value: Sendable & Equatable>: Sendable {
    /// The value; setting it makes its errors visible (in ``ValidationMode/onChange`` mode).
    public var wrappedValue: Value {
        didSet { isChanged = true }
    }
    /// The rules, every failure reported in order (``Rule/allFailures(_:)``).
    public let rule: Rule<Value>
    /// When its errors become visible.
    public var mode: ValidationMode
    /// Whether the value has been set since it was made or last reset.
    public private(set) var isChanged = false
    /// Whether ``validate()`` was called: from then on its errors are visible, whatever the mode.
    public private(set) var isValidated = false
    /// The value it was made with, which ``reset()`` puts back.
    public let initialValue: Value

    /// `value` checked by `rules` (every failure reported, in order), its errors shown as `mode` says.
    public init(wrappedValue: Value, _ rules: Rule<Value>..., mode: ValidationMode = .onChange) {
        self.init(wrappedValue: wrappedValue, rules: rules, mode: mode)
    }

    /// `value` checked by `rules`, its errors shown as `mode` says.
    public init(wrappedValue: Value, rules: [Rule<Value>], mode: ValidationMode = .onChange) {
        let referenced = rules.flatMap(\.referencedFields)
        precondition(referenced.isEmpty, "a rule of a validated value reads the fields \(referenced.joined(separator: ", ")), which only a form has")
        self.wrappedValue = wrappedValue
        self.initialValue = wrappedValue
        self.rule = .allFailures(rules)
        self.mode = mode
    }

    /// `value` checked by `rules`: the form of a stored property in an `@Observable` class.
    public init(_ value: Value, _ rules: Rule<Value>..., mode: ValidationMode = .onChange) {
        self.init(wrappedValue: value, rules: rules, mode: mode)
    }

    /// The value itself, where it is no property wrapper: the same as ``wrappedValue``.
    public var value: Value {
        get { wrappedValue }
        set { wrappedValue = newValue }
    }

    /// The validated value itself: `$email.errors`, `$email.validate()`.
    public var projectedValue: Validated {
        get { self }
        set { self = newValue }
    }

    /// Every failure of the current value, visible or not: reason (`tooShort`) and message.
    public var errors: [RuleFailure] { rule.evaluate(wrappedValue, in: RuleContext()) }

    /// Whether the current value passes every rule, whether or not its errors are visible yet.
    public var isValid: Bool { errors.isEmpty }

    /// Whether its errors are shown now: once the value changed (``ValidationMode/onChange``),
    /// always (``ValidationMode/always``), or after ``validate()`` (any mode).
    public var showsErrors: Bool {
        switch mode {
        case .always: true
        case .onChange: isChanged || isValidated
        case .onSubmit: isValidated
        }
    }

    /// The failures a view shows now: ``errors`` once ``showsErrors``, else none.
    public var visibleErrors: [RuleFailure] { showsErrors ? errors : [] }

    /// Every check its rules list, with whether the current value passes it (never while it is
    /// empty): a ✓/✗ checklist. Each code is the check's reason.
    public var checklist: [CheckStatus] {
        let failing = Set(rule.evaluateEvery(wrappedValue, in: RuleContext()).map(\.reason))
        let empty = isEmptyValue(wrappedValue)
        return rule.checks.map { CheckStatus(check: $0, code: $0.reason, passed: !empty && !failing.contains($0.reason)) }
    }

    /// Makes its errors visible, as a form's submit does, and returns whether the value passes.
    @discardableResult
    public mutating func validate() -> Bool {
        isValidated = true
        return isValid
    }

    /// Puts back the value it was made with, its errors hidden again.
    public mutating func reset() {
        wrappedValue = initialValue
        isChanged = false
        isValidated = false
    }
}

/// Two validated values are equal when their values and what they show are: the value, the
/// value it was made with, the mode, and whether it changed or was validated. A struct of
/// `@Validated` properties is `Equatable` by synthesis.
///
/// What is visible counts because it is part of the value, as a copy carries it: two that show
/// different errors for the same text are not the same to a view or a test. To ask whether two
/// hold the same data (a profile against the one saved), compare their ``value``s. The rules are
/// not compared: they are functions, which have no equality.
///
/// It is neither `Encodable` nor `Decodable`: the rules are functions and cannot be written,
/// so a decoded value would have none. Encode the ``value``s, and make the validated values
/// again from them with their rules.
extension Validated: Equatable {
    /// Whether both hold the same value and show the same: rules aside, as the extension says.
    public static func == (lhs: Validated, rhs: Validated) -> Bool {
        lhs.wrappedValue == rhs.wrappedValue && lhs.initialValue == rhs.initialValue && lhs.mode == rhs.mode
            && lhs.isChanged == rhs.isChanged && lhs.isValidated == rhs.isValidated
    }
}
