import Foundation
import SignupCore
import Testing

/// `EmailSyntax.check` against `Resources/email-corpus.tsv` (sources and intended differences in
/// `Resources/email-corpus.SOURCES.md`), plus the standard policy's boundaries spelled out.
@Suite("Email syntax")
struct EmailCorpusTests {
    /// One line of the corpus.
    struct Row {
        var line: Int
        var verdict: EmailSyntax.Verdict
        var address: String
        var note: String
    }

    static func loadCorpus() throws -> [Row] {
        let url = try #require(
            Bundle.module.url(forResource: "email-corpus", withExtension: "tsv", subdirectory: "Resources"),
            "email-corpus.tsv is not in the test bundle"
        )
        let text = try String(contentsOf: url, encoding: .utf8)
        var rows: [Row] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            let lineNumber = index + 1
            try #require(fields.count == 3, "line \(lineNumber): expected 3 tab-separated fields, found \(fields.count)")
            let verdict: EmailSyntax.Verdict
            switch fields[0] {
            case "valid": verdict = .valid
            case "invalid": verdict = .invalid
            case "tooLong": verdict = .tooLong
            default:
                Issue.record("line \(lineNumber): unknown verdict \(fields[0])")
                continue
            }
            let address = try #require(unescape(fields[1]), "line \(lineNumber): bad escape in \(fields[1])")
            rows.append(Row(line: lineNumber, verdict: verdict, address: address, note: String(fields[2])))
        }
        return rows
    }

    /// Reverses the corpus's escapes: `\\`, `\t`, `\n`, `\r`, `\xHH`, `\u{H…}`. Nil for a malformed escape.
    static func unescape(_ field: Substring) -> String? {
        var result = String.UnicodeScalarView()
        var scalars = field.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "\\" else {
                result.append(scalar)
                continue
            }
            switch scalars.next() {
            case "\\": result.append("\\")
            case "t": result.append("\t")
            case "n": result.append("\n")
            case "r": result.append("\r")
            case "x":
                guard let high = scalars.next(), let low = scalars.next(),
                      let value = UInt32("\(high)\(low)", radix: 16), let decoded = Unicode.Scalar(value)
                else { return nil }
                result.append(decoded)
            case "u":
                guard scalars.next() == "{" else { return nil }
                var hex = ""
                while let digit = scalars.next(), digit != "}" { hex.unicodeScalars.append(digit) }
                guard let value = UInt32(hex, radix: 16), let decoded = Unicode.Scalar(value) else { return nil }
                result.append(decoded)
            default: return nil
            }
        }
        return String(result)
    }

    @Test("Every corpus verdict holds")
    func corpusVerdicts() throws {
        let rows = try Self.loadCorpus()
        var mismatches = 0
        for row in rows {
            let actual = EmailSyntax.check(row.address)
            if actual != row.verdict {
                mismatches += 1
                Issue.record("line \(row.line): expected \(row.verdict), got \(actual) for \(row.address.debugDescription) (\(row.note))")
            }
        }
        #expect(mismatches == 0)
    }

    @Test("The corpus is large and balanced")
    func corpusShape() throws {
        let rows = try Self.loadCorpus()
        #expect(rows.count >= 200)
        #expect(rows.filter { $0.verdict == .valid }.count >= 80)
        #expect(rows.filter { $0.verdict == .invalid }.count >= 80)
        #expect(rows.filter { $0.verdict == .tooLong }.count >= 5)
        #expect(rows.contains { $0.address.unicodeScalars.contains { !$0.isASCII } && $0.verdict == .valid })
        // Compare bytes: Swift's String equality would merge NFC and NFD spellings, which the corpus keeps apart.
        #expect(Set(rows.map { Array($0.address.utf8) }).count == rows.count, "duplicate addresses")
    }

    @Test("The escapes round-trip")
    func escapes() {
        #expect(Self.unescape(#"a\\b\tc\nd\re\x00f\x7F\u{200B}"#) == "a\\b\tc\nd\re\u{0}f\u{7F}\u{200B}")
        #expect(Self.unescape(#"bad\q"#) == nil)
        #expect(Self.unescape(#"\x4"#) == nil)
    }

    @Test("The local part may have 64 UTF-8 bytes, not 65")
    func localPartLength() {
        #expect(EmailSyntax.check(String(repeating: "a", count: 64) + "@example.com") == .valid)
        #expect(EmailSyntax.check(String(repeating: "a", count: 65) + "@example.com") == .invalid)
        // 32 two-byte letters are 64 bytes; 33 are 66 bytes though only 33 characters.
        #expect(EmailSyntax.check(String(repeating: "é", count: 32) + "@example.com") == .valid)
        #expect(EmailSyntax.check(String(repeating: "é", count: 33) + "@example.com") == .invalid)
    }

    @Test("A label may have 63 UTF-8 bytes, not 64")
    func labelLength() {
        #expect(EmailSyntax.check("a@" + String(repeating: "b", count: 63) + ".com") == .valid)
        #expect(EmailSyntax.check("a@" + String(repeating: "b", count: 64) + ".com") == .invalid)
        #expect(EmailSyntax.check("a@example." + String(repeating: "c", count: 63)) == .valid)
        #expect(EmailSyntax.check("a@example." + String(repeating: "c", count: 64)) == .invalid)
        #expect(EmailSyntax.check("a@" + String(repeating: "ü", count: 32) + ".de") == .invalid)
    }

    @Test("An address may have 254 UTF-8 bytes; 255 is too long, whatever else is wrong")
    func addressLength() {
        let label = String(repeating: "d", count: 63)
        let address254 = "a@" + [label, label, label, String(repeating: "d", count: 60)].joined(separator: ".")
        #expect(address254.utf8.count == 254)
        #expect(EmailSyntax.check(address254) == .valid)
        #expect(EmailSyntax.check(address254 + "d") == .tooLong)
        #expect(EmailSyntax.check(String(repeating: "@", count: 255)) == .tooLong)
        #expect(EmailSyntax.check(String(repeating: "ü", count: 150) + "@bücher.de") == .tooLong)
    }

    @Test("Internationalized addresses are valid", arguments: [
        "पता@उदाहरण.भारत", "用户@例子.广告", "θσερ@εχαμπλε.ψομ", "josé@bücher.de", "jose\u{301}@bu\u{308}cher.de",
        "ผู้ใช้@ตัวอย่าง.ไทย", "பயனர்@உதாரணம்.இந்தியா", "пользователь@пример.рф", "ユーザー@例え.テスト",
    ])
    func internationalized(address: String) {
        #expect(EmailSyntax.check(address) == .valid)
    }

    @Test("Structure rules", arguments: [
        ("", EmailSyntax.Verdict.invalid), ("plainaddress", .invalid), ("a@b@example.com", .invalid),
        (".a@example.com", .invalid), ("a.@example.com", .invalid), ("a..b@example.com", .invalid),
        ("a@-example.com", .invalid), ("a@example-.com", .invalid), ("a@ex-ample.com", .valid),
        ("a@example.123", .invalid), ("a@123.example", .valid), ("a@localhost", .invalid),
        ("\"quoted\"@example.com", .invalid), ("a@[127.0.0.1]", .invalid), ("(comment)a@example.com", .invalid),
        (" a@example.com", .invalid), ("a@exa_mple.com", .invalid), ("\u{301}a@example.com", .invalid),
    ])
    func structure(address: String, verdict: EmailSyntax.Verdict) {
        #expect(EmailSyntax.check(address) == verdict)
    }

    @Test("Checking a typical address is fast")
    func speed() {
        let clock = ContinuousClock()
        var valid = 0
        let elapsed = clock.measure {
            for _ in 0..<10_000 where EmailSyntax.check("alice.liddell+news@mail.example.co.uk") == .valid { valid += 1 }
        }
        #expect(valid == 10_000)
        // About 0.2 µs each in release; a debug build on a busy machine stays far below this bound.
        #expect(elapsed < .seconds(2))
    }
}
