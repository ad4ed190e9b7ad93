import AccountStore
import Foundation
import Testing

/// The unique key folds case fully (SPEC 2), and old keys move to it through a named migration.
@Suite("Email keys")
struct EmailKeyTests {
    @Test("Greek sigma in every form, German sharp s and NFD accents give one key each")
    func oneKeyEach() {
        let greek = ["ΟΔΥΣΣΕΑΣ@example.gr", "οδυσσεας@example.gr", "οδυσσεασ@example.gr", "ΟδυσσέαΣ@example.gr".replacingOccurrences(of: "έ", with: "ε")]
        #expect(Set(greek.map(AccountStore.key(forEmail:))).count == 1)
        #expect(AccountStore.key(forEmail: "ΟΔΥΣΣΕΑΣ@example.gr") == "οδυσσεασ@example.gr")
        #expect(Set(["STRASSE@example.de", "straße@example.de", "STRAẞE@example.de"].map(AccountStore.key(forEmail:))).count == 1)
        #expect(AccountStore.key(forEmail: "ÄLICE@example.com") == AccountStore.key(forEmail: "a\u{308}lice@example.com"))
        #expect(AccountStore.key(forEmail: "ÄLICE@example.com") == "\u{E4}lice@example.com")
    }

    @Test("a domain, its uppercase and its punycode are one key, the Unicode form; the local part is not touched by IDNA")
    func internationalDomains() {
        let spellings = ["a@bücher.de", "a@BÜCHER.de", "A@xn--bcher-kva.de", "a@XN--BCHER-KVA.DE", " a@bu\u{308}cher.de "]
        #expect(spellings.map(AccountStore.key(forEmail:)) == Array(repeating: "a@bücher.de", count: spellings.count))
        #expect(AccountStore.key(forEmail: "Ölaf@xn--mxafd2bsdao.gr") == AccountStore.key(forEmail: "ölaf@οδυσσεας.gr"))
        // Folded after IDNA, as every key is: final sigma and sharp s give the keys they always had.
        #expect(AccountStore.key(forEmail: "a@οδυσσεας.gr") == "a@οδυσσεασ.gr")
        #expect(AccountStore.key(forEmail: "a@straße.de") == "a@strasse.de")
        #expect(AccountStore.key(forEmail: "a@xn--strae-oqa.de") == "a@strasse.de")
        // An xn-- local part is letters and hyphens, nothing more.
        #expect(AccountStore.key(forEmail: "XN--BCHER-KVA@example.com") == "xn--bcher-kva@example.com")
        // A domain IDNA refuses keeps the folded key it always had (only an older account can hold one).
        #expect(AccountStore.key(forEmail: "B@XN--ZZ.de") == "b@xn--zz.de")
        #expect(AccountStore.key(forEmail: "a@Ab--CD.com") == "a@ab--cd.com")
        // A refused domain whose folded form IDNA allows (`xn--vvssz` decodes) is keyed as that form,
        // so that a key is its own key.
        let folded = AccountStore.key(forEmail: "a@xn--VVßz.de")
        #expect(folded == AccountStore.key(forEmail: "a@xn--vvssz.de") && AccountStore.key(forEmail: folded) == folded)
    }

    @Test("v5-email-key-idna re-keys an old punycode account, which a reader already finds by either spelling")
    func idnaMigrationRewritesKeys() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            // Closed before another program changes the file: a store of this process would share its connection.
            _ = try AccountStore(path: path).create(email: "bob@example.com", passwordHash: fakeHash)
            // As a release before IDNA left them: the punycode kept as typed, lowercased.
            try sqliteExecute(path, """
                INSERT INTO account (email, email_key, password_hash, created_at) VALUES
                    ('Anna@XN--BCHER-KVA.de', 'anna@xn--bcher-kva.de', 'h1', '2026-01-01T00:00:00Z'),
                    ('josé@bücher.de', 'josé@bücher.de', 'h2', '2026-01-01T00:00:00Z'),
                    ('old@xn--zz.de', 'old@xn--zz.de', 'h3', '2026-01-01T00:00:00Z')
                """)
            try sqliteExecute(path, "DELETE FROM grdb_migrations WHERE identifier = 'v5-email-key-idna'")
            do {
                let reader = try #require(try AccountStore.openExisting(path: path))
                #expect(try reader.passwordHash(forEmail: "anna@bücher.de") == "h1")
                #expect(try reader.passwordHash(forEmail: "JOSÉ@xn--bcher-kva.de") == "h2")
                #expect(!(try sqliteRows(path, "SELECT identifier FROM grdb_migrations").contains("v5-email-key-idna")))
            }

            let writer = try AccountStore(path: path)
            #expect(try sqliteRows(path, "SELECT identifier FROM grdb_migrations ORDER BY identifier").contains("v5-email-key-idna"))
            #expect(try sqliteRows(path, "SELECT email, email_key FROM account ORDER BY id") == [
                "bob@example.com|bob@example.com", "Anna@XN--BCHER-KVA.de|anna@bücher.de", "josé@bücher.de|josé@bücher.de",
                "old@xn--zz.de|old@xn--zz.de",
            ])
            #expect(throws: StoreError.emailTaken) { try writer.create(email: "anna@bücher.de", passwordHash: fakeHash) }
            #expect(try writer.passwordHash(forEmail: "anna@xn--bcher-kva.de") == "h1")
            #expect(try writer.accounts().count == 4)
        }
    }

    @Test("accounts that IDNA makes one key stop v5-email-key-idna, which names the first two and counts the rest; nothing changes")
    func idnaMigrationRefusesAClash() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            _ = try AccountStore(path: path)
            try sqliteExecute(path, """
                INSERT INTO account (email, email_key, password_hash, created_at) VALUES
                    ('a@bücher.de', 'a@bücher.de', 'h1', '2026-01-01T00:00:00Z'),
                    ('a@xn--bcher-kva.de', 'a@xn--bcher-kva.de', 'h2', '2026-01-01T00:00:00Z'),
                    ('b@bücher.de', 'b@bücher.de', 'h3', '2026-01-01T00:00:00Z'),
                    ('B@XN--BCHER-KVA.DE', 'b@xn--bcher-kva.de', 'h4', '2026-01-01T00:00:00Z'),
                    ('b@Bücher.de', 'k5', 'h5', '2026-01-01T00:00:00Z')
                """)
            try sqliteExecute(path, "DELETE FROM grdb_migrations WHERE identifier = 'v5-email-key-idna'")
            let before = try Fingerprint(path)
            for open in [{ _ = try AccountStore(path: path) }, { _ = try AccountStore.openExisting(path: path) }] as [() throws -> Void] {
                let error = #expect(throws: StoreError.self) { try open() }
                let reason = error?.description ?? ""
                #expect(reason.contains("accounts 1 (a@bücher.de) and 2 (a@xn--bcher-kva.de) would have the same key"), "\(reason)")
                #expect(reason.contains("and 2 more accounts would share a key with an earlier one"), "\(reason)")
                #expect(reason.contains("nothing was changed"))
            }
            #expect(try Fingerprint(path) == before)
            #expect(try sqliteRows(path, "SELECT count(*) FROM account") == ["5"])
        }
    }

    @Test("for every code point, the key is NFC(case fold(NFC(text))) as Python's str.casefold computes it")
    func matchesPythonCaseFold() throws {
        let script = """
            import sys, unicodedata
            out = []
            for cp in range(0x80, 0x110000):
                if 0xD800 <= cp <= 0xDFFF: continue
                if unicodedata.category(chr(cp)) == "Cn": out.append("%x unassigned" % cp); continue
                text = "a" + chr(cp) + "@x"
                key = unicodedata.normalize("NFC", unicodedata.normalize("NFC", text).casefold())
                if key != text: out.append("%x %s" % (cp, key.encode("utf-8").hex()))
            print("\\n".join(out))
            """
        let result = try run(["python3", "-c", script])
        try #require(result.status == 0, "python3: \(result.error)")
        let expected = Dictionary(uniqueKeysWithValues: result.output.split(separator: "\n").map { line in
            let parts = line.split(separator: " ")
            return (UInt32(parts[0], radix: 16)!, String(parts[1]))
        })
        let python = try run(["python3", "-c", "import unicodedata; print(unicodedata.unidata_version)"]).output
        var mismatches: [String] = []
        for value in UInt32(0x80)..<0x110000 {
            guard let scalar = Unicode.Scalar(value), scalar.properties.age != nil else { continue }
            let text = "a" + String(scalar) + "@x"
            let key = AccountStore.key(forEmail: text)
            let hex = key.utf8.elementsEqual(text.utf8) ? nil : key.utf8.map { String(format: "%02x", $0) }.joined()
            let want = expected[value]
            // Python may know an older Unicode than Swift: compare code points both assign.
            if want != "unassigned" && hex != want {
                mismatches.append(String(format: "U+%04X", value) + " swift \(hex ?? "-") python \(want ?? "-")")
            }
        }
        #expect(mismatches.isEmpty, "Python \(python): \(mismatches.prefix(20))")
    }

    @Test("an old database's keys move to case folding through v2-email-key-casefold, keeping every account")
    func migrationRewritesKeys() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            try makeVersion1Database(path, rows: """
                    ('Straße@example.de', 'straße@example.de', 'h1', '2026-01-01T00:00:00Z'),
                    ('ΟΔΥΣΣΕΑΣ@example.gr', 'οδυσσεασ@example.gr', 'h2', '2026-01-01T00:00:00Z'),
                    ('bob@example.com', 'bob@example.com', 'h3', '2026-01-01T00:00:00Z')
                """)
            // A reader does not migrate, yet finds accounts under today's key.
            let reader = try #require(try AccountStore.openExisting(path: path))
            #expect(try reader.passwordHash(forEmail: "STRASSE@example.de") == "h1")
            #expect(try reader.passwordHash(forEmail: "οδυσσεας@example.gr") == "h2")
            #expect(try sqliteRows(path, "SELECT identifier FROM grdb_migrations") == ["v1-accounts"])

            let store = try AccountStore(path: path)
            #expect(try sqliteRows(path, "SELECT identifier FROM grdb_migrations ORDER BY identifier")
                == ["v1-accounts", "v2-email-key-casefold", "v3-account-state", "v4-account-origin", "v5-email-key-idna", "v6-mail-sent"])
            #expect(try sqliteRows(path, "SELECT id, email_key FROM account ORDER BY id")
                == ["1|strasse@example.de", "2|οδυσσεασ@example.gr", "3|bob@example.com"])
            #expect(throws: StoreError.emailTaken) { try store.create(email: "οδυσσεας@example.gr", passwordHash: fakeHash) }
            #expect(throws: StoreError.emailTaken) { try store.create(email: "STRAẞE@example.de", passwordHash: fakeHash) }
            #expect(try store.accounts().count == 3)
        }
    }

    @Test("two accounts that would share a folded key stop the migration, named by id and visible email; nothing changes")
    func migrationRefusesAClash() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            try makeVersion1Database(path, rows: """
                    ('ΟΔΥΣΣΕΑΣ@example.gr', 'οδυσσεασ@example.gr', 'h1', '2026-01-01T00:00:00Z'),
                    ('οδυσσεας' || char(27) || '@example.gr', 'x', 'h0', '2026-01-01T00:00:00Z'),
                    ('οδυσσεας@example.gr', 'οδυσσεας@example.gr', 'h2', '2026-01-01T00:00:00Z')
                """)
            let before = try Fingerprint(path)
            let error = #expect(throws: StoreError.self) { try AccountStore(path: path) }
            let reason = error?.description ?? ""
            #expect(reason.contains("accounts 1 (ΟΔΥΣΣΕΑΣ@example.gr) and 3 (οδυσσεας@example.gr)"))
            #expect(reason.contains("nothing was changed"))
            #expect(try Fingerprint(path) == before)
            #expect(try sqliteRows(path, "SELECT count(*) FROM account") == ["3"])
        }
    }

    @Test("a clash names emails with their control characters made visible")
    func clashIsVisible() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            try makeVersion1Database(path, rows: """
                    ('A' || char(27) || '[2J@example.com', 'k1', 'h1', '2026-01-01T00:00:00Z'),
                    ('a' || char(27) || '[2J@example.com', 'k2', 'h2', '2026-01-01T00:00:00Z')
                """)
            let error = #expect(throws: StoreError.self) { try AccountStore(path: path) }
            #expect(error?.description.contains("A^[[2J@example.com") == true)
            #expect(error?.description.contains("\u{1B}") == false)
        }
    }
}
