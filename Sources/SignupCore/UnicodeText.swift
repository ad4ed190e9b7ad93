import CUtf8proc

/// Unicode normalization and case folding for every module of the package: the only code that
/// calls utf8proc (Foundation's own would link ICU's data into every program built on the libraries).
///
/// Each function takes and returns Swift strings, which are always valid UTF-8, and frees what
/// utf8proc allocated before it returns. Text that is all ASCII never reaches utf8proc: it is
/// its own NFC and NFKC form, and folds by ASCII lowercasing.
package enum UnicodeText {
    /// The canonical composition (NFC) of `text`: `"a\u{308}"` becomes `"ä"`.
    package static func nfc(_ text: String) -> String {
        isASCII(text) ? text : map(text, UTF8PROC_STABLE.rawValue | UTF8PROC_COMPOSE.rawValue)
    }

    /// The compatibility composition (NFKC) of `text`: fullwidth `ａ` becomes `a`, `ﬁ` becomes `fi`.
    package static func nfkc(_ text: String) -> String {
        isASCII(text) ? text : map(text, UTF8PROC_STABLE.rawValue | UTF8PROC_COMPOSE.rawValue | UTF8PROC_COMPAT.rawValue)
    }

    /// Letter case only, one code point for one: each uppercase or titlecase letter becomes its
    /// simple lowercase partner when the two are a case pair, and nothing else changes.
    ///
    /// `Σ` becomes `σ` and `ẞ` becomes `ß`, but `ß` stays `ß` (never `ss`), final `ς` stays `ς`
    /// (never `σ`), `İ` stays `İ` (its lowercase `i` belongs to `I`), `ϴ` stays `ϴ` (`θ` belongs
    /// to `Θ`), and lowercase variants (`ſ`, `ϐ`, `µ`) keep their own identity. Unlike Unicode's
    /// full case folding it never changes a text's length in code points or maps one lowercase
    /// letter to another, so it never makes two different names one.
    /// A letter `X` is lowered to `y` only when `y`'s simple uppercase or titlecase is `X`, or
    /// `y` has no single uppercase of its own (`ß` for `ẞ`).
    package static func lowercasedLetterCase(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar.value < 0x80 {
                scalars.append(("A"..."Z").contains(scalar) ? Unicode.Scalar(UInt8(scalar.value) + 0x20) : scalar)
                continue
            }
            let code = utf8proc_int32_t(bitPattern: scalar.value)
            let lower = utf8proc_tolower(code)
            guard lower != code, let lowered = Unicode.Scalar(UInt32(bitPattern: lower)) else {
                scalars.append(scalar)
                continue
            }
            let upper = utf8proc_toupper(lower)
            let isPair = upper == code || utf8proc_totitle(lower) == code || upper == lower
            scalars.append(isPair ? lowered : scalar)
        }
        return String(scalars)
    }

    /// The version of Unicode whose tables utf8proc has: `15.0.0` with Debian 12's utf8proc 2.8.
    package static var unicodeVersion: String { String(cString: utf8proc_unicode_version()) }

    /// Whether `scalar` is assigned in utf8proc's Unicode. The standard library's own tables may be
    /// newer; a letter only they know is neither normalized nor folded here, so an email holding
    /// one would get a key that a later utf8proc computes differently. Unicode keeps the folding
    /// and normalization of assigned characters stable, so keys made of assigned ones never change.
    package static func isAssigned(_ scalar: Unicode.Scalar) -> Bool {
        utf8proc_category(utf8proc_int32_t(bitPattern: scalar.value)) != UTF8PROC_CATEGORY_CN
    }

    private static func isASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 < 0x80 }
    }

    /// `utf8proc_map` over the bytes of `text` with their length (a NUL is a character like any
    /// other, not the end), its result copied into a String and freed.
    private static func map(_ text: String, _ options: UInt32) -> String {
        var text = text
        return text.withUTF8 { bytes in
            var result: UnsafeMutablePointer<utf8proc_uint8_t>?
            let count = utf8proc_map(bytes.baseAddress, utf8proc_ssize_t(bytes.count), &result, utf8proc_option_t(rawValue: options))
            defer { free(result) }
            // Valid UTF-8 in, so only running out of memory can fail (as a Swift allocation would).
            guard count >= 0, let result else { preconditionFailure("utf8proc: \(String(cString: utf8proc_errmsg(count)))") }
            return String(decoding: UnsafeBufferPointer(start: result, count: count), as: UTF8.self)
        }
    }
}

extension Unicode.Scalar {
    /// Horizontal white space as Foundation's `CharacterSet.whitespaces` has it, which trimming
    /// kept: tab, the space separators (`Zs`: space, no-break space, the typographic spaces,
    /// ideographic space) and zero width space.
    package var isBlank: Bool {
        switch value {
        case 0x09, 0x20, 0xA0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }

    /// ``isBlank`` or a line break, as Foundation's `CharacterSet.whitespacesAndNewlines`:
    /// U+000A to U+000D, next line, line and paragraph separators.
    package var isBlankOrNewline: Bool {
        switch value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
        default: isBlank
        }
    }
}

extension StringProtocol {
    /// The text without ``Unicode/Scalar/isBlank`` scalars at either end.
    package func trimmingBlanks() -> String { trimming(where: \.isBlank) }

    /// The text without ``Unicode/Scalar/isBlankOrNewline`` scalars at either end.
    package func trimmingBlanksAndNewlines() -> String { trimming(where: \.isBlankOrNewline) }

    /// The text without the scalars `isTrimmed` picks at either end, scalar by scalar (a
    /// combining mark after a trimmed space stays, as in Foundation's trimming).
    private func trimming(where isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars: Substring.UnicodeScalarView = Substring(self).unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }), let last = scalars.lastIndex(where: { !isTrimmed($0) }) else {
            return ""
        }
        let kept: Substring.UnicodeScalarView = scalars[first...last]
        return String(Substring(kept))
    }
}
