#if canImport(SwiftUI)
import SwiftUI

/// ``Validated`` for a SwiftUI view: its value and what it shows live in the view's state, so they
/// survive the view being made again, and `$name` is the `Binding` a `TextField` takes.
///
/// ```swift
/// struct ProfileView: View {
///     @ValidatedState(.required(), .count(atMost: 20)) var name = ""
///
///     var body: some View {
///         TextField("Name", text: $name)
///         ForEach(_name.visibleErrors, id: \.reason) { Text($0.message).accessibilityLabel($0.accessibilityLabel) }
///         Button("Save") { if _name.validate() { save(name) } }
///     }
/// }
/// ```
///
/// A plain `@Validated` in a view is a value made again with the view: what it showed would be
/// lost at each redraw, as `@Validate`'s state is kept only because it is `@State` inside.
///
/// Only where SwiftUI is (Apple platforms): on Linux this type does not exist and
/// `@ValidatedState` is an unknown attribute. Use ``Validated`` or a ``FormModel`` there.
@propertyWrapper
public struct ValidatedState<Value: Sendable & Equatable>: DynamicProperty {
    @State private var storage: Validated<Value>

    /// `value` checked by `rules` (every failure reported, in order), its errors shown as `mode` says.
    public init(wrappedValue: Value, _ rules: Rule<Value>..., mode: ValidationMode = .onChange) {
        _storage = State(initialValue: Validated(wrappedValue: wrappedValue, rules: rules, mode: mode))
    }

    /// The value; setting it redraws the view and, in ``ValidationMode/onChange`` mode, makes its errors visible.
    public var wrappedValue: Value {
        get { storage.value }
        nonmutating set { storage.value = newValue }
    }

    /// A binding to the value: `TextField("Name", text: $name)`.
    public var projectedValue: Binding<Value> { $storage.value }

    /// The validated value as it is now: its errors, what it shows, its checklist.
    public var validated: Validated<Value> { storage }

    /// Every failure of the current value, visible or not.
    public var errors: [RuleFailure] { storage.errors }

    /// The failures a view shows now (see ``Validated/visibleErrors``).
    public var visibleErrors: [RuleFailure] { storage.visibleErrors }

    /// Whether the current value passes every rule.
    public var isValid: Bool { storage.isValid }

    /// Makes its errors visible, as a submit does, and returns whether the value passes.
    @discardableResult
    public func validate() -> Bool { storage.validate() }

    /// Puts back the value it was made with, its errors hidden again.
    public func reset() { storage.reset() }
}
#endif
