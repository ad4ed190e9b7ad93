import AccountStore
import Foundation
import SignupCore
import Testing

// The plaintext password never reaches the database. A store takes a `PasswordHash`,
// never a `String` (Tests/integration/consumer.sh checks that an outside package handing it a
// String does not compile); these tests check that no password can become a `PasswordHash`.
@Suite("Password hashes the store accepts")
struct PasswordHashTests {
    static let salt = "c2FsdHNhbHRzYWx0c2FsdA"
    static let hash = "aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g"

    @Test("a password, or any other text that is not an Argon2id PHC string, is refused, and the reason never quotes it", arguments: [
        // Passwords, as a caller might pass them by mistake.
        "Hunter2Zebra!Secret", "", " ", "correct horse battery staple", "Granite-Lantern-58", "$argon2id$",
        "argon2id$v=19$m=19456,t=2,p=1$\(salt)$\(hash)",
        // A password where the salt or the hash goes.
        "$argon2id$v=19$m=19456,t=2,p=1$Hunter2Zebra!Secret$\(hash)",
        "$argon2id$v=19$m=19456,t=2,p=1$\(salt)$Hunter2Zebra!Secret",
        "$argon2id$v=19$m=19456,t=2,p=1$\(salt)$\(hash)\u{0}Hunter2Zebra!Secret",
        "$argon2id$v=19$m=19456,t=2,p=1$\(salt)$\(hash) Hunter2Zebra!Secret",
        "$argon2id$v=19$m=19456,t=2,p=1$\(salt)$\(hash)\n",
        "$argon2id$v=19$m=19456,t=2,p=1$\(salt)$\(hash)$Hunter2Zebra!Secret",
        "$argon2id$v=19$m=19456,t=2,p=1$\(salt)$",
        "$argon2id$v=19$m=19456,t=2,p=1$$\(hash)",
        "$argon2id$v=19$m=19456,t=2,p=1$\(salt)=$\(hash)",
        "$argon2id$v=19$m=19456,t=2,p=1$\(salt)$\(hash)=",
        "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$\(hash)",  // 4 bytes of salt: libargon2 wants 8
        "$argon2id$v=19$m=19456,t=2,p=1$\(salt)$aGFz",  // 3 bytes of hash: libargon2 wants 4
        "$argon2id$v=19$m=19456,t=2,p=1$\(salt)$\(hash.dropLast())h",  // unused bits not zero
        "$argon2id$v=19$m=19456,t=2,p=1$\(salt)$\(hash)aa",  // 4n+1 characters
        // Another algorithm's PHC or crypt string.
        "$argon2i$v=19$m=19456,t=2,p=1$\(salt)$\(hash)",
        "$argon2d$v=19$m=19456,t=2,p=1$\(salt)$\(hash)",
        "$2y$10$abcdefghijklmnopqrstuuVPFXNZN6nYfGzgm5lWbUhnbqzJHpAmu",
        "$2b$12$abcdefghijklmnopqrstuuVPFXNZN6nYfGzgm5lWbUhnbqzJHpAmu",
        "$6$saltsalt$qFmFH.bQmmtXzyBY0s9v7Oicd2z4XSIecDzlB5KiA2/jctKu9YterLp8wwnSq.qc.eoxqOmSuNp2xS0ktL3nh/",
        "$scrypt$ln=16,r=8,p=1$\(salt)$\(hash)",
        "$y$j9T$salt$hash",
        // Argon2id, but not what signup makes or can check.
        "$argon2id$v=16$m=19456,t=2,p=1$\(salt)$\(hash)",
        "$argon2id$m=19456,t=2,p=1$\(salt)$\(hash)",
        "$argon2id$v=19$t=2,m=19456,p=1$\(salt)$\(hash)",
        "$argon2id$v=19$m=19456,t=2,p=1,keyid=k$\(salt)$\(hash)",
        "$argon2id$v=19$m=+19456,t=2,p=1$\(salt)$\(hash)",
        "$argon2id$v=19$m=019456,t=2,p=1$\(salt)$\(hash)",  // libargon2 refuses leading zeros
        "$argon2id$v=19$m=19456,t=02,p=1$\(salt)$\(hash)",
        "$argon2id$v=19$m=19456,t=\u{FF12},p=1$\(salt)$\(hash)",
        "$argon2id$v=19$m=19456,t=2,p=$\(salt)$\(hash)",
        "$argon2id$v=19$m=19456,t=0,p=1$\(salt)$\(hash)",
        "$argon2id$v=19$m=7,t=1,p=1$\(salt)$\(hash)",
        "$argon2id$v=19$m=4194304,t=2,p=1$\(salt)$\(hash)",
        "$argon2id$v=19$m=19456,t=99999999999999999999,p=1$\(salt)$\(hash)",
        "$argon2id$v=19$m=19456,t=2,p=2000000000000000000$\(salt)$\(hash)",  // 8p overflows an Int
    ])
    func refused(text: String) {
        let error = #expect(throws: PasswordHash.Invalid.self) { try PasswordHash(parsing: text) }
        #expect(error?.description.hasPrefix("not an Argon2id password hash: ") == true)
        #expect(error?.description.contains("Hunter2") == false)
        #expect(error?.description.contains(Self.salt) == false)
        // The verifier reads stored hashes through the same parser: what a store refuses, verify cannot use.
        guard case .unusableHash = PasswordHasher.check(Secret("Hunter2Zebra!Secret"), against: text) else {
            Issue.record("check accepted what PasswordHash refuses")
            return
        }
    }

    @Test("another algorithm's hash is refused by name")
    func otherAlgorithmsAreNamed() throws {
        let bcrypt = #expect(throws: PasswordHash.Invalid.self) {
            try PasswordHash(parsing: "$2y$10$abcdefghijklmnopqrstuuVPFXNZN6nYfGzgm5lWbUhnbqzJHpAmu")
        }
        #expect(bcrypt?.reason == "it is a bcrypt hash, not Argon2id")
        let argon2i = #expect(throws: PasswordHash.Invalid.self) {
            try PasswordHash(parsing: "$argon2i$v=19$m=19456,t=2,p=1$\(Self.salt)$\(Self.hash)")
        }
        #expect(argon2i?.reason == "it is an Argon2i hash, not Argon2id")
    }

    @Test("what PasswordHasher makes, and what argon2-cffi makes, parse back to the same string")
    func realHashesParse() throws {
        let ours = try PasswordHasher.hash(Secret("Granite-Lantern-58"))
        #expect(try PasswordHash(parsing: ours.phc) == ours)
        #expect(PasswordHasher.verify(Secret("Granite-Lantern-58"), against: ours))
        let theirs = try run(["python3", "-c", """
            import argon2
            print(argon2.PasswordHasher(time_cost=3, memory_cost=65536, parallelism=4).hash("Granite-Lantern-58"), end="")
            """])
        try #require(theirs.status == 0, "python3 with argon2-cffi is needed: \(theirs.error)")
        let parsed = try PasswordHash(parsing: theirs.output)
        #expect(parsed.phc == theirs.output)
        #expect(PasswordHasher.verify(Secret("Granite-Lantern-58"), against: parsed))
    }

    @Test("everything it accepts libargon2 decodes: at Argon2's minimums, and for each base64 tail", arguments: [
        "$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaA",  // 8 bytes of salt, 4 of hash: tails of 3 and 2 characters
        "$argon2id$v=19$m=16,t=1,p=2$c2FsdHNhbHRz$aGFzaGg",  // 9 and 5 bytes: whole groups, a tail of 3
        "$argon2id$v=19$m=32,t=1,p=1$c2FsdHNhbHRzYQ$aGFzaGho",  // 10 and 6 bytes: a tail of 2, whole groups
        "$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHRzYWx0c2FsdHNhbHRzYWx0c2FsdHNhbHRzYWx0c2FsdA$aGFzaA",
    ])
    func acceptedIsDecodable(text: String) throws {
        let hash = try PasswordHash(parsing: text)
        #expect(hash.phc == text)
        // A mismatch (not an unusable hash) means libargon2 decoded it and ran Argon2.
        #expect(PasswordHasher.check(Secret("Hunter2Zebra!Secret"), against: text) == .doesNotMatch)
    }

    @Test("near misses of a valid string: it accepts exactly those argon2-cffi's libargon2 decodes")
    func agreesWithAnotherDecoder() throws {
        // Every one-byte deletion and replacement of a valid string with Argon2's least costs.
        let valid = Array("$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaA".utf8)
        var candidates: Set<String> = []
        for index in valid.indices {
            var deleted = valid
            deleted.remove(at: index)
            candidates.insert(String(decoding: deleted, as: UTF8.self))
            for replacement in "0129AQRgh+/$,=-!i ".utf8 {
                var replaced = valid
                replaced[index] = replacement
                candidates.insert(String(decoding: replaced, as: UTF8.self))
            }
        }
        // signup wants version 19 (libargon2 also takes 16, and no version at all).
        let texts = candidates.filter { $0.contains("$v=19$") }.sorted()
        let oracle = try run(["python3", "-c", """
            import os, argon2.exceptions
            from argon2.low_level import verify_secret, Type
            for line in os.environ["HASHES"].split("\\n"):
                try:
                    verify_secret(line.encode(), b"Hunter2Zebra!Secret", Type.ID)
                    print("match")
                except argon2.exceptions.VerifyMismatchError:
                    print("decoded")
                except argon2.exceptions.VerificationError:
                    print("refused")
            """], environment: ["HASHES": texts.joined(separator: "\n")])
        try #require(oracle.status == 0, "python3 with argon2-cffi is needed: \(oracle.error)")
        let verdicts = oracle.output.split(separator: "\n").map(String.init)
        try #require(verdicts.count == texts.count)
        #expect(verdicts.contains("decoded") && verdicts.contains("refused"))
        for (text, verdict) in zip(texts, verdicts) {
            let accepted = (try? PasswordHash(parsing: text)) != nil
            #expect(accepted == (verdict == "decoded"), "\(text): argon2-cffi \(verdict)")
        }
    }

    @Test("its description and mirror name the algorithm and costs, never the salt or the hash")
    func shortDescription() throws {
        let hash = try PasswordHash(parsing: "$argon2id$v=19$m=19456,t=2,p=1$\(Self.salt)$\(Self.hash)")
        #expect("\(hash)" == "Argon2id hash (m=19456, t=2, p=1)")
        #expect(String(reflecting: hash) == "Argon2id hash (m=19456, t=2, p=1)")
        var dumped = ""
        dump(hash, to: &dumped)
        #expect(!dumped.contains(Self.salt) && !dumped.contains(Self.hash))
    }

    @Test("the password_hash column holds only Argon2id PHC strings, never the password", arguments: Backend.all)
    func storedColumnHoldsOnlyHashes(backend: Backend) throws {
        let password = "Hunter2Zebra!Secret"
        try backend.withFreshLocation { location throws in
            let store = try location.openForWriting()
            _ = try store.create(email: "plain@example.com", passwordHash: try PasswordHasher.hash(Secret(password)))
            _ = try store.create(email: "parsed@example.com", passwordHash: fakeHash)
            let stored = try storedHashes(location)
            #expect(stored.count == 2)
            for text in stored {
                #expect(throws: Never.self) { try PasswordHash(parsing: text) }
                #expect(!text.contains(password))
            }
            #expect(PasswordHasher.check(Secret(password), against: try store.passwordHash(forEmail: "plain@example.com")) == .matches)
        }
    }

    @Test("the storing example compiles, is the text of AccountStore's article, and stores what it says")
    func readmeExample() throws {
        let password = "Granite-Lantern-58", email = "alice@example.com", otherEmail = "bob@example.com"
        let phcFromElsewhere = "$argon2id$v=19$m=19456,t=2,p=1$\(Self.salt)$\(Self.hash)"
        try withTemporaryFolder { folder throws in
            let database = folder.file("accounts.sqlite")
            // README store begin
            let hash = try PasswordHasher.hash(Secret(password))          // Argon2id, m=19456, t=2, p=1
            let imported = try PasswordHash(parsing: phcFromElsewhere)    // throws PasswordHash.Invalid
            let store = try StoreLocation.chosen(option: database, environment: [:]).openForWriting()  // a path or a PostgreSQL URL
            let account = try store.create(email: email, passwordHash: hash)
            _ = try store.create(email: otherEmail, passwordHash: imported)
            // README store end
            #expect(account.email == email)
            #expect(PasswordHasher.check(Secret(password), against: try store.passwordHash(forEmail: email)) == .matches)
            #expect(try store.passwordHash(forEmail: otherEmail) == phcFromElsewhere)
        }
        let source = try String(contentsOfFile: #filePath, encoding: .utf8).components(separatedBy: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let begin = try #require(source.firstIndex(of: "// README store begin"))
        let end = try #require(source.firstIndex(of: "// README store end"))
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        // Once the README's; now AccountStore's DocC article.
        let article = root.appendingPathComponent("Sources/AccountStore/AccountStore.docc/StoringAccounts.md")
        let readme = try String(contentsOf: article, encoding: .utf8).components(separatedBy: "\n")
        let heading = try #require(readme.firstIndex { $0.hasPrefix("**Storing accounts from your own program.**") })
        let open = try #require(readme[heading...].firstIndex(of: "```swift"))
        let close = try #require(readme[(open + 1)...].firstIndex(of: "```"))
        #expect(Array(readme[(open + 1)..<close]) == Array(source[(begin + 1)..<end]))
    }

    /// The `password_hash` column as the database holds it, read by sqlite3 or psql.
    func storedHashes(_ location: StoreLocation) throws -> [String] {
        switch location {
        case .sqlite(let path): try sqliteRows(path.description, "SELECT password_hash FROM account ORDER BY id")
        case .postgres: try TestPostgres.psql("SELECT password_hash FROM account ORDER BY id", database: #require(location.databaseName))
        }
    }
}

/// A stored string of millions of `$` used to be split into a piece per `$` (18 s, 4 GiB for
/// 100 MB) before its shape was checked: now it is refused by its length.
@Test func aHugeStringIsRefusedByItsLength() {
    let huge = "$argon2id$v=19$m=19456,t=2,p=1" + String(repeating: "$", count: 1_000_000)
    #expect(throws: PasswordHash.Invalid.self) { try PasswordHash(parsing: huge) }
    do {
        _ = try PasswordHash(parsing: huge)
    } catch {
        #expect("\(error)".contains("longer than any Argon2id PHC string"), "\(error)")
    }
}
