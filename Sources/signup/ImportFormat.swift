import FoundationEssentials
import SignupCore
import WizardTerminal

/// The rows of an import file, read one record at a time: CSV (RFC 4180, with the header
/// `email,password` or `email,password_hash`) or JSON Lines (one object a line), told apart by
/// the first line. Every size is bounded: a line by ``LineInput/limit``, a quoted CSV field that
/// spans lines by the same limit for the whole record.
struct RecordReader {
    enum Record {
        /// A row: its first line's number, the email and the password (or PHC hash) as written.
        case row(line: Int, email: String, secret: String, isHash: Bool)
        /// A line that is no row: its number and the code that says why.
        case problem(line: Int, code: String)
    }

    private enum Format { case unknown, csv(isHash: Bool), jsonLines, unusable }

    private let input: LineInput
    private var format = Format.unknown
    private var lineNumber = 0

    init(_ input: LineInput) {
        self.input = input
    }

    /// The next record, or nil at the end of the input (or after a first line that names no format).
    mutating func next() -> Record? {
        while true {
            guard let (line, text) = nextLine() else { return nil }
            guard let text else { return .problem(line: line, code: "line.unreadable") }
            if text.isEmpty { continue }
            switch format {
            case .unusable:
                return nil
            case .unknown:
                if text.hasPrefix("{") {
                    format = .jsonLines
                    return Self.jsonRecord(text, line: line)
                }
                let header = Self.csvFields(text)?.map { $0.trimmingBlanks().lowercased() }
                switch header {
                case ["email", "password"]?: format = .csv(isHash: false)
                case ["email", "password_hash"]?: format = .csv(isHash: true)
                default:
                    format = .unusable
                    return .problem(line: line, code: "header.invalid (the first line must be email,password or email,password_hash, or a JSON object)")
                }
            case .jsonLines:
                return Self.jsonRecord(text, line: line)
            case .csv(let isHash):
                var record = text
                // A quoted field holds a line break while its quotes are open (an odd count so far).
                while record.utf8.count(where: { $0 == UInt8(ascii: "\"") }) % 2 == 1 {
                    guard let (_, next) = nextLine(), let more = next, record.utf8.count + more.utf8.count < LineInput.limit else {
                        return .problem(line: line, code: "csv.unterminatedQuote")
                    }
                    record += "\n" + more
                }
                guard var fields = Self.csvFields(record) else { return .problem(line: line, code: "csv.malformed") }
                // An email holds no comma, and a PHC hash always does (`m=…,t=…,p=…`): in a row
                // without quotes, everything after the first comma is the second field.
                if fields.count > 2 && !record.contains("\"") { fields = [fields[0], fields.dropFirst().joined(separator: ",")] }
                guard fields.count == 2 else { return .problem(line: line, code: "csv.fieldCount") }
                return .row(line: line, email: fields[0], secret: fields[1], isHash: isHash)
            }
        }
    }

    /// The next physical line and its number; its text is nil when it is not UTF-8, holds a NUL or is too long.
    private mutating func nextLine() -> (Int, String?)? {
        let line = input.next()
        lineNumber += 1
        switch line {
        case .endOfInput: return nil
        case .unreadable: return (lineNumber, nil)
        case .text(let text): return (lineNumber, text)
        }
    }

    /// The fields of one CSV record (RFC 4180: `"` quotes a field, `""` inside it is a quote), or
    /// nil when a quote appears inside an unquoted field or a quoted field does not end at a comma.
    static func csvFields(_ record: String) -> [String]? {
        var fields: [String] = []
        var field = ""
        var quoted = false
        var afterQuote = false
        var iterator = record.makeIterator()
        var fieldStart = true
        while let character = iterator.next() {
            if quoted {
                if character == "\"" {
                    quoted = false
                    afterQuote = true
                } else {
                    field.append(character)
                }
                continue
            }
            switch character {
            case "\"" where fieldStart:
                quoted = true
                fieldStart = false
            case "\"" where afterQuote:
                // `""` inside a quoted field: one quote, and the field goes on.
                field.append("\"")
                quoted = true
                afterQuote = false
            case "\"":
                return nil
            case ",":
                fields.append(field)
                field = ""
                fieldStart = true
                afterQuote = false
            default:
                if afterQuote { return nil }
                field.append(character)
                fieldStart = false
            }
        }
        if quoted { return nil }
        fields.append(field)
        return fields
    }

    /// One JSON Lines object: `email` and `password` or `password_hash`, all strings, and no other key
    /// (a misspelt key must not leave a row without its password unnoticed).
    private static func jsonRecord(_ text: String, line: Int) -> Record {
        guard let members = jsonMembers(text) else { return .problem(line: line, code: "json.malformed") }
        // A key given twice counts with its last value.
        let object = Dictionary(members, uniquingKeysWith: { _, last in last })
        guard Set(object.keys).isSubset(of: ["email", "password", "password_hash"]) else {
            return .problem(line: line, code: "json.unknownKey (only email, password and password_hash)")
        }
        func string(_ key: String) -> String? {
            guard case .string(let value)? = object[key] else { return nil }
            return value
        }
        guard object.keys.allSatisfy({ string($0) != nil }) else { return .problem(line: line, code: "json.notAString") }
        switch (string("password"), string("password_hash")) {
        case (let password?, nil): return .row(line: line, email: string("email") ?? "", secret: password, isHash: false)
        case (nil, let hash?): return .row(line: line, email: string("email") ?? "", secret: hash, isHash: true)
        default: return .problem(line: line, code: "json.passwordOrHash (give exactly one of password and password_hash)")
        }
    }

    /// The members of the JSON object `text` in their order, a key given twice kept twice; nil
    /// when `text` is not one valid JSON object (every string and number in it checked).
    static func jsonMembers(_ text: String) -> [(String, JSONValue)]? {
        let decoder = JSONDecoder()
        let bytes = Array(text.utf8)
        guard case .object? = try? decoder.decode(JSONValue.self, from: Data(bytes)) else { return nil }
        // Valid JSON, so the top level splits at its commas and first colons outside strings and
        // nested values, and each key and value decodes alone (JSONDecoder keeps a key's first value).
        var members: [(String, JSONValue)] = []
        var (depth, inString, escaped) = (0, false, false)
        var (start, colon): (Int, Int?) = (0, nil)
        for (index, byte) in bytes.enumerated() {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                if depth == 1 { (start, colon) = (index + 1, nil) }
            case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 1, let colon {
                    // A trailing comma leaves a member with no colon, which is skipped.
                    guard let key = try? decoder.decode(String.self, from: Data(bytes[start..<colon])),
                          let value = try? decoder.decode(JSONValue.self, from: Data(bytes[(colon + 1)..<index])) else { return nil }
                    members.append((key, value))
                }
                if byte == UInt8(ascii: ",") { if depth == 1 { (start, colon) = (index + 1, nil) } } else { depth -= 1 }
            case UInt8(ascii: ":") where depth == 1 && colon == nil: colon = index
            default: break
            }
        }
        return members
    }
}
