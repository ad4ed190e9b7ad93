/// What a password must be: lengths, character classes, strength and words to avoid.
public struct PasswordPolicy: Sendable, Equatable {
    /// A character class a policy can require.
    public enum CharacterClass: String, Sendable, CaseIterable, Codable {
        /// A number (`password.needsDigit`).
        case digit
        /// An uppercase letter (`password.needsUppercase`).
        case uppercase
        /// A lowercase letter (`password.needsLowercase`).
        case lowercase
        /// Neither a letter, a number nor white space (`password.needsSymbol`).
        case symbol
    }

    /// The policy's name, such as `standard`.
    public var name: String
    /// The fewest characters allowed.
    public var minLength: Int
    /// The most characters allowed.
    public var maxLength: Int
    /// Classes the password must contain, each reported with its own code.
    public var requiredClasses: [CharacterClass]
    /// The weakest strength accepted (`password.tooWeak` below it).
    public var minimumStrength: StrengthLevel
    /// Whether a password found whole in the dictionaries fails (`password.common`).
    public var rejectsCommon: Bool
    /// Whether a password holding the email's local part fails (`password.containsEmail`).
    public var rejectsEmailLocalPart: Bool
    /// Words no password may contain (`password.blockedWord`).
    public var blockedWords: [String]
    /// Message texts by code, replacing the default ones.
    public var messages: [String: String]
    /// The Argon2id costs new hashes are made with; a stored hash is made again with them when its
    /// password is next verified only if they ask for no less memory and no fewer passes, and more of one.
    public var argon2 = Argon2Costs.standard

    /// Argon2id's costs: memory in KiB, passes and lanes.
    public struct Argon2Costs: Sendable, Hashable {
        /// Memory cost in KiB.
        public var memoryKiB: Int
        /// Number of passes.
        public var iterations: Int
        /// Number of lanes.
        public var parallelism: Int

        /// Costs from their parts.
        public init(memoryKiB: Int, iterations: Int, parallelism: Int) {
            self.memoryKiB = memoryKiB
            self.iterations = iterations
            self.parallelism = parallelism
        }

        /// OWASP's first Argon2id recommendation, every policy's default: m=19456 KiB, t=2, p=1.
        public static let standard = Argon2Costs(memoryKiB: 19456, iterations: 2, parallelism: 1)
        /// The least a policy may ask for (OWASP's lowest recommendation's memory at its passes).
        public static let minimum = Argon2Costs(memoryKiB: 7168, iterations: 1, parallelism: 1)
        /// The most a policy may ask for, and a stored hash may demand (1 GiB, 64 passes, 64 lanes).
        public static let maximum = Argon2Costs(memoryKiB: 1 << 20, iterations: 64, parallelism: 64)
    }

    /// A policy from its parts; see ``standard``, ``strict`` and ``nist``.
    public init(
        name: String,
        minLength: Int,
        maxLength: Int = 1024,
        requiredClasses: [CharacterClass] = [],
        minimumStrength: StrengthLevel = .reasonable,
        rejectsCommon: Bool = false,
        rejectsEmailLocalPart: Bool = false,
        blockedWords: [String] = [],
        messages: [String: String] = [:]
    ) {
        self.name = name
        self.minLength = minLength
        self.maxLength = maxLength
        self.requiredClasses = requiredClasses
        self.minimumStrength = minimumStrength
        self.rejectsCommon = rejectsCommon
        self.rejectsEmailLocalPart = rejectsEmailLocalPart
        self.blockedWords = blockedWords
        self.messages = messages
    }

    /// At least 8 characters with a digit and an uppercase letter, strength at least reasonable.
    public static let standard = PasswordPolicy(name: "standard", minLength: 8, requiredClasses: [.digit, .uppercase])

    /// At least 12 characters with every class, strength at least reasonable.
    public static let strict = PasswordPolicy(name: "strict", minLength: 12, requiredClasses: [.uppercase, .lowercase, .digit, .symbol])

    /// NIST SP 800-63B rev. 4 for a single-factor password: 15 or more characters, no
    /// composition rules, not common, not built on the email.
    public static let nist = PasswordPolicy(name: "nist", minLength: 15, rejectsCommon: true, rejectsEmailLocalPart: true)

    /// The built-in policies by name.
    public static let builtIn: [String: PasswordPolicy] = [standard.name: standard, strict.name: strict, nist.name: nist]

    /// The rules of the password field under this policy, in the order they report; with
    /// `emailField`, the email in that field counts against the password (`containsEmail`, strength).
    public func rules(strength estimator: StrengthEstimator, emailField: FieldKey<String>? = nil) -> [Rule<String>] {
        var rules: [Rule<String>] = [.required(message: Translation.english("Enter a password")), .minLength(minLength), .maxLength(maxLength)]
        for requirement in requiredClasses {
            switch requirement {
            case .digit: rules.append(.containsDigit())
            case .uppercase: rules.append(.containsUppercase())
            case .lowercase: rules.append(.containsLowercase())
            case .symbol: rules.append(.containsSymbol())
            }
        }
        // In every policy, built-in or from a file: the characters that other software would hash differently.
        rules += [.noControlCharacters(), .noInvisibleCharacters(), .noCompatibilityCharacters()]
        if rejectsCommon { rules.append(.notCommon(estimator: estimator)) }
        if rejectsEmailLocalPart, let emailField { rules.append(.notContainingEmail(field: emailField)) }
        if !blockedWords.isEmpty { rules.append(.notContaining(words: blockedWords)) }
        rules.append(.strength(atLeast: minimumStrength, estimator: estimator, emailField: emailField))
        return rules
    }

    /// The reasons that judge strength rather than form; the strength line is shown when only these fail.
    public static let strengthReasons: Set<String> = ["tooWeak", "common", "containsEmail", "blockedWord"]
}
