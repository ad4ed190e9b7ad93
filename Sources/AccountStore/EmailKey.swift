import SignupCore

extension AccountStore {
    /// The unique key of an email: trimmed, NFC, full Unicode case folding, NFC again; its
    /// domain first in its Unicode form under IDNA (UTS #46, nontransitional).
    ///
    /// Full case folding (Unicode's CaseFolding.txt, statuses C and F) makes one key of
    /// every spelling a person would call the same address: `ΟΔΥΣΣΕΑΣ`, `οδυσσεας` and
    /// `οδυσσεασ` (final sigma); `STRASSE`, `straße` and `STRAẞE`; `ÄLICE` and NFD `älice`.
    /// Swift's `lowercased()` alone keeps `ς` and `ß`. Dotless `ı` keeps its own key (its
    /// folding to `i` is Turkic only).
    ///
    /// The domain (after the last `@`) is taken to its Unicode form before it is folded, so a
    /// domain and its punycode are one key: `a@bücher.de`, `a@BÜCHER.de` and
    /// `a@xn--bcher-kva.de` are all `a@bücher.de`. The key keeps the Unicode form, the one
    /// existing keys of non-ASCII domains already had. A domain IDNA refuses (the email rule
    /// refuses it too, so only an older account can hold one) is folded, and keyed as its folded
    /// form if IDNA allows that, else as it is, as before. The
    /// local part is never touched by IDNA. Both backends store this key; it is the one
    /// function that computes it.
    ///
    /// When libidn2 cannot be loaded, a domain that is not plain ASCII is folded only; the stores
    /// never use such a key: they compute theirs with `checkedKey(forEmail:)`, which refuses.
    public static func key(forEmail email: String) -> String {
        computeKey(email).key
    }

    /// ``key(forEmail:)``, or a storage failure that says why when the domain needs libidn2 and
    /// libidn2 cannot be loaded: a key computed without it would not find, or would duplicate,
    /// the account of the same address spelt another way. Every key a store reads or writes
    /// comes from here.
    static func checkedKey(forEmail email: String) throws(StoreError) -> String {
        let (key, unavailable) = computeKey(email)
        if let unavailable {
            throw .unavailable(reason: "\(unavailable); the account key of an address with an international domain needs it")
        }
        return key
    }

    /// The key, and why libidn2 could not be asked when it was needed.
    private static func computeKey(_ email: String) -> (key: String, unavailable: String?) {
        let email = normalized(email)
        guard let at = email.lastIndex(of: "@") else { return (folded(email), nil) }
        let domain = String(email[email.index(after: at)...])
        // A domain IDNA refuses is folded, and IDNA asked again about the folded form: folding
        // can make a valid one (`xn--VVßz` folds to `xn--vvssz`, which decodes), and a key must
        // be its own key.
        var unavailable: String?
        for candidate in [domain, folded(domain)] {
            switch IDNA.unicodeForm(ofDomain: candidate) {
            case .valid(let form) where !form.contains("@"): return (folded(String(email[...at]) + form), nil)
            case .valid, .invalid: continue
            case .unavailable(let reason): unavailable = reason
            }
        }
        return (folded(email), unavailable)
    }

    private static func folded(_ text: String) -> String {
        UnicodeText.nfc(UnicodeText.caseFolded(text))
    }

    /// The email as stored: trimmed of surrounding white space and line breaks, and in NFC.
    static func normalized(_ email: String) -> String {
        UnicodeText.nfc(email.trimmingBlanksAndNewlines())
    }
}
