import CArgon2
import Foundation
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
    public static func hash(_ password: Secret) throws(StoreError) -> String {
        let bytes = Array(normalized(password).utf8)
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<saltLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
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
        return String(decoding: encoded.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether the NFC form of `password` matches the PHC string `phc`; the corresponding C function is `argon2id_verify`.
    ///
    /// Returns false for anything that is not a well-formed Argon2id PHC string.
    public static func verify(_ password: Secret, against phc: String) -> Bool {
        let bytes = Array(normalized(password).utf8)
        return argon2id_verify(phc, bytes, bytes.count) == ARGON2_OK.rawValue
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
        password.reveal().precomposedStringWithCanonicalMapping
    }
}

extension PasswordHasher {
    /// What checking a password against a stored hash found.
    public enum Verdict: Equatable, Sendable {
        /// The password is the one the hash was made from.
        case matches
        /// It is not.
        case doesNotMatch
        /// The stored hash is not one signup can check (another algorithm, a damaged string, costs beyond reason).
        case unusableHash(String)
    }

    /// The most memory (KiB), passes and lanes a stored hash may ask for: a hostile database must not exhaust the machine.
    static let costLimits = (memoryKiB: 1 << 20, iterations: 64, parallelism: 64)

    /// Checks `password` against the stored `phc`, or against a dummy when there is no account.
    ///
    /// Exactly one Argon2 verification runs whatever the answer (a known email, an
    /// unknown one, a hash in another format), so the time does not tell them apart.
    public static func check(_ password: Secret, against phc: String?) -> Verdict {
        guard let phc else { return verifyAgainstDummy(password) ? .matches : .doesNotMatch }
        if let problem = problem(with: phc) {
            _ = verifyAgainstDummy(password)
            return .unusableHash(problem)
        }
        let bytes = Array(normalized(password).utf8)
        switch argon2id_verify(phc, bytes, bytes.count) {
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

    /// Why `phc` is not an Argon2id PHC string signup can verify, or nil when it is.
    static func problem(with phc: String) -> String? {
        let parts = phc.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].isEmpty else { return "it is not a PHC string" }
        let kind = String(parts[1])
        guard kind == "argon2id" else {
            let names = ["2a": "bcrypt", "2b": "bcrypt", "2y": "bcrypt", "1": "MD5-crypt", "5": "SHA-256-crypt",
                         "6": "SHA-512-crypt", "argon2i": "Argon2i", "argon2d": "Argon2d", "scrypt": "scrypt", "y": "yescrypt"]
            return names[kind].map { "it is a \($0) hash, not Argon2id" } ?? "it is not an Argon2id hash"
        }
        guard parts.count == 6, parts[2] == "v=19" else { return "it is not a well-formed Argon2id PHC string" }
        var costs: [String: Int] = [:]
        for pair in parts[3].split(separator: ",") {
            let field = pair.split(separator: "=", maxSplits: 1)
            guard field.count == 2, let value = Int(field[1]) else { return "its Argon2id parameters are malformed" }
            costs[String(field[0])] = value
        }
        guard let memory = costs["m"], let passes = costs["t"], let lanes = costs["p"], costs.count == 3 else {
            return "its Argon2id parameters are malformed"
        }
        guard memory <= costLimits.memoryKiB, passes <= costLimits.iterations, lanes <= costLimits.parallelism else {
            return "its Argon2id costs (m=\(memory), t=\(passes), p=\(lanes)) are beyond what signup will spend"
        }
        return nil  // libargon2 decodes the salt and hash
    }
}
