internal import CIdn2

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Internationalized domain names (UTS #46, nontransitional, through libidn2): the only code that
/// calls libidn2, which is loaded the first time a domain needs it.
///
/// A domain of ASCII letters, digits, hyphens and dots with no `xn--` label is its own Unicode
/// form once lowercased, and never reaches libidn2: most addresses load nothing. Such a domain is
/// not judged by UTS #46's hyphen rule either (`ab--cd.com` is a host name RFC 5321 allows, and
/// was accepted before IDNA); a domain with a non-ASCII or `xn--` label is judged whole, so there
/// a `--` in a label's third and fourth places is refused.
package enum IDNA {
    /// What UTS #46 makes of a domain.
    package enum Verdict: Equatable, Sendable {
        /// A valid domain and its Unicode form (ToUnicode of its ToASCII): `xn--bcher-kva.de`,
        /// `BÜCHER.de` and `bücher.de` all give `bücher.de`.
        case valid(String)
        /// Not a domain IDNA allows: a label that does not decode (`xn--zz`), too long once
        /// encoded, a code point UTS #46 disallows…
        case invalid
        /// libidn2 cannot be loaded, so nothing can be said: why.
        case unavailable(String)
    }

    /// The Unicode form of `domain` under UTS #46 nontransitional processing, or why there is none.
    package static func unicodeForm(ofDomain domain: String) -> Verdict {
        if let plain = plainASCII(domain) { return .valid(plain) }
        return converted(domain, by: signup_idn2_unicode_form) { isDomainText($0) }
    }

    /// The ASCII form of `domain` under UTS #46 (its non-ASCII labels as `xn--`): the form a mail
    /// header and an MTA take. A plain ASCII domain is returned lowercased without libidn2.
    package static func asciiForm(ofDomain domain: String) -> Verdict {
        if let plain = plainASCII(domain) { return .valid(plain) }
        return converted(domain, by: signup_idn2_ascii_form) { $0.utf8.allSatisfy { $0 < 0x80 } && isDomainText($0) }
    }

    /// `domain` through one of libidn2's conversions, when the result is `acceptable`.
    private static func converted(_ domain: String, by conversion: (UnsafePointer<CChar>, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32,
                                  acceptable: (String) -> Bool) -> Verdict {
        // Only what a domain of an address may hold reaches libidn2 (which, without STD3 rules,
        // would keep a control character or a space), and only such a domain comes back: a
        // key's domain then never changes when its key is computed again. No NUL, either, to end
        // the C string early.
        guard isDomainText(domain) else { return .invalid }
        var result: UnsafeMutablePointer<CChar>?
        let code = conversion(domain, &result)
        defer { free(result) }
        if let reason = signup_idn2_failure() { return .unavailable(String(cString: reason)) }
        guard code == IDN2_OK.rawValue, let result else { return .invalid }
        let form = String(decoding: UnsafeRawBufferPointer(start: result, count: strlen(result)), as: UTF8.self)
        return acceptable(form) ? .valid(form) : .invalid
    }

    /// Letters, marks, decimal digits, hyphens and dots: the characters of an address's domain
    /// (``EmailSyntax``).
    private static func isDomainText(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                 .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber:
                true
            default:
                scalar == "-" || scalar == "."
            }
        }
    }

    /// Why libidn2 cannot be loaded, or nil when it is (loading it now).
    package static var unavailableReason: String? {
        signup_idn2_failure().map { String(cString: $0) }
    }

    /// `domain` lowercased, when it is letters, digits, hyphens and dots of ASCII and no label
    /// starts with `xn--` (in any case); else nil.
    private static func plainASCII(_ domain: String) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(domain.utf8.count)
        var labelStart = 0
        for byte in domain.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): bytes.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): bytes.append(byte | 0x20)
            case UInt8(ascii: "."):
                bytes.append(byte)
                labelStart = bytes.count
            case UInt8(ascii: "-"):
                if bytes.count == labelStart + 3 && bytes[labelStart...] == [UInt8(ascii: "x"), UInt8(ascii: "n"), UInt8(ascii: "-")] {
                    return nil
                }
                bytes.append(byte)
            default: return nil
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
