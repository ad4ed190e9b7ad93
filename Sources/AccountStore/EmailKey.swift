import SignupCore

extension AccountStore {
    /// The unique key of an email: trimmed, NFC, full Unicode case folding, NFC again.
    ///
    /// Full case folding (Unicode's CaseFolding.txt, statuses C and F) makes one key of
    /// every spelling a person would call the same address: `ΟΔΥΣΣΕΑΣ`, `οδυσσεας` and
    /// `οδυσσεασ` (final sigma); `STRASSE`, `straße` and `STRAẞE`; `ÄLICE` and NFD `älice`.
    /// Swift's `lowercased()` alone keeps `ς` and `ß`. Dotless `ı` keeps its own key (its
    /// folding to `i` is Turkic only). Both backends store this key; it is the one function
    /// that computes it.
    public static func key(forEmail email: String) -> String {
        UnicodeText.nfc(UnicodeText.caseFolded(normalized(email)))
    }

    /// The email as stored: trimmed of surrounding white space and line breaks, and in NFC.
    static func normalized(_ email: String) -> String {
        UnicodeText.nfc(email.trimmingBlanksAndNewlines())
    }
}
