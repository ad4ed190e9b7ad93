import SignupCore
import Testing

/// The JSON reader behind policy files and JSON Lines imports: documents every reader must take
/// (y_) and ones it must refuse (n_), in the manner of JSONTestSuite.
@Suite struct JSONTests {
    func parse(_ bytes: [UInt8]) throws(JSONError) -> JSONValue {
        try JSONValue(parsing: bytes)
    }

    func parse(_ text: String) throws(JSONError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// Why `bytes` are refused and where, or "read".
    func failure(_ bytes: [UInt8]) -> String {
        do {
            _ = try parse(bytes)
            return "read"
        } catch {
            return "\(error.reason) at \(error.offset)"
        }
    }

    func failure(_ text: String) -> String {
        failure(Array(text.utf8))
    }

    @Test(arguments: [
        ("[]", JSONValue.array([])),
        ("{}", .object([])),
        (" \t\r\n[ ] \n", .array([])),
        ("[true, false, null]", .array([.bool(true), .bool(false), .null])),
        ("[0, -0, 1, -42, 1.5, 1e3, -1E-2, 2.0, 0e0]",
         .array([.integer(0), .integer(0), .integer(1), .integer(-42), .number(1.5), .number(1000), .number(-0.01), .number(2), .number(0)])),
        ("9223372036854775807", .integer(Int.max)),
        ("-9223372036854775808", .integer(Int.min)),
        ("9223372036854775808", .number(9.223372036854775808e18)),
        ("1e-400", .number(0)),
        (#"{"b": [1], "a": {"c": null}}"#, .object([JSONMember("b", .array([.integer(1)])), JSONMember("a", .object([JSONMember("c", .null)]))])),
        (#"{"a": 1, "a": 2}"#, .object([JSONMember("a", .integer(1)), JSONMember("a", .integer(2))])),
        (#""\"\\\/\b\f\n\r\t""#, .string("\"\\/\u{8}\u{C}\n\r\t")),
        (#""\u0000""#, .string("\0")),
        (#""\u00e9\u00C9 é""#, .string("éÉ é")),
        (#""\ud83d\ude00 😀""#, .string("😀 😀")),
        (#""\uffff""#, .string("\u{FFFF}")),
        ("\"\u{7F}\"", .string("\u{7F}")),
    ])
    func validDocuments(_ text: String, _ expected: JSONValue) throws {
        #expect(try parse(text) == expected)
    }

    @Test(arguments: [
        ("", JSONError.Reason.syntax),
        ("   ", .syntax),
        ("[1,]", .syntax),
        (#"{"a": 1,}"#, .syntax),
        ("[1 2]", .syntax),
        (#"{"a" 1}"#, .syntax),
        ("{a: 1}", .syntax),
        (#"{"a"}"#, .syntax),
        ("[", .syntax),
        ("[1", .syntax),
        ("]", .syntax),
        ("01", .syntax),
        ("-01", .syntax),
        ("00", .syntax),
        ("1.", .syntax),
        (".5", .syntax),
        ("-", .syntax),
        ("+1", .syntax),
        ("1e", .syntax),
        ("1e+", .syntax),
        ("0x10", .syntax),
        ("NaN", .syntax),
        ("Infinity", .syntax),
        ("tru", .syntax),
        ("True", .syntax),
        ("nul", .syntax),
        ("[1]x", .syntax),
        ("[1] [2]", .syntax),
        ("'a'", .syntax),
        (#""abc"#, .syntax),
        (#""\x""#, .syntax),
        (#""\u12""#, .syntax),
        (#""\uZZZZ""#, .syntax),
        (#""\u00²3""#, .syntax),
        (#""\u００４１""#, .syntax),
        (#""\U0041""#, .syntax),
        ("// comment\n{}", .syntax),
        ("{} // comment", .syntax),
        (#""\ud800""#, .loneSurrogate),
        (#""\udc00""#, .loneSurrogate),
        (#""\ud800\u0041""#, .loneSurrogate),
        (#""\ud800x""#, .loneSurrogate),
        (#""\ude00\ud83d""#, .loneSurrogate),
        ("\"a\u{0}b\"", .controlCharacter),
        ("\"a\tb\"", .controlCharacter),
        ("\"a\nb\"", .controlCharacter),
        ("\"\u{1F}\"", .controlCharacter),
        ("1e999", .numberOutOfRange),
        ("[-1e999]", .numberOutOfRange),
    ])
    func invalidDocuments(_ text: String, _ reason: JSONError.Reason) {
        #expect(failure(text).hasPrefix("\(reason) at "))
    }

    @Test(arguments: [
        ([0xEF, 0xBB, 0xBF, 0x7B, 0x7D] as [UInt8], 0),  // a byte order mark before {}
        ([0x5B, 0x31, 0x5D, 0x00], 3),  // [1] NUL
        ([0x00], 0),
        ([0xFF], 0),
        ([0x5B, 0xC3, 0xA9, 0x5D], 1),  // [é]: UTF-8, but outside a string
    ])
    func bytesOutsideJSONsGrammarAreSyntaxErrors(_ bytes: [UInt8], at offset: Int) {
        #expect(failure(bytes) == "syntax at \(offset)")
    }

    @Test(arguments: [
        [0xC3] as [UInt8],  // a sequence cut short
        [0xC0, 0xAF],  // an overlong "/"
        [0xED, 0xA0, 0x80],  // a surrogate, encoded
        [0xF4, 0x90, 0x80, 0x80],  // beyond U+10FFFF
        [0xFF],
        [0x80],
        [0xE2, 0x82, 0x5C, 0x75, 0x30, 0x30, 0x61, 0x63],  // a cut sequence, then the escape \u00ac
    ])
    func invalidUTF8InAStringIsRefused(_ content: [UInt8]) {
        #expect(failure([0x5B, 0x22] + content + [0x22, 0x5D]) == "invalidUTF8 at 1")
    }

    @Test func nestingUpToTheLimitIsReadAndDeeperIsAnErrorNotACrash() throws {
        let limit = JSONReader.maximumDepth
        var nested = JSONValue.array([])
        for _ in 1..<limit { nested = .array([nested]) }
        #expect(try parse(String(repeating: "[", count: limit) + String(repeating: "]", count: limit)) == nested)
        var object = JSONValue.object([])
        for _ in 1..<limit { object = .object([JSONMember("a", object)]) }
        #expect(try parse(String(repeating: #"{"a":"#, count: limit - 1) + "{}" + String(repeating: "}", count: limit - 1)) == object)
        for (text, offset) in [(String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1), limit),
                               (String(repeating: "[", count: 10_000), limit),
                               (String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000), limit),
                               (String(repeating: #"{"a":"#, count: 10_000), 5 * limit)] {
            #expect(failure(text) == "tooDeep at \(offset)")
        }
    }

    /// A reader that copied its containers or strings as they grow would take hours here.
    @Test(.timeLimit(.minutes(1))) func hugeDocumentsAreReadInLinearTime() throws {
        let count = 300_000
        guard case .array(let items) = try parse("[" + Array(repeating: "1", count: count).joined(separator: ",") + "]") else {
            Issue.record("not an array")
            return
        }
        #expect(items.count == count && items.allSatisfy { $0 == .integer(1) })
        let members = (0..<count).map { #""k\#($0)": [\#($0), "v"]"# }.joined(separator: ", ")
        guard case .object(let object) = try parse("{" + members + "}") else {
            Issue.record("not an object")
            return
        }
        #expect(object.count == count && object.last == JSONMember("k\(count - 1)", .array([.integer(count - 1), .string("v")])))
        let long = String(repeating: "é\\n", count: count)
        #expect(try parse("\"" + long + "\"") == .string(String(repeating: "é\n", count: count)))
    }
}
