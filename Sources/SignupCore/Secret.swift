/// A password or other secret text that never prints itself.
///
/// Its `description`, `debugDescription` and mirror are redacted, so string
/// interpolation, `print`, `dump` and logging show `<redacted>`. Read the text
/// only where it is needed (checking, comparing, hashing) with ``reveal()``.
public struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let storage: String

    /// Wraps `text` as given; no normalization happens here.
    public init(_ text: String) {
        storage = text
    }

    /// The secret's text. Call only to check, compare or hash it.
    public func reveal() -> String {
        storage
    }

    /// `<redacted>`.
    public var description: String { "<redacted>" }
    /// `Secret(<redacted>)`.
    public var debugDescription: String { "Secret(<redacted>)" }
    /// No children.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
