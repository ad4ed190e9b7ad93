/// The five strength levels shown after a password.
public enum StrengthLevel: Int, Sendable, Comparable, CaseIterable, Codable {
    /// Below 28 bits.
    case veryWeak
    /// 28 to 36 bits.
    case weak
    /// 36 to 60 bits.
    case reasonable
    /// 60 to 128 bits.
    case strong
    /// 128 bits and more.
    case veryStrong

    /// The level for an estimate in bits: below 28, 36, 60, 128, then 128 and above.
    public init(bits: Double) {
        switch bits {
        case ..<28: self = .veryWeak
        case ..<36: self = .weak
        case ..<60: self = .reasonable
        case ..<128: self = .strong
        default: self = .veryStrong
        }
    }

    /// The words shown to people: "very weak" … "very strong".
    public var label: String {
        switch self {
        case .veryWeak: Translation.english("very weak")
        case .weak: Translation.english("weak")
        case .reasonable: Translation.english("reasonable")
        case .strong: Translation.english("strong")
        case .veryStrong: Translation.english("very strong")
        }
    }

    /// The level named by its label or its camel-case name (`"very strong"`, `"veryStrong"`).
    public init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.label == name || "\($0)" == name }) else { return nil }
        self = level
    }

    /// Weaker levels come first.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// What a strength estimator found in a password.
public struct StrengthEstimate: Sendable, Equatable {
    /// The estimated entropy in bits.
    public var bits: Double
    /// Whether one dictionary match covers the whole password (a common password).
    public var isCommon: Bool

    /// An estimate of `bits`, common or not.
    public init(bits: Double, isCommon: Bool) {
        self.bits = bits
        self.isCommon = isCommon
    }

    /// The level for these bits: below 28, 36, 60 and 128 bits, then 128 and above.
    public var level: StrengthLevel { StrengthLevel(bits: bits) }
}

/// The seam through which the core asks how strong a password is.
///
/// The core links no password library: the zxcvbn-backed estimator is `StrengthEstimator.zxcvbn` in `PasswordStrength`.
public struct StrengthEstimator: Sendable {
    /// Estimates `password`, counting `userWords` (such as the email's local part) as known words.
    public var estimate: @Sendable (_ password: String, _ userWords: [String]) -> StrengthEstimate

    /// An estimator from its function.
    public init(estimate: @escaping @Sendable (_ password: String, _ userWords: [String]) -> StrengthEstimate) {
        self.estimate = estimate
    }
}
