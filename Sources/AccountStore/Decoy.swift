import CArgon2

/// Which account's hash a password for an unknown email is checked against
/// (``VerificationTarget/noAccount(decoy:)``), so that its time is a real account's time.
///
/// Not the email's neighbour in key order: in a database whose accounts have different Argon2
/// costs, the time of a probe then told whether the next existing key was a costly account, and
/// bisecting on it recovered that account's email, letter by letter (found by an outside
/// review). The account is picked by a keyed pseudo-random function of the email's key instead,
/// keyed by the oldest account's stored hash (its salt and hash are secret to whoever cannot read
/// the database): an unknown email costs what an account nobody can predict costs, the same
/// account every time for the same email, and the time of one email says nothing about another.
enum Decoy {
    /// The id to look up (the first account at or after it is the decoy): `low...high` are the
    /// smallest and largest ids, `secret` the oldest account's stored hash.
    static func id(forKey emailKey: String, secret: String, low: Int64, high: Int64) -> Int64 {
        guard high > low else { return low }
        let span = UInt64(bitPattern: high &- low) &+ 1
        return low &+ Int64(bitPattern: pseudoRandom(emailKey, secret: secret) % (span == 0 ? UInt64.max : span))
    }

    /// Argon2id at its smallest costs (1 pass, 8 KiB) as a keyed hash: the library signup already
    /// trusts with passwords, about 10 µs, spent for known and unknown emails alike.
    static func pseudoRandom(_ emailKey: String, secret: String) -> UInt64 {
        let message = Array(emailKey.utf8)
        // Argon2 wants a salt of at least 8 bytes; a damaged stored hash may be shorter.
        let salt = Array(secret.utf8) + Array("signup.decoy".utf8)
        var output = [UInt8](repeating: 0, count: 8)
        _ = argon2id_hash_raw(1, 8, 1, message, message.count, salt, salt.count, &output, output.count)
        return output.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
