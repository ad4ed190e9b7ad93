/// A JSON value (RFC 8259) as read, with nothing dropped: booleans apart from numbers, whole
/// numbers exact, an object's members in their order with a key given twice kept twice.
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number without fraction or exponent that fits an `Int`: exact.
    case integer(Int)
    /// Any other number: the nearest `Double` (`1.5`, `1e3`, `-0.0`, a whole number beyond `Int`;
    /// `1e-400` is 0). One beyond `Double`'s range, such as `1e999`, is an error.
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])

    /// The value in `bytes`, one JSON text in UTF-8 with nothing but white space around it.
    ///
    /// Strict: no byte order mark, trailing comma, comment, leading zero, control character or
    /// invalid UTF-8 in a string, lone surrogate escape, or nesting deeper than
    /// ``JSONReader/maximumDepth``. It reads without recursion and in time linear in the input.
    package init(parsing bytes: some Collection<UInt8>) throws(JSONError) {
        var reader = JSONReader(Array(bytes))
        self = try reader.document()
    }
}

/// One member of a JSON object.
package struct JSONMember: Sendable, Equatable {
    package var key: String
    package var value: JSONValue

    package init(_ key: String, _ value: JSONValue) {
        (self.key, self.value) = (key, value)
    }
}

/// Why bytes are not one JSON text, and the offset of the byte where that was found.
package struct JSONError: Error, Equatable {
    package enum Reason: Sendable, Equatable {
        /// Not JSON's grammar: a byte that cannot come there, or the input ends too early.
        case syntax
        /// A raw control character (below U+0020) in a string; an escape such as `\u0000` is fine.
        case controlCharacter
        /// A string's bytes are not UTF-8.
        case invalidUTF8
        /// A `\uD800`–`\uDFFF` escape that is not half of a surrogate pair.
        case loneSurrogate
        /// A number beyond `Double`'s range.
        case numberOutOfRange
        /// Arrays and objects nested deeper than ``JSONReader/maximumDepth``.
        case tooDeep
    }

    package var reason: Reason
    package var offset: Int
}

/// Reads one JSON text from bytes; see ``JSONValue/init(parsing:)``.
package struct JSONReader {
    /// The most arrays and objects one value may be inside of each other.
    package static let maximumDepth = 64

    /// An array or object still open: its items so far, or its members and the key of the next.
    private struct Open {
        let isObject: Bool
        var items: [JSONValue] = []
        var members: [JSONMember] = []
        var key = ""
    }

    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The value, read with a stack of open containers instead of recursion: a hostile file
    /// cannot exhaust the thread's stack, and the depth limit is a count.
    mutating func document() throws(JSONError) -> JSONValue {
        var open: [Open] = []
        var value: JSONValue
        nextValue: while true {
            skipWhiteSpace()
            guard index < bytes.count else { throw error(.syntax) }
            switch bytes[index] {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                let isObject = bytes[index] == UInt8(ascii: "{")
                guard open.count < Self.maximumDepth else { throw error(.tooDeep) }
                index += 1
                skipWhiteSpace()
                if take(isObject ? "}" : "]") {
                    value = isObject ? .object([]) : .array([])
                } else {
                    open.append(Open(isObject: isObject))
                    if isObject { open[open.count - 1].key = try key() }
                    continue nextValue
                }
            case UInt8(ascii: "\""): value = .string(try string())
            case UInt8(ascii: "t"): value = try literal("true", .bool(true))
            case UInt8(ascii: "f"): value = try literal("false", .bool(false))
            case UInt8(ascii: "n"): value = try literal("null", .null)
            default: value = try number()
            }
            // The value ends every container it closes, then goes into the one still open.
            while !open.isEmpty {
                let last = open.count - 1
                if open[last].isObject {
                    open[last].members.append(JSONMember(open[last].key, value))
                } else {
                    open[last].items.append(value)
                }
                skipWhiteSpace()
                if take(",") {
                    if open[last].isObject { open[last].key = try key() }
                    continue nextValue
                }
                guard take(open[last].isObject ? "}" : "]") else { throw error(.syntax) }
                let closed = open.removeLast()
                value = closed.isObject ? .object(closed.members) : .array(closed.items)
            }
            break
        }
        skipWhiteSpace()
        guard index == bytes.count else { throw error(.syntax) }
        return value
    }

    private func error(_ reason: JSONError.Reason) -> JSONError {
        JSONError(reason: reason, offset: index)
    }

    private mutating func skipWhiteSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    /// Skips `byte` if it comes next.
    private mutating func take(_ byte: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: byte) else { return false }
        index += 1
        return true
    }

    /// A member's key and its colon.
    private mutating func key() throws(JSONError) -> String {
        skipWhiteSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error(.syntax) }
        let key = try string()
        skipWhiteSpace()
        guard take(":") else { throw error(.syntax) }
        return key
    }

    private mutating func literal(_ word: String, _ value: JSONValue) throws(JSONError) -> JSONValue {
        guard bytes[index...].starts(with: word.utf8) else { throw error(.syntax) }
        index += word.utf8.count
        return value
    }

    /// `-? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?`
    private mutating func number() throws(JSONError) -> JSONValue {
        let start = index
        _ = take("-")
        let first = index
        guard digits() > 0, bytes[first] != UInt8(ascii: "0") || index - first == 1 else { throw error(.syntax) }
        var isWhole = true
        if take(".") {
            guard digits() > 0 else { throw error(.syntax) }
            isWhole = false
        }
        if take("e") || take("E") {
            _ = take("+") || take("-")
            guard digits() > 0 else { throw error(.syntax) }
            isWhole = false
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isWhole, let integer = Int(text) { return .integer(integer) }
        guard let number = Double(text), number.isFinite else {
            index = start
            throw error(.numberOutOfRange)
        }
        return .number(number)
    }

    /// Skips the ASCII digits that come next and says how many there were.
    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        return index - start
    }

    /// A string, from its opening quote to its closing one.
    private mutating func string() throws(JSONError) -> String {
        let start = index
        index += 1
        var utf8: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: utf8, as: UTF8.self) else {
                    index = start
                    throw error(.invalidUTF8)
                }
                return text
            case UInt8(ascii: "\\"):
                try escape(into: &utf8)
            case 0..<0x20:
                throw error(.controlCharacter)
            default:
                utf8.append(byte)
                index += 1
            }
        }
        throw error(.syntax)
    }

    /// The escape at `index` (its backslash), as UTF-8.
    private mutating func escape(into utf8: inout [UInt8]) throws(JSONError) {
        let start = index
        index += 1
        guard index < bytes.count else { throw error(.syntax) }
        let simple: UInt8? = switch bytes[index] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes[index]
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
        if let simple {
            utf8.append(simple)
            index += 1
            return
        }
        guard bytes[index] == UInt8(ascii: "u") else { throw error(.syntax) }
        index += 1
        var code = try hex4()
        if (0xD800...0xDBFF).contains(code) {
            guard take("\\"), take("u") else {
                index = start
                throw error(.loneSurrogate)
            }
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low) else {
                index = start
                throw error(.loneSurrogate)
            }
            code = 0x10000 + (code - 0xD800) << 10 + (low - 0xDC00)
        }
        guard let scalar = Unicode.Scalar(code) else {
            index = start
            throw error(.loneSurrogate)
        }
        UTF8.encode(scalar) { utf8.append($0) }
    }

    /// Four hexadecimal digits.
    private mutating func hex4() throws(JSONError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw error(.syntax) }
        var code: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Character(Unicode.Scalar(bytes[index])).hexDigitValue else { throw error(.syntax) }
            code = code << 4 | UInt32(digit)
            index += 1
        }
        return code
    }
}
