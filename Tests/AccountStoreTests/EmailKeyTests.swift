import AccountStore
import Foundation
import Testing

/// The unique key joins two spellings only when mail to one reaches the other's reader (letter
/// case, a domain's Unicode and ASCII forms), and old keys move to it through a named migration.
@Suite("Email keys")
struct EmailKeyTests {
    @Test("letter case and NFD accents give one key; uppercase sigma lowers to the medial form")
    func oneKeyEach() {
        #expect(Set(["ΟΔΥΣΣΕΑΣ@example.gr", "οδυσσεασ@example.gr", "ΟδυσσεαΣ@example.gr"].map(AccountStore.key(forEmail:))).count == 1)
        #expect(AccountStore.key(forEmail: "ΟΔΥΣΣΕΑΣ@example.gr") == "οδυσσεασ@example.gr")
        #expect(Set(["straße@example.de", "STRAẞE@example.de", "Straße@example.de"].map(AccountStore.key(forEmail:))).count == 1)
        #expect(Set(["STRASSE@example.de", "strasse@example.de"].map(AccountStore.key(forEmail:))).count == 1)
        #expect(AccountStore.key(forEmail: "ÄLICE@example.com") == AccountStore.key(forEmail: "a\u{308}lice@example.com"))
        #expect(AccountStore.key(forEmail: "ÄLICE@example.com") == "\u{E4}lice@example.com")
        #expect(AccountStore.key(forEmail: "ǅemal@example.com") == AccountStore.key(forEmail: "ǆemal@example.com"))
        #expect(AccountStore.key(forEmail: "ᎠᎡ@example.com") == AccountStore.key(forEmail: "ꭰꭱ@example.com"))
    }

    /// Pairs of addresses that name different mailboxes: each pair has two keys. Full case folding
    /// (the rule before `v7-email-key-mailbox`) joined every one of them. SECURITY.md keeps this table.
    static let differentMailboxes: [(String, String)] = [
        ("victim@strasse.de", "victim@straße.de"),
        ("victim@strasse.de", "victim@xn--strae-oqa.de"),
        ("strasse@example.de", "straße@example.de"),
        ("STRASSE@example.de", "STRAẞE@example.de"),
        ("οδυσσεας@example.gr", "οδυσσεασ@example.gr"),
        ("οδυσσεας@example.gr", "ΟΔΥΣΣΕΑΣ@example.gr"),
        ("a@οδυσσεας.gr", "a@οδυσσεασ.gr"),
        ("a@οδυσσεας.gr", "a@ΟΔΥΣΣΕΑΣ.gr"),
        ("İstanbul@example.com", "istanbul@example.com"),
        ("İstanbul@example.com", "i\u{307}stanbul@example.com"),
        ("ſam@example.com", "sam@example.com"),
        ("µ@example.com", "μ@example.com"),
        ("ϐeta@example.gr", "βeta@example.gr"),
        ("ϴeta@example.gr", "θeta@example.gr"),
        ("ﬃ@example.com", "ffi@example.com"),
        ("ŉ@example.com", "ʼn@example.com"),
    ]

    @Test("look-alike addresses of two owners never share a key: sharp s, final sigma, dotted I, variants, ligatures")
    func differentMailboxesKeepTwoKeys() {
        for (first, second) in Self.differentMailboxes {
            #expect(AccountStore.key(forEmail: first) != AccountStore.key(forEmail: second), "\(first) and \(second)")
        }
        #expect(AccountStore.key(forEmail: "Victim@Straße.DE") == "victim@straße.de")
        #expect(AccountStore.key(forEmail: "victim@xn--strae-oqa.de") == "victim@straße.de")
        #expect(AccountStore.key(forEmail: "a@ΟΔΥΣΣΕΑΣ.gr") == AccountStore.key(forEmail: "a@οδυσσεασ.gr"))
    }

    @Test("a key is its own key: computing it again changes nothing")
    func keyIsItsOwnKey() {
        let emails = Self.differentMailboxes.flatMap { [$0.0, $0.1] } + ["ΟΔΥΣΣΕΑΣ@example.gr", "ǅemal@example.com", "a@xn--VVßz.de", "B@XN--ZZ.de"]
        for email in emails {
            let key = AccountStore.key(forEmail: email)
            #expect(AccountStore.key(forEmail: key) == key, "\(email)")
        }
    }

    @Test("a domain, its uppercase and its punycode are one key, the Unicode form; the local part is not touched by IDNA")
    func internationalDomains() {
        let spellings = ["a@bücher.de", "a@BÜCHER.de", "A@xn--bcher-kva.de", "a@XN--BCHER-KVA.DE", " a@bu\u{308}cher.de "]
        #expect(spellings.map(AccountStore.key(forEmail:)) == Array(repeating: "a@bücher.de", count: spellings.count))
        #expect(AccountStore.key(forEmail: "Ölaf@xn--mxafd2bsdao.gr") == AccountStore.key(forEmail: "ölaf@οδυσσεας.gr"))
        // IDNA's nontransitional form keeps final sigma and sharp s: other domains than σ and ss.
        #expect(AccountStore.key(forEmail: "a@οδυσσεας.gr") == "a@οδυσσεας.gr")
        #expect(AccountStore.key(forEmail: "a@straße.de") == "a@straße.de")
        #expect(AccountStore.key(forEmail: "a@xn--strae-oqa.de") == "a@straße.de")
        // An xn-- local part is letters and hyphens, nothing more.
        #expect(AccountStore.key(forEmail: "XN--BCHER-KVA@example.com") == "xn--bcher-kva@example.com")
        // A domain IDNA refuses is keyed lowercased (only an older account can hold one).
        #expect(AccountStore.key(forEmail: "B@XN--ZZ.de") == "b@xn--zz.de")
        #expect(AccountStore.key(forEmail: "a@Ab--CD.com") == "a@ab--cd.com")
        // Its sharp s stays: `xn--vvßz` is not `xn--vvssz`.
        #expect(AccountStore.key(forEmail: "a@xn--VVßz.de") == "a@xn--vvßz.de")
        #expect(AccountStore.key(forEmail: "a@xn--VVßz.de") != AccountStore.key(forEmail: "a@xn--vvssz.de"))
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

    @Test("for every code point, the key lowers letter case to a case partner only, as Python computes it from Unicode's tables")
    func matchesPythonLetterCase() throws {
        // The rule, from Python's own Unicode tables: a character X with a lowercase (uppercase and
        // titlecase letters, Roman numerals, circled letters) becomes y, its lowercase, when y is one code point whose uppercase or titlecase is X, or which has
        // no single uppercase of its own; nothing else changes.
        let script = """
            import sys, unicodedata
            def one(s): return s if len(s) == 1 else None
            out = []
            for cp in range(0x80, 0x110000):
                if 0xD800 <= cp <= 0xDFFF: continue
                c = chr(cp)
                if unicodedata.category(c) == "Cn": out.append("%x unassigned" % cp); continue
                k = ""
                for ch in unicodedata.normalize("NFC", c):
                    y = one(ch.lower())
                    if y is not None and y != ch:
                        up = one(y.upper())
                        if up == ch or one(y.title()) == ch or up is None or up == y:
                            ch = y
                    k += ch
                text = "a" + c + "@x"
                key = unicodedata.normalize("NFC", "a" + k + "@x")
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

    @Test("an old database's keys move to today's through v2-email-key-casefold and v7-email-key-mailbox, keeping every account")
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
            #expect(try reader.passwordHash(forEmail: "STRAẞE@example.de") == "h1")
            #expect(try reader.passwordHash(forEmail: "STRASSE@example.de") == nil)
            #expect(try reader.passwordHash(forEmail: "οδυσσεασ@example.gr") == "h2")
            #expect(try reader.passwordHash(forEmail: "οδυσσεας@example.gr") == nil)
            #expect(try sqliteRows(path, "SELECT identifier FROM grdb_migrations") == ["v1-accounts"])

            let store = try AccountStore(path: path)
            #expect(try sqliteRows(path, "SELECT identifier FROM grdb_migrations ORDER BY identifier")
                == ["v1-accounts", "v2-email-key-casefold", "v3-account-state", "v4-account-origin", "v5-email-key-idna", "v6-mail-sent",
                    "v7-email-key-mailbox", "v8-limit-counts"])
            #expect(try sqliteRows(path, "SELECT id, email_key FROM account ORDER BY id")
                == ["1|straße@example.de", "2|οδυσσεασ@example.gr", "3|bob@example.com"])
            #expect(throws: StoreError.emailTaken) { try store.create(email: "ΟΔΥΣΣΕΑΣ@example.gr", passwordHash: fakeHash) }
            #expect(throws: StoreError.emailTaken) { try store.create(email: "STRAẞE@example.de", passwordHash: fakeHash) }
            // Other mailboxes: their own accounts.
            _ = try store.create(email: "οδυσσεας@example.gr", passwordHash: fakeHash)
            _ = try store.create(email: "STRASSE@example.de", passwordHash: fakeHash)
            #expect(try store.accounts().count == 5)
        }
    }

    @Test("two accounts that would share a folded key stop the migration, named by id and visible email; nothing changes")
    func migrationRefusesAClash() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            try makeVersion1Database(path, rows: """
                    ('ΟΔΥΣΣΕΑΣ@example.gr', 'k1', 'h1', '2026-01-01T00:00:00Z'),
                    ('οδυσσεας' || char(27) || '@example.gr', 'x', 'h0', '2026-01-01T00:00:00Z'),
                    ('οδυσσεασ@example.gr', 'k3', 'h2', '2026-01-01T00:00:00Z')
                """)
            let before = try Fingerprint(path)
            let error = #expect(throws: StoreError.self) { try AccountStore(path: path) }
            let reason = error?.description ?? ""
            #expect(reason.contains("accounts 1 (ΟΔΥΣΣΕΑΣ@example.gr) and 3 (οδυσσεασ@example.gr)"))
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
