import CArgon2
import CSodium
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SignupCore

/// Argon2id password hashing in PHC string form, through libsodium (libargon2 where it cannot).
///
/// Parameters follow OWASP's first Argon2id recommendation: m=19456 KiB, t=2,
/// p=1, with 16 bytes of salt and 32 bytes of hash, for example
/// `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>` (base64 without padding).
///
/// libsodium's Argon2id computes the same bytes as libargon2, the reference code, at about
/// half its CPU (its code uses the CPU's vector instructions), but hashes with one lane only:
/// costs with more lanes (p above 1) are hashed by libargon2. Every string is checked by
/// libsodium, whatever its lanes, except one whose hash is shorter than the 16 bytes
/// libsodium's decoder wants: libargon2 checks that one. Each library is loaded the first time
/// it is needed, so a sign-up with one lane never loads libargon2.
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

    /// The Argon2id implementation that computes a hash.
    enum Library: Sendable, CaseIterable {
        /// libsodium's (`crypto_pwhash`, `crypto_pwhash_str_verify`): one lane to hash, any to check.
        case libsodium
        /// libargon2's, the reference code (`argon2id_hash_encoded`, `argon2id_verify`).
        case libargon2

        /// The one that hashes with `costs`: libsodium unless they ask for more than one lane.
        static func hashing(_ costs: PasswordPolicy.Argon2Costs) -> Library {
            costs.parallelism == 1 ? .libsodium : .libargon2
        }

        /// The one that checks `phc`, a string ``PasswordHasher/parse(_:)`` accepts: libsodium
        /// unless its hash is shorter than libsodium's decoder allows (16 bytes; libargon2 takes 4).
        static func checking(_ phc: String) -> Library {
            let hash = phc.utf8.split(separator: UInt8(ascii: "$"), omittingEmptySubsequences: false).last
            guard let length = hash.flatMap(base64Length), length < 16 else { return .libsodium }
            return .libargon2
        }

        /// Why it cannot be used (loading it the first time), or nil.
        var failure: String? {
            let text = switch self {
            case .libsodium: csodium_failure()
            case .libargon2: cargon2_failure()
            }
            return text.map { String(cString: $0) }
        }
    }

    /// Hashes the NFC form of `password` with a fresh random salt: libsodium's `crypto_pwhash`, or
    /// libargon2's `argon2id_hash_encoded` when `costs` ask for more than one lane.
    ///
    /// The salt comes from `SystemRandomNumberGenerator` (`getrandom(2)` on
    /// Linux). Errors never contain the password.
    public static func hash(_ password: Secret, costs: PasswordPolicy.Argon2Costs = .standard) throws(StoreError) -> PasswordHash {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<saltLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return try hash(password, salt: salt, costs: costs, through: .hashing(costs))
    }

    /// Hashes the NFC form of `password` with `salt` (``saltLength`` bytes) through `library`, which
    /// is loaded here the first time.
    static func hash(
        _ password: Secret, salt: [UInt8], costs: PasswordPolicy.Argon2Costs, through library: Library
    ) throws(StoreError) -> PasswordHash {
        if let failure = library.failure { throw .unavailable(reason: "cannot hash the password: \(failure)") }
        let bytes = Array(normalized(password).utf8)
        let (iterations, memoryKiB, parallelism) = (UInt32(costs.iterations), UInt32(costs.memoryKiB), UInt32(costs.parallelism))
        let phc: String
        switch library {
        case .libsodium:
            // crypto_pwhash takes exactly 16 bytes of salt, one lane, and the memory in bytes.
            guard salt.count == saltLength, parallelism == 1 else {
                throw .unavailable(reason: "cannot hash the password: libsodium hashes with 16 bytes of salt and one lane only")
            }
            var output = [UInt8](repeating: 0, count: hashLength)
            let password = bytes.map { CChar(bitPattern: $0) }
            let code = csodium_argon2id(&output, output.count, password, password.count, salt, UInt64(iterations), Int(memoryKiB))
            guard code == 0 else { throw .unavailable(reason: "cannot hash the password: libsodium's crypto_pwhash failed") }
            phc = "$argon2id$v=19$m=\(memoryKiB),t=\(iterations),p=1$\(base64(salt))$\(base64(output))"
        case .libargon2:
            let length = argon2_encodedlen(iterations, memoryKiB, parallelism, UInt32(salt.count), UInt32(hashLength), Argon2_id)
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
            phc = String(decoding: encoded.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        // Read back through the one parser, so what the stores accept and what this makes cannot drift apart.
        guard case .success(let costs) = parse(phc) else {
            throw .unavailable(reason: "cannot hash the password: it made a string that is not an Argon2id PHC string")
        }
        return PasswordHash(phc: phc, costs: costs)
    }

    /// `bytes` in PHC base64: the standard alphabet without padding.
    static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var text: [UInt8] = []
        text.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * $1.offset) }
            for position in 0...chunk.count { text.append(alphabet[Int(value >> (18 - 6 * position) & 0x3F)]) }
            index += 3
        }
        return String(decoding: text, as: UTF8.self)
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

    /// Whether the NFC form of `password` matches the PHC string `phc`: libsodium's
    /// `crypto_pwhash_str_verify` (libargon2's `argon2id_verify` for a hash under 16 bytes).
    ///
    /// Returns false for anything that is not a well-formed Argon2id PHC string.
    public static func verify(_ password: Secret, against phc: String) -> Bool {
        verification(password, against: phc) == .matches
    }

    /// What checking the NFC form of `password` against `phc` found.
    enum Verification: Equatable {
        /// It matches.
        case matches
        /// Argon2 ran, and it does not match.
        case doesNotMatch
        /// Nothing ran: the library cannot be loaded (the reason says so), or refused the string.
        case refused(String)
    }

    /// Checks `password` against `phc` through the library ``Library/checking(_:)`` picks.
    static func verification(_ password: Secret, against phc: String) -> Verification {
        let library = Library.checking(phc)
        if let failure = library.failure { return .refused(failure) }
        let bytes = Array(normalized(password).utf8)
        switch library {
        case .libsodium:
            switch csodium_verify(phc, bytes.map { CChar(bitPattern: $0) }, bytes.count) {
            case 0: return .matches
            case 1: return .doesNotMatch
            default: return .refused("it is not a well-formed Argon2id PHC string")
            }
        case .libargon2:
            switch argon2id_verify(phc, bytes, bytes.count) {
            case ARGON2_OK.rawValue: return .matches
            case ARGON2_VERIFY_MISMATCH.rawValue: return .doesNotMatch
            default: return .refused("it is not a well-formed Argon2id PHC string")
            }
        }
    }

    /// Whether the NFC form of `password` matches `hash`, as ``verify(_:against:)-(_,String)`` checks it.
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
        /// reason), or no hash can be checked: libsodium (or libargon2, for a hash it alone checks)
        /// cannot be loaded (the reason says so).
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
        // Without libsodium (loaded here the first time) no hash can be checked: say why.
        if let failure = Library.libsodium.failure { return .unusableHash(failure) }
        let hash: PasswordHash
        do {
            hash = try PasswordHash(parsing: phc)
        } catch {
            _ = verifyAgainstDummy(password)
            return .unusableHash(error.reason)
        }
        switch verification(password, against: hash.phc) {
        case .matches:
            return .matches
        case .doesNotMatch:
            return .doesNotMatch
        case .refused(let reason):
            // Nothing was hashed (a library refused to decode it, or cannot be loaded): spend the one verification now.
            _ = verifyAgainstDummy(password)
            return .unusableHash(reason)
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
    fileprivate static func base64Length(_ text: Substring.UTF8View) -> Int? {
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
