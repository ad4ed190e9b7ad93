import CArgon2
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SignupCore

/// Argon2id password hashing in PHC string form, through libargon2.
///
/// Parameters follow OWASP's first Argon2id recommendation: m=19456 KiB, t=2,
/// p=1, with 16 bytes of salt and 32 bytes of hash, for example
/// `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>` (base64 without padding).
public enum PasswordHasher {
    /// Memory cost in KiB.
    public static let memoryKiB: UInt32 = 19456
    /// Number of passes.
    public static let iterations: UInt32 = 2
    /// Number of lanes.
    public static let parallelism: UInt32 = 1
    /// Bytes of random salt.
    public static let saltLength = 16
    /// Bytes of hash output.
    public static let hashLength = 32

    /// A hash of a random, forgotten password with the same parameters, for
    /// ``verifyAgainstDummy(_:)``. Made once with argon2-cffi.
    static let dummyHash = "$argon2id$v=19$m=19456,t=2,p=1$fDrvCif65SBH/H0cV8DV5A$bDl+52ilpN/fVwAQxB3cWTzUseq7UBeBxZVGE2oCUOg"

    /// Hashes the NFC form of `password` with a fresh random salt; the corresponding C function is `argon2id_hash_encoded`.
    ///
    /// The salt comes from `SystemRandomNumberGenerator` (`getrandom(2)` on
    /// Linux). Errors never contain the password.
    public static func hash(_ password: Secret, costs: PasswordPolicy.Argon2Costs = .standard) throws(StoreError) -> PasswordHash {
        // libargon2 is loaded here, the first time (Sources/CArgon2).
        if let failure = cargon2_failure() { throw .unavailable(reason: "cannot hash the password: \(String(cString: failure))") }
        let bytes = Array(normalized(password).utf8)
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<saltLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let (iterations, memoryKiB, parallelism) = (UInt32(costs.iterations), UInt32(costs.memoryKiB), UInt32(costs.parallelism))
        let length = argon2_encodedlen(
            iterations, memoryKiB, parallelism, UInt32(saltLength), UInt32(hashLength), Argon2_id
        )
        var encoded = [CChar](repeating: 0, count: length)
        let code = argon2id_hash_encoded(
            iterations, memoryKiB, parallelism,
            bytes, bytes.count,
            salt, salt.count,
            hashLength,
            &encoded, encoded.count
        )
        guard code == ARGON2_OK.rawValue else {
            throw .unavailable(reason: "cannot hash the password: \(String(cString: argon2_error_message(code)))")
        }
        let phc = String(decoding: encoded.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // Read back through the one parser, so what the stores accept and what this makes cannot drift apart.
        guard case .success(let costs) = parse(phc) else {
            throw .unavailable(reason: "cannot hash the password: libargon2 made a string that is not an Argon2id PHC string")
        }
        return PasswordHash(phc: phc, costs: costs)
    }

    /// Whether the stored `phc` should be made again with `costs` once its password is known:
    /// the one rule for `verify`'s upgrade and `list --count-old-hashes`.
    ///
    /// Only when nothing gets cheaper: `costs` asks for at least the stored memory and at least
    /// the stored passes, and for more of one of them. Costs that trade one for the other
    /// (m=47104, t=1 against m=19456, t=2, which OWASP rates equal) are not judged: such a hash
    /// is kept, since the new one would be cheaper to attack in one dimension. Lanes (p) count
    /// for neither side: the memory and the work a guess costs are m and m × t whatever p is.
    /// False for a string that is not an Argon2id PHC string signup can check.
    public static func needsRehash(_ phc: String, for costs: PasswordPolicy.Argon2Costs) -> Bool {
        guard case .success(let stored) = parse(phc) else { return false }
        let nothingCheaper = costs.memoryKiB >= stored.memoryKiB && costs.iterations >= stored.iterations
        let somethingDearer = costs.memoryKiB > stored.memoryKiB || costs.iterations > stored.iterations
        return nothingCheaper && somethingDearer
    }

    /// Whether the NFC form of `password` matches the PHC string `phc`; the corresponding C function is `argon2id_verify`.
    ///
    /// Returns false for anything that is not a well-formed Argon2id PHC string.
    public static func verify(_ password: Secret, against phc: String) -> Bool {
        let bytes = Array(normalized(password).utf8)
        return argon2id_verify(phc, bytes, bytes.count) == ARGON2_OK.rawValue
    }

    /// Whether the NFC form of `password` matches `hash`; the corresponding C function is `argon2id_verify`.
    public static func verify(_ password: Secret, against hash: PasswordHash) -> Bool {
        verify(password, against: hash.phc)
    }

    /// Verifies against a fixed dummy hash and returns false.
    ///
    /// Call it when the email is unknown, so the answer costs the same time as
    /// for a known email with a wrong password.
    public static func verifyAgainstDummy(_ password: Secret) -> Bool {
        _ = verify(password, against: dummyHash)
        return false
    }

    private static func normalized(_ password: Secret) -> String {
        UnicodeText.nfc(password.reveal())
    }
}

extension PasswordHasher {
    /// What checking a password against a stored hash found.
    public enum Verdict: Equatable, Sendable {
        /// The password is the one the hash was made from.
        case matches
        /// It is not.
        case doesNotMatch
        /// The stored hash is not one signup can check (another algorithm, a damaged string, costs beyond
        /// reason), or no hash can be checked: libargon2 cannot be loaded (the reason says so).
        case unusableHash(String)
    }

    /// The memory (KiB), passes and lanes an Argon2id PHC string asks for.
    struct Costs: Sendable, Hashable {
        let memoryKiB: Int
        let iterations: Int
        let parallelism: Int
    }

    /// The most memory (KiB), passes and lanes a stored hash may ask for: a hostile database must not exhaust the machine.
    static let costLimits = Costs(memoryKiB: 1 << 20, iterations: 64, parallelism: 64)

    /// Checks `password` against the stored `phc`, or against a dummy when there is no account.
    ///
    /// Prefer ``check(_:against:)-(_,VerificationTarget)`` with a store's
    /// ``AccountBackend/verificationTarget(forEmail:)``: the dummy has signup's own costs, so
    /// an unknown email is faster than a known one whose hash was made with higher costs.
    public static func check(_ password: Secret, against phc: String?) -> Verdict {
        check(password, against: phc.map { .account(hash: $0) } ?? .noAccount(decoy: nil))
    }

    /// Checks `password` against what a store found for an email.
    ///
    /// Exactly one Argon2 verification runs whatever the answer (a known email, an
    /// unknown one, a hash in another format), so the time does not tell them apart. For an
    /// unknown email it runs against the decoy, the newest account's real hash, with that hash's
    /// costs (the fixed dummy when there is none or it is unusable), and the answer is always
    /// "does not match", whatever the decoy says.
    /// A stored hash is read by ``PasswordHash/init(parsing:)``: what a store accepts is what this can check.
    public static func check(_ password: Secret, against target: VerificationTarget) -> Verdict {
        let phc: String
        switch target {
        case .account(let hash, _):
            phc = hash
        case .noAccount(let decoy):
            let usable = decoy.flatMap { try? PasswordHash(parsing: $0) }
            _ = verify(password, against: usable?.phc ?? dummyHash)
            return .doesNotMatch
        }
        // Without libargon2 (loaded here the first time) no hash can be checked: say why.
        if let failure = cargon2_failure() { return .unusableHash(String(cString: failure)) }
        let hash: PasswordHash
        do {
            hash = try PasswordHash(parsing: phc)
        } catch {
            _ = verifyAgainstDummy(password)
            return .unusableHash(error.reason)
        }
        let bytes = Array(normalized(password).utf8)
        switch argon2id_verify(hash.phc, bytes, bytes.count) {
        case ARGON2_OK.rawValue:
            return .matches
        case ARGON2_VERIFY_MISMATCH.rawValue:
            return .doesNotMatch
        default:
            // libargon2 refused to decode it, before any hashing: spend the one verification now.
            _ = verifyAgainstDummy(password)
            return .unusableHash("it is not a well-formed Argon2id PHC string")
        }
    }

    /// The longest PHC string read: far above a real one (about 100 bytes; 64-byte salt and hash
    /// give 200), so that only a hostile or damaged value is refused by its length.
    static let maximumLength = 64 * 1024

    /// Reads `phc` the way libargon2 decodes an Argon2id PHC string, with signup's limits; the one parser.
    ///
    /// `$argon2id$v=19$m=M,t=T,p=P$SALT$HASH`, byte for byte: the costs in that order and in
    /// decimal without leading zeros, at least Argon2's minimums (t ≥ 1, p ≥ 1, m ≥ 8p) and at most ``costLimits``;
    /// salt and hash in base64 without padding (unused bits zero), at least 8 and 4 bytes.
    /// Nothing else passes: no NUL (C would read a shorter string), no other character.
    static func parse(_ phc: String) -> Result<Costs, PasswordHash.Invalid> {
        let malformed = PasswordHash.Invalid("it is not a well-formed Argon2id PHC string")
        // A real PHC string is about 100 bytes: one over 64 KiB is refused before it is split, and
        // the split stops at the sixth `$` (a stored string of 100 MB of `$` cost 18 s and 4 GiB).
        guard phc.utf8.count <= maximumLength else { return .failure(.init("it is longer than any Argon2id PHC string")) }
        let parts = phc.utf8.split(separator: UInt8(ascii: "$"), maxSplits: 6, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].isEmpty else { return .failure(.init("it is not a PHC string")) }
        let kind = String(decoding: parts[1], as: UTF8.self)
        guard kind == "argon2id" else {
            let names = ["2a": "a bcrypt", "2b": "a bcrypt", "2y": "a bcrypt", "1": "an MD5-crypt", "5": "a SHA-256-crypt",
                         "6": "a SHA-512-crypt", "argon2i": "an Argon2i", "argon2d": "an Argon2d", "scrypt": "an scrypt",
                         "y": "a yescrypt"]
            return .failure(.init(names[kind].map { "it is \($0) hash, not Argon2id" } ?? "it is not an Argon2id hash"))
        }
        guard parts.count == 6, parts[2].elementsEqual("v=19".utf8) else { return .failure(malformed) }
        let fields = parts[3].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        var values: [Int] = []
        for (field, name) in zip(fields, ["m=", "t=", "p="]) where field.starts(with: name.utf8) {
            let digits = field.dropFirst(2)
            // libargon2 refuses a leading zero too (`m=019456`).
            guard digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                  digits.count == 1 || digits.first != UInt8(ascii: "0"),
                  let value = Int(String(decoding: digits, as: UTF8.self)) else { break }
            values.append(value)
        }
        guard fields.count == 3, values.count == 3 else { return .failure(.init("its Argon2id parameters are malformed")) }
        let costs = Costs(memoryKiB: values[0], iterations: values[1], parallelism: values[2])
        let shown = "m=\(costs.memoryKiB), t=\(costs.iterations), p=\(costs.parallelism)"
        guard costs.memoryKiB <= costLimits.memoryKiB, costs.iterations <= costLimits.iterations,
              costs.parallelism <= costLimits.parallelism else {
            return .failure(.init("its Argon2id costs (\(shown)) are beyond what signup will spend"))
        }
        guard costs.iterations >= 1, costs.parallelism >= 1, costs.memoryKiB >= 8 * costs.parallelism else {
            return .failure(.init("its Argon2id costs (\(shown)) are below Argon2's minimums"))
        }
        guard let salt = base64Length(parts[4]), salt >= 8, let hash = base64Length(parts[5]), hash >= 4 else {
            return .failure(malformed)
        }
        return .success(costs)
    }

    /// How many bytes `text` decodes to as PHC base64 (standard alphabet, no padding, unused bits zero), or nil.
    private static func base64Length(_ text: Substring.UTF8View) -> Int? {
        func value(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
            case UInt8(ascii: "+"): 62
            case UInt8(ascii: "/"): 63
            default: nil
            }
        }
        var last: UInt8 = 0
        for byte in text {
            guard let decoded = value(byte) else { return nil }
            last = decoded
        }
        // 2 or 3 characters left over carry 4 or 2 bits that no byte uses: libargon2 wants them zero.
        switch text.count % 4 {
        case 0: return text.count / 4 * 3
        case 2 where last & 0b1111 == 0: return text.count / 4 * 3 + 1
        case 3 where last & 0b11 == 0: return text.count / 4 * 3 + 2
        default: return nil
        }
    }
}
