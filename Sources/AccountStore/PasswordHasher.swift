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

    /// Hashes the NFKC form of `password` with a fresh random salt; the corresponding C function is `argon2id_hash_encoded`.
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

    /// Whether the NFKC form of `password` matches the PHC string `phc`; the corresponding C function is `argon2id_verify`.
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
        password.reveal().precomposedStringWithCompatibilityMapping
    }
}
