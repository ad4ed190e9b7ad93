import AccountStore
import Foundation
import SignupCore
import Testing

@Suite("Argon2id password hashing")
struct PasswordHasherTests {
    static let prefix = "$argon2id$v=19$m=19456,t=2,p=1$"

    /// Decodes PHC base64 (standard alphabet, no padding).
    func decode(_ text: Substring) throws -> Data {
        let padded = String(text) + String(repeating: "=", count: (4 - text.count % 4) % 4)
        return try #require(Data(base64Encoded: padded), "not base64: \(text)")
    }

    @Test("the hash is an Argon2id PHC string with a 16-byte salt and a 32-byte hash")
    func phcShape() throws {
        let phc = try PasswordHasher.hash(Secret("Correct-Horse-7")).phc
        #expect(phc.hasPrefix(Self.prefix))
        let parts = phc.split(separator: "$", omittingEmptySubsequences: false)
        try #require(parts.count == 6)
        #expect(try decode(parts[4]).count == 16)
        #expect(try decode(parts[5]).count == 32)
        #expect(!parts[4].contains("=") && !parts[5].contains("="))
    }

    @Test("the right password verifies, a wrong one does not")
    func verifies() throws {
        let phc = try PasswordHasher.hash(Secret("Correct-Horse-7"))
        #expect(PasswordHasher.verify(Secret("Correct-Horse-7"), against: phc))
        #expect(!PasswordHasher.verify(Secret("Correct-Horse-8"), against: phc))
        #expect(!PasswordHasher.verify(Secret("correct-horse-7"), against: phc))
        #expect(!PasswordHasher.verify(Secret("Correct-Horse-7 "), against: phc))
    }

    @Test("each hash has its own salt")
    func freshSalt() throws {
        let first = try PasswordHasher.hash(Secret("Correct-Horse-7"))
        let second = try PasswordHasher.hash(Secret("Correct-Horse-7"))
        #expect(first != second)
    }

    // Mail servers, PHP, Python and LDAP hash the bytes they get, so the
    // hash is of the NFC text people type elsewhere; it used to be NFKC, so a fullwidth Ｐ verified as P.
    @Test("the password is hashed in NFC: decomposed accents verify as composed ones, a fullwidth Ｐ never as P")
    func nfc() throws {
        let composed = try PasswordHasher.hash(Secret("Caf\u{E9}-Lantern-58"))
        #expect(PasswordHasher.verify(Secret("Cafe\u{301}-Lantern-58"), against: composed))
        let plain = try PasswordHasher.hash(Secret("Password1"))
        #expect(!PasswordHasher.verify(Secret("\u{FF30}assword1"), against: plain))
        #expect(!PasswordHasher.verify(Secret("password1"), against: plain))
        let fullwidth = try PasswordHasher.hash(Secret("\u{FF30}assword1"))
        #expect(!PasswordHasher.verify(Secret("Password1"), against: fullwidth))
    }

    @Test("an empty password and a long non-ASCII one hash and verify")
    func edgePasswords() throws {
        let empty = try PasswordHasher.hash(Secret(""))
        #expect(PasswordHasher.verify(Secret(""), against: empty))
        let long = String(repeating: "Ünïcødé 🔑 ", count: 100)
        let phc = try PasswordHasher.hash(Secret(long))
        #expect(PasswordHasher.verify(Secret(long), against: phc))
        #expect(!PasswordHasher.verify(Secret(String(long.dropLast())), against: phc))
    }

    @Test("malformed or foreign PHC strings do not verify", arguments: [
        "",
        "not a hash",
        "$argon2id$v=19$m=19456,t=2,p=1$",
        "$argon2i$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
        "$2b$12$abcdefghijklmnopqrstuuVPFXNZN6nYfGzgm5lWbUhnbqzJHpAmu",
    ])
    func malformed(phc: String) {
        #expect(!PasswordHasher.verify(Secret("Password1"), against: phc))
    }

    @Test("verifying against the dummy hash is always false")
    func dummy() {
        #expect(!PasswordHasher.verifyAgainstDummy(Secret("Password1")))
        #expect(!PasswordHasher.verifyAgainstDummy(Secret("")))
    }

    @Test("python argon2-cffi verifies our hash, and we verify its hash")
    func independentImplementation() throws {
        let password = "Ünïcødé-Pässwörd 9"
        let check = try run(["python3", "-c", "import argon2"])
        try #require(
            check.status == 0,
            "python3 with argon2-cffi is needed for this test: run `pip install argon2-cffi` (\(check.error))"
        )
        let ours = try PasswordHasher.hash(Secret(password))
        let right = try argon2cffiVerdict(ours.phc, password)
        #expect(right.status == 0, "\(right.error)")
        #expect(right.output == "match\n")
        let wrong = try argon2cffiVerdict(ours.phc, password + "x")
        #expect(wrong.output == "mismatch\n")

        let theirs = try run(["python3", "-c", """
            import os, argon2
            hasher = argon2.PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1, hash_len=32, salt_len=16)
            print(hasher.hash(os.environ["PW"]), end="")
            """], environment: ["PW": password])
        try #require(theirs.status == 0, "\(theirs.error)")
        #expect(theirs.output.hasPrefix(Self.prefix))
        #expect(PasswordHasher.verify(Secret(password), against: theirs.output))
        #expect(!PasswordHasher.verify(Secret(password + "x"), against: theirs.output))
    }
}
