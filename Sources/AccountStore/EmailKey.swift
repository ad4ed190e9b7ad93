import Foundation

extension AccountStore {
    /// The unique key of an email: trimmed, NFC, full Unicode case folding, NFC again.
    ///
    /// Full case folding (Unicode's CaseFolding.txt, statuses C and F) makes one key of
    /// every spelling a person would call the same address: `ΟΔΥΣΣΕΑΣ`, `οδυσσεας` and
    /// `οδυσσεασ` (final sigma); `STRASSE`, `straße` and `STRAẞE`; `ÄLICE` and NFD `älice`.
    /// Both backends store this key; it is the one function that computes it.
    public static func key(forEmail email: String) -> String {
        var folded = String.UnicodeScalarView()
        for scalar in normalized(email).unicodeScalars {
            CaseFolding.fold(scalar, into: &folded)
        }
        return String(folded).precomposedStringWithCanonicalMapping
    }

    /// The email as stored: trimmed of surrounding white space and in NFC.
    static func normalized(_ email: String) -> String {
        email.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
    }
}

/// Unicode full case folding built from the scalar properties Swift ships.
///
/// Lowercase, then uppercase, then lowercase again gives CaseFolding's C+F mapping for
/// every scalar but one block (checked against Python's `str.casefold` for all of Unicode
/// in the tests): `ς` → `Σ` → `σ`, `ẞ` → `ß` → `SS` → `ss`, `ﬃ` → `FFI` → `ffi`. Swift's
/// `lowercased()` alone keeps `ς` and `ß`, and Foundation's `.caseInsensitive` folding
/// keeps `ς`. Two exceptions: Cherokee folds to its uppercase letters, and dotless `ı`
/// has no folding outside Turkic rules (it must not become `i`).
enum CaseFolding {
    static func fold(_ scalar: Unicode.Scalar, into out: inout String.UnicodeScalarView) {
        let value = scalar.value
        if value == 0x131 {
            out.append(scalar)
            return
        }
        if (0x13A0...0x13FD).contains(value) || (0xAB70...0xABBF).contains(value) {
            out.append(contentsOf: scalar.properties.uppercaseMapping.unicodeScalars)
            return
        }
        if value < 0x80 {
            out.append(value >= 0x41 && value <= 0x5A ? Unicode.Scalar(value + 0x20)! : scalar)
            return
        }
        for lower in scalar.properties.lowercaseMapping.unicodeScalars {
            for upper in lower.properties.uppercaseMapping.unicodeScalars {
                out.append(contentsOf: upper.properties.lowercaseMapping.unicodeScalars)
            }
        }
    }
}
