import Foundation
import Testing

/// `signup list` never shows two different emails alike: every character that draws nothing is
/// shown as `<U+XXXX>` in the table and escaped in `--json`, in both stores.
@Suite struct ListInvisibleCommandTests {
    typealias Store = AccountLifeCommandTests.Store

    /// Characters a terminal draws nothing for (or nothing visible): zero-width ones, bidirectional
    /// controls and isolates, the soft hyphen, the byte-order mark, variation selectors, a tag
    /// character, the combining grapheme joiner, Mongolian and Hangul fillers.
    static let invisible: [Unicode.Scalar] = [
        "\u{200B}", "\u{200C}", "\u{200D}", "\u{2060}", "\u{202E}", "\u{2066}", "\u{2067}", "\u{2068}", "\u{2069}",
        "\u{00AD}", "\u{FEFF}", "\u{FE0F}", "\u{E0100}", "\u{E0041}", "\u{034F}", "\u{180E}", "\u{3164}", "\u{115F}",
    ]

    /// Rows another program wrote: `ad`, one invisible character and `min` in each email.
    static func insert(_ emails: [String], in fixture: AccountLifeCommandTests.Fixture) {
        let values = emails.enumerated().map { "('\($1)', 'key\($0)', 'x', '2026-01-01T00:00:00Z')" }.joined(separator: ", ")
        let sql = "INSERT INTO account (email, email_key, password_hash, created_at) VALUES \(values)"
        if let pg = fixture.pg {
            pg.psql(sql)
        } else {
            let insert = tool(["python3", "-c", "import os, sqlite3; db = sqlite3.connect(os.environ['DB']); db.execute(os.environ['SQL']); db.commit()"],
                              environment: ["DB": fixture.database, "SQL": sql])
            #expect(insert.status == 0, "\(insert.stderr)")
        }
    }

    static func shown(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return "<U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits + ">"
    }

    @Test(arguments: Store.available)
    func everyInvisibleCharacterIsShownInTheTableAndEscapedInJSON(store: Store) throws {
        let fixture = AccountLifeCommandTests.Fixture(store)
        let emails = Self.invisible.map { "ad\($0)min@example.com" } + ["josé@bücher.de"]
        Self.insert(emails, in: fixture)

        let table = fixture.run(["list"])
        #expect(table.status == 0, "\(table.stderr)")
        let rows = table.stdout.split(separator: "\n").dropFirst(2).map { String($0.split(separator: " ").last ?? "") }
        let expected = Self.invisible.map { "ad\(Self.shown($0))min@example.com" } + ["josé@bücher.de"]
        #expect(rows == expected)
        let hidden = table.stdout.unicodeScalars.filter { Self.invisible.contains($0) }
        #expect(hidden.isEmpty, "the table holds \(hidden.map { Self.shown($0) })")

        let json = fixture.run(["list", "--json"])
        #expect(json.stdout.unicodeScalars.allSatisfy { !Self.invisible.contains($0) }, "\(json.stdout)")
        #expect(json.stdout.contains(#""ad\u200bmin@example.com""#) && json.stdout.contains(#""ad\udb40\udc41min@example.com""#), "\(json.stdout)")
        let parsed = try #require(try JSONSerialization.jsonObject(with: json.stdoutBytes) as? [[String: Any]])
        #expect(parsed.dropFirst().compactMap { $0["email"] as? String } == emails, "JSON keeps the exact text")
    }

    @Test(arguments: Store.available)
    func controlsAndInvisiblesTogetherStayValidJSON(store: Store) throws {
        let fixture = AccountLifeCommandTests.Fixture(store)
        let email = "a\u{1B}[2J\u{E0041}\u{200B}b@example.com"
        if store == .postgres {
            Self.insert([email], in: fixture)
        } else {
            Self.insert([email.replacingOccurrences(of: "\u{1B}", with: "' || char(27) || '")], in: fixture)
        }
        #expect(fixture.run(["list"]).stdout.contains("a^[[2J<U+E0041><U+200B>b@example.com\n"))
        let json = fixture.run(["list", "--json"])
        #expect(json.stdout.contains(#""a\u001b[2J\udb40\udc41\u200bb@example.com""#), "\(json.stdout)")
        let parsed = try #require(try JSONSerialization.jsonObject(with: json.stdoutBytes) as? [[String: Any]])
        #expect(parsed.last?["email"] as? String == email)
    }
}
