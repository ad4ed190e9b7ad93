@testable import AccountStore
import Foundation
import SignupCore
import Testing

/// signup hashes with libsodium (one lane) and libargon2 (more): each hash is the same PHC string
/// the reference code makes, and every other consumer of the string checks it, both ways.
@Suite("Argon2id through libsodium and libargon2, checked by every consumer")
struct ArgonConsumerTests {
    static let password = "Ünïcødé-Pässwörd 9"

    /// Runs `script` with `sh -c`, the password (and anything else) in its environment, never on a command line.
    func shell(_ script: String, _ environment: [String: String]) throws -> ProcessResult {
        try run(["sh", "-c", script], environment: environment)
    }

    /// Whether `tool` is on PATH.
    func installed(_ tool: String) -> Bool {
        (try? run(["sh", "-c", "command -v \(tool)"]).status) == 0
    }

    @Test("the same password, salt and costs give byte-identical strings through libsodium and libargon2", arguments: [
        ("Correct-Horse-7", 19456, 2), ("", 7168, 1), (password, 8, 1), (password, 47104, 1), ("a\u{0}b", 1024, 3),
    ])
    func sameBytes(password: String, memoryKiB: Int, iterations: Int) throws {
        let costs = PasswordPolicy.Argon2Costs(memoryKiB: memoryKiB, iterations: iterations, parallelism: 1)
        for salt in [[UInt8](repeating: 0, count: 16), Array("sixteen-byte-slt".utf8), (0..<16).map { UInt8($0 * 17) }] {
            let sodium = try PasswordHasher.hash(Secret(password), salt: salt, costs: costs, through: .libsodium)
            let argon2 = try PasswordHasher.hash(Secret(password), salt: salt, costs: costs, through: .libargon2)
            #expect(sodium.phc == argon2.phc)
            #expect(sodium.phc.hasPrefix("$argon2id$v=19$m=\(memoryKiB),t=\(iterations),p=1$"))
        }
    }

    @Test("one lane hashes through libsodium, more through libargon2; every string libsodium can decode it checks")
    func whichLibrary() {
        #expect(PasswordHasher.Library.hashing(.standard) == .libsodium)
        #expect(PasswordHasher.Library.hashing(.init(memoryKiB: 65536, iterations: 3, parallelism: 4)) == .libargon2)
        #expect(PasswordHasher.Library.checking(PasswordHasher.dummyHash) == .libsodium)
        #expect(PasswordHasher.Library.checking("$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHRzYWx0c2FsdA$" + String(repeating: "A", count: 43)) == .libsodium)
        // 15 bytes of hash: under libsodium's least.
        #expect(PasswordHasher.Library.checking("$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGg") == .libargon2)
    }

    @Test("the argon2 command (libargon2) makes the very string signup makes with its salt")
    func argon2Command() throws {
        try #require(installed("argon2"), "the argon2 command (Debian argon2) is needed for this test")
        let salt = "sixteen-byte-slt"
        for (memoryKiB, iterations, lanes) in [(19456, 2, 1), (65536, 3, 4)] {
            let costs = PasswordPolicy.Argon2Costs(memoryKiB: memoryKiB, iterations: iterations, parallelism: lanes)
            let ours = try PasswordHasher.hash(Secret(Self.password), salt: Array(salt.utf8), costs: costs, through: .hashing(costs))
            let theirs = try shell(#"printf %s "$PW" | argon2 "$SALT" -id -k "$M" -t "$T" -p "$P" -l 32 -e"#,
                                   ["PW": Self.password, "SALT": salt, "M": "\(memoryKiB)", "T": "\(iterations)", "P": "\(lanes)"])
            #expect(theirs.status == 0, "\(theirs.error)")
            #expect(theirs.output == ours.phc + "\n")
        }
    }

    @Test("argon2-cffi checks signup's hashes (one lane and four), and signup checks argon2-cffi's")
    func argon2cffi() throws {
        let check = try run(["python3", "-c", "import argon2"])
        try #require(check.status == 0, "python3 with argon2-cffi is needed for this test: run `pip install argon2-cffi`")
        for costs in [PasswordPolicy.Argon2Costs.standard, .init(memoryKiB: 65536, iterations: 3, parallelism: 4)] {
            let ours = try PasswordHasher.hash(Secret(Self.password), costs: costs)
            #expect(try argon2cffiVerdict(ours.phc, Self.password).output == "match\n")
            #expect(try argon2cffiVerdict(ours.phc, Self.password + "x").output == "mismatch\n")
        }
        // Their defaults (m=65536, t=3, p=4), one lane, and an 8-byte hash (checked by libargon2).
        for arguments in ["", "parallelism=1", "hash_len=8"] {
            let theirs = try run(["python3", "-c", """
                import os, argon2
                print(argon2.PasswordHasher(\(arguments)).hash(os.environ["PW"]), end="")
                """], environment: ["PW": Self.password])
            try #require(theirs.status == 0, "\(theirs.error)")
            #expect(PasswordHasher.check(Secret(Self.password), against: theirs.output) == .matches, "\(theirs.output)")
            #expect(PasswordHasher.check(Secret(Self.password + "x"), against: theirs.output) == .doesNotMatch, "\(theirs.output)")
        }
    }

    @Test("PHP's password_verify checks signup's hash, and signup checks PHP's password_hash(PASSWORD_ARGON2ID)")
    func php() throws {
        try #require(installed("php"), "php-cli is needed for this test")
        let verify = #"var_dump(password_verify(getenv("PW"), getenv("PHC")));"#
        let ours = try PasswordHasher.hash(Secret(Self.password))
        #expect(try shell(#"php -r "$CODE""#, ["CODE": verify, "PHC": ours.phc, "PW": Self.password]).output == "bool(true)\n")
        #expect(try shell(#"php -r "$CODE""#, ["CODE": verify, "PHC": ours.phc, "PW": Self.password + "x"]).output == "bool(false)\n")
        let theirs = try shell(#"php -r "$CODE""#, ["CODE": #"echo password_hash(getenv("PW"), PASSWORD_ARGON2ID);"#, "PW": Self.password])
        try #require(theirs.status == 0 && theirs.output.hasPrefix("$argon2id$v=19$"), "\(theirs.output) \(theirs.error)")
        #expect(PasswordHasher.check(Secret(Self.password), against: theirs.output) == .matches)
        #expect(PasswordHasher.check(Secret(Self.password + "x"), against: theirs.output) == .doesNotMatch)
    }

    @Test("Dovecot's doveadm pw -t checks signup's hash (one lane and four)")
    func dovecot() throws {
        try #require(installed("doveadm"), "dovecot-core is needed for this test")
        let costs: [PasswordPolicy.Argon2Costs] = [.standard, .init(memoryKiB: 65536, iterations: 3, parallelism: 4)]
        for (costs, password) in zip(costs, [Self.password, "Quartz-Lantern-58"]) {
            let ours = try PasswordHasher.hash(Secret(password), costs: costs)
            let script = #"printf %s "$PW" | doveadm pw -t "{ARGON2ID}$PHC""#
            let right = try shell(script, ["PW": password, "PHC": ours.phc])
            #expect(right.status == 0 && right.output.hasSuffix("(verified)\n"), "\(right.output) \(right.error)")
            let wrong = try shell(script, ["PW": password + "x", "PHC": ours.phc])
            #expect(wrong.status != 0, "\(wrong.output)")
        }
    }
}
