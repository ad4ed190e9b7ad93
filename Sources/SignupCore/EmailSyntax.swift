/// Checks an email address's syntax against the "standard" policy's rule.
///
/// The rule: at most 254 UTF-8 bytes; exactly one `@`; a local part of 1–64 bytes made of letters, digits and
/// `.!#$%&'*+/=?^_{|}~-` and the backtick, with no leading, trailing or double dot; a domain of two or more dot-separated labels
/// of 1–63 bytes made of letters, digits and `-`, with no leading or trailing hyphen; a last label that is not all
/// digits. No quoted local parts, comments, IP literals, whitespace or control characters.
///
/// "Letter" and "digit" are Unicode aware (RFC 6531 / IDNA2008): a letter is any scalar of general category L*,
/// a digit is any decimal digit (Nd), and combining marks (Mn, Mc, Me) are allowed after a letter, digit or mark,
/// which keeps scripts such as Devanagari and Thai, whose vowel signs are marks, whole. The check is syntax only:
/// no normalization, no IDNA mapping, no DNS.
public enum EmailSyntax {
    /// The outcome of a syntax check, one per code (`email.tooLong`, `email.invalid`).
    public enum Verdict: Sendable, Equatable {
        /// The address follows the syntax.
        case valid
        /// Over 254 UTF-8 bytes (`email.tooLong`).
        case tooLong
        /// Anything else wrong with it (`email.invalid`).
        case invalid
    }

    /// The longest address accepted, in UTF-8 bytes (254).
    public static let maximumBytes = 254
    /// The longest local part, in UTF-8 bytes.
    public static let maximumLocalPartBytes = 64
    /// The longest domain label, in UTF-8 bytes.
    public static let maximumLabelBytes = 63

    /// `address` is already trimmed by the caller. Returns .tooLong when over 254 UTF-8 bytes (checked before anything else), .invalid for any other failure.
    public static func check(_ address: String) -> Verdict {
        if address.utf8.count > maximumBytes { return .tooLong }
        return isWellFormed(address) ? .valid : .invalid
    }

    /// What one scalar can be in an address.
    private enum Kind: Equatable {
        /// The start of the local part or of a label: nothing before it yet.
        case start
        case letter, digit, mark, dot, hyphen, at
        /// One of ``!#$%&'*+/=?^_`{|}~``: allowed in the local part only.
        case symbol
        /// Anything else: space, control, quote, bracket, other punctuation, emoji…
        case other
    }

    /// One pass over the UTF-8 bytes; no allocation for native strings.
    private static func isWellFormed(_ address: String) -> Bool {
        if let result = address.utf8.withContiguousStorageIfAvailable(isWellFormed(utf8:)) { return result }
        var copy = address
        copy.makeContiguousUTF8()
        return copy.utf8.withContiguousStorageIfAvailable(isWellFormed(utf8:)) ?? false
    }

    private static func isWellFormed(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var inDomain = false
        var partBytes = 0
        var labels = 0
        var labelAllDigits = true
        var previous = Kind.start
        var index = 0

        while index < bytes.count {
            let lead = bytes[index]
            let width: Int
            let kind: Kind
            if lead < 0x80 {
                width = 1
                kind = asciiKind(lead)
            } else {
                // A Swift String always holds valid UTF-8: decode the scalar without re-validating.
                width = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
                var value = UInt32(lead & (0x7F >> width))
                for offset in 1..<width { value = value << 6 | UInt32(bytes[index + offset] & 0x3F) }
                guard let scalar = Unicode.Scalar(value) else { return false }
                kind = unicodeKind(scalar)
            }
            index += width

            if kind == .at {
                // A second `@`, an empty local part, or one ending in a dot.
                guard !inDomain, partBytes > 0, previous != .dot else { return false }
                inDomain = true
                partBytes = 0
                previous = .start
                continue
            }

            switch kind {
            case .letter:
                labelAllDigits = false
            case .symbol:
                if inDomain { return false }
            case .digit:
                break
            case .mark:
                guard previous == .letter || previous == .digit || previous == .mark else { return false }
                labelAllDigits = false
            case .hyphen:
                guard !inDomain || previous != .start else { return false }
                labelAllDigits = false
            case .dot:
                guard previous != .start, previous != .dot else { return false }
                if inDomain {
                    guard previous != .hyphen else { return false }
                    labels += 1
                    partBytes = 0
                    labelAllDigits = true
                    previous = .start
                    continue
                }
            case .start, .at, .other:
                return false
            }

            partBytes += width
            if partBytes > (inDomain ? maximumLabelBytes : maximumLocalPartBytes) { return false }
            previous = kind
        }

        // The last label: present, not ending in a hyphen, not all digits, after at least one other label.
        return inDomain && partBytes > 0 && previous != .hyphen && !labelAllDigits && labels >= 1
    }

    /// Bit `n` set when ASCII `n` is one of ``!#$%&'*+/=?^_`{|}~`` (low word: 0–63, high word: 64–127).
    private static let symbolsLow: UInt64 = 0xA000_8CFA_0000_0000
    private static let symbolsHigh: UInt64 = 0x7800_0001_C000_0000

    private static func asciiKind(_ byte: UInt8) -> Kind {
        if (byte | 0x20) &- UInt8(ascii: "a") < 26 { return .letter }
        if byte &- UInt8(ascii: "0") < 10 { return .digit }
        switch byte {
        case UInt8(ascii: "."): return .dot
        case UInt8(ascii: "-"): return .hyphen
        case UInt8(ascii: "@"): return .at
        case ..<64: return symbolsLow & (1 << UInt64(byte)) != 0 ? .symbol : .other
        default: return symbolsHigh & (1 << UInt64(byte - 64)) != 0 ? .symbol : .other
        }
    }

    private static func unicodeKind(_ scalar: Unicode.Scalar) -> Kind {
        // A letter utf8proc does not know yet would not fold: its account's key could change with
        // the next utf8proc (UnicodeText.isAssigned). Until then it is no letter of an address.
        guard UnicodeText.isAssigned(scalar) else { return .other }
        return switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: .letter
        case .nonspacingMark, .spacingMark, .enclosingMark: .mark
        case .decimalNumber: .digit
        default: .other
        }
    }
}
