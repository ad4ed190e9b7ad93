import AccountStore
import SignupCore
import WizardTerminal

/// The rows of an import file, read one record at a time: CSV (RFC 4180 quoting, with the header
/// `email,password` or `email,password_hash`) or JSON Lines (one object a line), told apart by
/// the first line. Every record is one physical line, at most ``LineInput/limit`` bytes: no email
/// or password may hold a line break, so a field never spans lines, and a quote left open cannot
/// take the rows after it along.
/// What an export's line keeps of an account besides its email and hash (`signup export`).
struct WholeAccount: Equatable {
    var state: AccountState
    var origin: String?
    var createdAt: String
    var passwordChangedAt: String?
}

struct RecordReader {
    enum Record {
        /// A row: its line's number, the email and the password (or PHC hash) as written, and
        /// what else an export's line keeps of the account (nil for a plain row).
        case row(line: Int, email: String, secret: String, isHash: Bool, whole: WholeAccount? = nil)
        /// A line that is no row: its number and the code that says why.
        case problem(line: Int, code: String)
    }

    private enum Format { case unknown, csv(isHash: Bool), csvWhole, jsonLines, unusable }

    private let input: LineInput
    private var format = Format.unknown
    private var lineNumber = 0

    init(_ input: LineInput) {
        self.input = input
    }

    /// The number of the last line read (0 before the first).
    var linesRead: Int { lineNumber }

    /// The next record, or nil at the end of the input (or after a first line that names no format).
    mutating func next() -> Record? {
        while true {
            guard let (line, text) = nextLine() else { return nil }
            guard let text else {
                // A first line that cannot be read names no format either: taken for a rejected row,
                // the next readable line became the header, and a binary file hundreds of rows.
                if case .unknown = format {
                    format = .unusable
                    return .problem(line: line, code: Self.headerInvalid)
                }
                return .problem(line: line, code: "line.unreadable")
            }
            // A blank line (nothing, or only spaces and tabs) holds no row, in either format.
            if text.utf8.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            switch format {
            case .unusable:
                return nil
            case .unknown:
                if text.hasPrefix("{") {
                    format = .jsonLines
                    return Self.jsonRecord(text, line: line)
                }
                if text.trimmingBlanks().lowercased() == Self.wholeHeader {
                    format = .csvWhole
                    continue
                }
                let header = try? Self.csvFields(text).get()
                switch (header?.email.trimmingBlanks().lowercased(), header?.secret.trimmingBlanks().lowercased()) {
                case ("email"?, "password"?): format = .csv(isHash: false)
                case ("email"?, "password_hash"?): format = .csv(isHash: true)
                default:
                    format = .unusable
                    return .problem(line: line, code: Self.headerInvalid)
                }
            case .jsonLines:
                return Self.jsonRecord(text, line: line)
            case .csvWhole:
                return Self.wholeCSVRecord(text, line: line)
            case .csv(let isHash):
                switch Self.csvFields(text) {
                case .success(let fields): return .row(line: line, email: fields.email, secret: fields.secret, isHash: isHash)
                case .failure(let problem): return .problem(line: line, code: problem.code)
                }
            }
        }
    }

    /// Why a first line refuses the file.
    private static let headerInvalid = "header.invalid (the first line must be email,password or email,password_hash, or a JSON object)"

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

    /// Why a CSV line is no row; `code` is what the report shows.
    enum CSVProblem: Error, Equatable {
        /// A quoted field whose closing quote is not on its line.
        case unterminatedQuote
        /// Text right after a quoted field's closing quote, other than the comma before the next field.
        case textAfterQuote
        /// One field only, or a third after a quoted password.
        case fieldCount

        var code: String {
            switch self {
            case .unterminatedQuote: "csv.unterminatedQuote"
            case .textAfterQuote: "csv.malformed"
            case .fieldCount: "csv.fieldCount"
            }
        }
    }

    /// The two fields of one CSV line. RFC 4180 quoting applies to a field that begins with `"`:
    /// it ends at the next lone `"` (`""` inside it is one quote), which must end the line or come
    /// right before the comma. A quote anywhere else is an ordinary character. The email ends at
    /// the first comma (an address holds none); everything after it is the password or hash,
    /// commas included, so an unquoted PHC hash (`m=…,t=…,p=…`) is one field.
    static func csvFields(_ line: String) -> Result<(email: String, secret: String), CSVProblem> {
        // Quotes and commas are ASCII: scanning the UTF-8 bytes splits only between characters.
        let text = Array(line.utf8)[...]
        let email: ArraySlice<UInt8>
        let rest: ArraySlice<UInt8>
        if text.first == quote {
            guard let (field, after) = quotedField(text) else { return .failure(.unterminatedQuote) }
            guard let next = after.first else { return .failure(.fieldCount) }
            guard next == comma else { return .failure(.textAfterQuote) }
            (email, rest) = (field, after.dropFirst())
        } else {
            guard let at = text.firstIndex(of: comma) else { return .failure(.fieldCount) }
            (email, rest) = (text[..<at], text[(at + 1)...])
        }
        let string = { (bytes: ArraySlice<UInt8>) in String(decoding: bytes, as: UTF8.self) }
        guard rest.first == quote else { return .success((string(email), string(rest))) }
        guard let (secret, after) = quotedField(rest) else { return .failure(.unterminatedQuote) }
        switch after.first {
        case nil: return .success((string(email), string(secret)))
        case comma: return .failure(.fieldCount)
        default: return .failure(.textAfterQuote)
        }
    }

    private static let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ",")

    /// The content of the quoted field `text` starts with (each `""` made one quote) and what
    /// follows its closing quote; nil when the line ends before the closing quote.
    private static func quotedField(_ text: ArraySlice<UInt8>) -> (ArraySlice<UInt8>, ArraySlice<UInt8>)? {
        var field: [UInt8] = []
        var index = text.startIndex + 1
        while index < text.endIndex {
            let byte = text[index]
            index += 1
            guard byte == quote else {
                field.append(byte)
                continue
            }
            guard index < text.endIndex, text[index] == quote else { return (field[...], text[index...]) }
            field.append(quote)
            index += 1
        }
        return nil
    }

    /// One JSON Lines object: `email` and `password` or `password_hash`, all strings, and no other key
    /// (a misspelt key must not leave a row without its password unnoticed).
    private static func jsonRecord(_ text: String, line: Int) -> Record {
        guard case .object(let members)? = try? JSONValue(parsing: text.utf8) else { return .problem(line: line, code: "json.malformed") }
        // A key given twice is refused: JSON leaves it open which value counts, and tools differ
        // (a row's author may have meant the first password where another reader takes the last).
        var object: [String: JSONValue] = [:]
        for member in members {
            guard object.updateValue(member.value, forKey: member.key) == nil else {
                return .problem(line: line, code: "json.duplicateKey (a key is given twice)")
            }
        }
        guard Set(object.keys).isSubset(of: ["email", "password", "password_hash"] + Self.wholeKeys) else {
            return .problem(line: line, code: "json.unknownKey (only email, password, password_hash, state, origin, created_at and password_changed_at)")
        }
        func string(_ key: String) -> String? {
            guard case .string(let value)? = object[key] else { return nil }
            return value
        }
        // origin and password_changed_at may be null (none, never), as an export writes them.
        let nullable: Set<String> = ["origin", "password_changed_at"]
        guard object.allSatisfy({ string($0.key) != nil || (nullable.contains($0.key) && $0.value == .null) }) else {
            return .problem(line: line, code: "json.notAString")
        }
        var whole: WholeAccount?
        if object.keys.contains(where: Self.wholeKeys.contains) {
            // An export's line: all of it, or the account would come back changed.
            guard Set(Self.wholeKeys).isSubset(of: object.keys), string("password_hash") != nil else {
                return .problem(line: line, code: "json.wholeAccount (an exported account has password_hash, state, origin, created_at and password_changed_at)")
            }
            guard let state = AccountState(rawValue: string("state") ?? "") else {
                return .problem(line: line, code: "json.state (active, disabled or pending)")
            }
            guard let created = string("created_at"), Self.isTimestamp(created),
                  string("password_changed_at").map(Self.isTimestamp) ?? true else {
                return .problem(line: line, code: "json.date (a UTC time as 2026-11-22T02:35:12Z)")
            }
            guard string("origin").map(Self.isPlainOrigin) ?? true else { return .problem(line: line, code: Self.originProblem("json")) }
            whole = WholeAccount(state: state, origin: string("origin"), createdAt: created, passwordChangedAt: string("password_changed_at"))
        }
        switch (string("password"), string("password_hash")) {
        case (let password?, nil): return .row(line: line, email: string("email") ?? "", secret: password, isHash: false)
        case (nil, let hash?): return .row(line: line, email: string("email") ?? "", secret: hash, isHash: true, whole: whole)
        default: return .problem(line: line, code: "json.passwordOrHash (give exactly one of password and password_hash)")
        }
    }

    /// The header of `signup export --csv`: its rows are whole accounts.
    static let wholeHeader = "email,password_hash,state,origin,created_at,password_changed_at"

    /// One row of `signup export --csv`: six RFC 4180 fields, each quoted (a quote doubled inside)
    /// or unquoted without quotes; an empty origin or password_changed_at is none.
    private static func wholeCSVRecord(_ text: String, line: Int) -> Record {
        var fields: [String] = []
        var rest = Array(text.utf8)[...]
        while true {
            var field: [UInt8] = []
            if rest.first == quote {
                guard let (quoted, after) = quotedField(rest) else { return .problem(line: line, code: CSVProblem.unterminatedQuote.code) }
                field = Array(quoted)
                rest = after
            } else {
                let end = rest.firstIndex(of: comma) ?? rest.endIndex
                field = Array(rest[..<end])
                guard !field.contains(quote) else { return .problem(line: line, code: CSVProblem.textAfterQuote.code) }
                rest = rest[end...]
            }
            fields.append(String(decoding: field, as: UTF8.self))
            guard let next = rest.first else { break }
            guard next == comma else { return .problem(line: line, code: CSVProblem.textAfterQuote.code) }
            rest = rest.dropFirst()
        }
        guard fields.count == 6 else { return .problem(line: line, code: CSVProblem.fieldCount.code) }
        guard let state = AccountState(rawValue: fields[2]) else { return .problem(line: line, code: "csv.state (active, disabled or pending)") }
        let changed = fields[5].isEmpty ? nil : fields[5]
        guard isTimestamp(fields[4]), changed.map(isTimestamp) ?? true else {
            return .problem(line: line, code: "csv.date (a UTC time as 2026-11-22T02:35:12Z)")
        }
        guard isPlainOrigin(fields[3]) else { return .problem(line: line, code: originProblem("csv")) }
        return .row(line: line, email: fields[0], secret: fields[1], isHash: true,
                    whole: WholeAccount(state: state, origin: fields[3].isEmpty ? nil : fields[3], createdAt: fields[4], passwordChangedAt: changed))
    }

    /// Whether an export's origin (the client address a public sign-up came from) is plain text:
    /// at most 255 characters and no control character, which a terminal showing the column
    /// (`sqlite3`, `psql`) would obey.
    static func isPlainOrigin(_ origin: String) -> Bool {
        origin.unicodeScalars.count <= 255
            && !origin.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }

    /// Why an origin was refused, for the format `format` (json or csv).
    static func originProblem(_ format: String) -> String {
        "\(format).origin (a client address: no control character, at most 255 characters)"
    }

    /// The keys an export's line adds to email and password_hash.
    static let wholeKeys = ["state", "origin", "created_at", "password_changed_at"]

    /// Whether `text` is a UTC time as signup stores them: `2026-11-22T02:35:12Z`.
    static func isTimestamp(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 20 else { return false }
        let pattern = Array("0000-00-00T00:00:00Z".utf8)
        return zip(bytes, pattern).allSatisfy { byte, expected in
            expected == UInt8(ascii: "0") ? (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) : byte == expected
        }
    }
}
