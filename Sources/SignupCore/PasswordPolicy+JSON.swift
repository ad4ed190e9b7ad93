/// Why a policy file could not be used.
public struct PolicyFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, for people (the caller adds the file's name).
    public var description: String

    /// An error saying `description`.
    public init(_ description: String) {
        self.description = description
    }
}

/// A policy read from a JSON file, and the blocklist file it names, if any.
///
/// The format is `signup-policy(5)`'s, the file `signup --policy-file` reads. Hand
/// ``init(json:)`` the file's bytes however your program reads them; SignupCore reads the JSON
/// itself and needs no Foundation:
///
/// ```swift
/// let bytes: [UInt8] = …  // the file's contents (Foundation's `Data` works too)
/// do {
///     var file = try PolicyFile(json: bytes)
///     // blocklistFile, if set, names a file of words, relative to the policy file's folder.
///     if file.blocklistFile != nil { file.policy.blockedWords += PolicyFile.words(inBlocklist: blocklistText) }
///     let form = SignupForm.make(policy: file.policy, strength: .zxcvbn)  // .zxcvbn: PasswordStrength
/// } catch {
///     print("policy.json cannot be used: \(error)")  // such as: "minLength" must be a whole number
/// }
/// ```
public struct PolicyFile: Sendable, Equatable {
    /// The policy, with the file's blocked words but not yet the blocklist file's.
    public var policy: PasswordPolicy
    /// The `blocklistFile` entry as written (relative paths are relative to the policy file).
    public var blocklistFile: String?

    /// The keys a policy file may hold.
    public static let keys: Set<String> = [
        "name", "base", "minLength", "maxLength", "require", "minimumStrength",
        "rejectCommon", "rejectEmailLocalPart", "blockedWords", "blocklistFile", "messages", "argon2",
    ]

    /// Parses a policy file's JSON; unknown keys, keys given twice, wrong types and impossible values are errors.
    ///
    /// `json` is the file's bytes, UTF-8: a `[UInt8]`, or Foundation's `Data`. A byte order mark
    /// at the start, which some editors write, is skipped.
    public init(json: some Collection<UInt8>) throws(PolicyFileError) {
        let parsed: JSONValue
        do {
            parsed = try JSONValue(parsing: json.starts(with: [0xEF, 0xBB, 0xBF]) ? json.dropFirst(3) : json[...])
        } catch {
            throw PolicyFileError("it is not valid JSON (\(Self.reason(error.reason)))")
        }
        guard case .object(let members) = parsed else { throw PolicyFileError("the file must hold one JSON object") }
        let object = try Self.table(members)
        let unknown = Set(object.keys).subtracting(Self.keys).sorted()
        guard unknown.isEmpty else {
            throw PolicyFileError("unknown key \(unknown.map { "\"\(VisibleText.of($0))\"" }.joined(separator: ", ")); known keys: \(Self.keys.sorted().joined(separator: ", "))")
        }

        let baseName = try Self.string(object, "base") ?? "standard"
        guard var policy = PasswordPolicy.builtIn[baseName] else {
            throw PolicyFileError("\"base\" must be one of \(PasswordPolicy.builtIn.keys.sorted().joined(separator: ", "))")
        }
        policy.name = try Self.string(object, "name") ?? "custom"
        if let value = try Self.integer(object, "minLength") { policy.minLength = value }
        if let value = try Self.integer(object, "maxLength") { policy.maxLength = value }
        guard policy.minLength >= 1, policy.maxLength >= policy.minLength else {
            throw PolicyFileError("\"minLength\" must be at least 1 and no more than \"maxLength\"")
        }
        if let names = try Self.strings(object, "require") {
            policy.requiredClasses = []
            for name in names {
                guard let value = PasswordPolicy.CharacterClass(rawValue: name) else {
                    throw PolicyFileError("\"require\" may hold only \(PasswordPolicy.CharacterClass.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(VisibleText.of(name))\"")
                }
                policy.requiredClasses.append(value)
            }
        }
        if let name = try Self.string(object, "minimumStrength") {
            guard let level = StrengthLevel(name: name) else {
                throw PolicyFileError("\"minimumStrength\" must be one of \(StrengthLevel.allCases.map { "\"\($0.label)\"" }.joined(separator: ", "))")
            }
            policy.minimumStrength = level
        }
        if let value = try Self.bool(object, "rejectCommon") { policy.rejectsCommon = value }
        if let value = try Self.bool(object, "rejectEmailLocalPart") { policy.rejectsEmailLocalPart = value }
        if let words = try Self.strings(object, "blockedWords") { policy.blockedWords = words }
        if let messages = object["messages"] {
            guard case .object(let members) = messages else { throw Self.notATable }
            policy.messages = [:]
            for (code, value) in try Self.table(members) {
                guard case .string(let text) = value else { throw Self.notATable }
                // Shown at a terminal: a file's escape sequences must not reach it.
                policy.messages[code] = VisibleText.of(text)
            }
        }
        if let costs = object["argon2"] { policy.argon2 = try Self.argon2(costs) }
        self.policy = policy
        self.blocklistFile = try Self.string(object, "blocklistFile")
    }

    /// The words of a blocklist file: one a line, blank lines and lines starting with `#` skipped.
    public static func words(inBlocklist text: String) -> [String] {
        text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingBlanks() }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// `{"memoryKiB": 19456, "iterations": 2, "parallelism": 1}`; a key left out keeps the default.
    private static func argon2(_ value: JSONValue) throws(PolicyFileError) -> PasswordPolicy.Argon2Costs {
        let (low, high) = (PasswordPolicy.Argon2Costs.minimum, PasswordPolicy.Argon2Costs.maximum)
        let problem = PolicyFileError("\"argon2\" must be an object with whole numbers memoryKiB (\(low.memoryKiB) to \(high.memoryKiB)), "
            + "iterations (\(low.iterations) to \(high.iterations)) and parallelism (\(low.parallelism) to \(high.parallelism)), memoryKiB at least 8 × parallelism")
        guard case .object(let members) = value else { throw problem }
        let object = try table(members)
        guard Set(object.keys).isSubset(of: ["memoryKiB", "iterations", "parallelism"]) else { throw problem }
        var costs = PasswordPolicy.Argon2Costs.standard
        do throws(PolicyFileError) {
            costs.memoryKiB = try integer(object, "memoryKiB") ?? costs.memoryKiB
            costs.iterations = try integer(object, "iterations") ?? costs.iterations
            costs.parallelism = try integer(object, "parallelism") ?? costs.parallelism
        } catch {
            throw problem
        }
        guard (low.memoryKiB...high.memoryKiB).contains(costs.memoryKiB), (low.iterations...high.iterations).contains(costs.iterations),
              (low.parallelism...high.parallelism).contains(costs.parallelism), costs.memoryKiB >= 8 * costs.parallelism else { throw problem }
        return costs
    }

    private static let notATable = PolicyFileError("\"messages\" must map codes to texts, like {\"password.tooShort\": \"…\"}")

    /// An object's members by key; a key given twice is an error, not a value silently dropped.
    private static func table(_ members: [JSONMember]) throws(PolicyFileError) -> [String: JSONValue] {
        var table: [String: JSONValue] = [:]
        for member in members {
            guard table.updateValue(member.value, forKey: member.key) == nil else {
                throw PolicyFileError("the key \"\(VisibleText.of(member.key))\" is given twice")
            }
        }
        return table
    }

    /// What a person fixes in the file, for each way bytes are not JSON.
    private static func reason(_ reason: JSONError.Reason) -> String {
        switch reason {
        case .syntax: "a character that cannot come where it is, or the file ends too early"
        case .controlCharacter: "a control character inside a string: write it as \\u followed by 4 hex digits"
        case .invalidUTF8: "bytes that are not UTF-8"
        case .loneSurrogate: "a \\u escape that is half of a surrogate pair"
        case .numberOutOfRange: "a number too large to be one"
        case .tooDeep: "arrays and objects nested more than \(JSONReader.maximumDepth) deep"
        }
    }

    private static func string(_ object: [String: JSONValue], _ key: String) throws(PolicyFileError) -> String? {
        guard let value = object[key] else { return nil }
        guard case .string(let text) = value else { throw PolicyFileError("\"\(key)\" must be a string") }
        return text
    }

    private static func integer(_ object: [String: JSONValue], _ key: String) throws(PolicyFileError) -> Int? {
        guard let value = object[key] else { return nil }
        if case .integer(let integer) = value { return integer }
        // 8.0 and 1e1 are whole numbers too.
        if case .number(let number) = value, let integer = Int(exactly: number) { return integer }
        // 1e30 and 99999999999999999999 are whole numbers too, only out of any setting's range.
        if case .number(let number) = value, number.isFinite, number == number.rounded() {
            throw PolicyFileError("\"\(key)\" is out of range")
        }
        throw PolicyFileError("\"\(key)\" must be a whole number")
    }

    private static func bool(_ object: [String: JSONValue], _ key: String) throws(PolicyFileError) -> Bool? {
        guard let value = object[key] else { return nil }
        guard case .bool(let flag) = value else { throw PolicyFileError("\"\(key)\" must be true or false") }
        return flag
    }

    private static func strings(_ object: [String: JSONValue], _ key: String) throws(PolicyFileError) -> [String]? {
        guard let value = object[key] else { return nil }
        guard case .array(let list) = value else { throw PolicyFileError("\"\(key)\" must be a list of strings") }
        var texts: [String] = []
        for item in list {
            guard case .string(let text) = item else { throw PolicyFileError("\"\(key)\" must be a list of strings") }
            texts.append(text)
        }
        return texts
    }
}
