/// The one function every echo of outside text goes through (an email after its prompt, in
/// a review, in an error, in `signup list`): control characters become visible, so input can
/// never send an escape sequence, a carriage return or a bidirectional override to a terminal.
public enum VisibleText {
    /// `text` with every C0 control, DEL and C1 control shown in caret or `<U+XXXX>` form,
    /// and every bidirectional formatting character and line or paragraph separator as `<U+XXXX>`.
    ///
    /// `"a\u{1B}[2J"` becomes `"a^[[2J"`, `"\r"` becomes `"^M"`, `"\u{9B}"` becomes `"<U+009B>"`.
    public static func of(_ text: String) -> String {
        isPrintableASCII(text) ? text : shown(text, escaping: needsEscape)
    }

    /// `text` as ``of(_:)`` shows it, and every character that draws nothing by itself as
    /// `<U+XXXX>` too: default-ignorable code points and format characters (a zero-width space,
    /// a soft hyphen, U+FEFF, variation selectors, tag characters; `Unicode.Scalar.isInvisible`).
    ///
    /// For a listing of stored values (`signup list`), where two that look alike must be told
    /// apart: `"ad\u{200B}min@example.com"` becomes `"ad<U+200B>min@example.com"`. An emoji's
    /// variation selector or joiner is shown too, so keep it to values no one reads as prose.
    public static func revealingInvisible(_ text: String) -> String {
        isPrintableASCII(text) ? text : shown(text) { needsEscape($0) || $0.isInvisible }
    }

    /// Printable ASCII never needs a change: checked byte by byte first (every row of `signup list`).
    @inline(__always)
    private static func isPrintableASCII(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { bytes in bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F } } == true
    }

    private static func shown(_ text: String, escaping hides: (Unicode.Scalar) -> Bool) -> String {
        guard text.unicodeScalars.contains(where: hides) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x00...0x1F:
                out += "^"
                out.unicodeScalars.append(Unicode.Scalar(UInt8(scalar.value + 0x40)))
            case 0x7F:
                out += "^?"
            case _ where hides(scalar):
                out += "<U+" + hex(scalar.value) + ">"
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Whether a scalar must not reach a terminal as it is.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true  // bidirectional controls
        case 0x2028, 0x2029: return true  // line and paragraph separators
        default: return false
        }
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
