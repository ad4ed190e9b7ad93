import SignupCore

extension AccountStore {
    /// The unique key of an email: trimmed, NFC, letter case lowered in the local part, the
    /// domain in its Unicode form under IDNA (UTS #46, nontransitional).
    ///
    /// Two addresses share a key only when mail to one reaches the other's reader. Only two
    /// differences are of that kind: letter case (`ÄLICE`, `älice` and NFD `älice`; `ΣΟΦΙΑ` and
    /// `σοφια`; `STRAẞE` and `straße`) and a domain's Unicode and ASCII forms (`a@bücher.de`,
    /// `a@BÜCHER.de` and `a@xn--bcher-kva.de` are all `a@bücher.de`). No fold that changes which
    /// mailbox is meant: `straße` and `strasse`, `οδυσσεας` (final sigma) and `οδυσσεασ`, `İ`
    /// and `I` are different names, and `straße.de` and `strasse.de` are different domains with
    /// different owners. Unicode's full case folding joins each of those pairs, so it is not used;
    /// the local part is lowered letter by letter to case partners only
    /// (`UnicodeText.lowercasedLetterCase`), and the domain is what IDNA's nontransitional
    /// processing, which DNS resolvers use, makes of it (it keeps `ß` and `ς`).
    ///
    /// A domain IDNA refuses (the email rule refuses it too, so only an older account can hold
    /// one) has its letter case lowered, and is keyed as IDNA's form of that if IDNA allows it,
    /// else as it is. The local part is never touched by IDNA. Both backends store this key; it
    /// is the one function that computes it.
    ///
    /// When libidn2 cannot be loaded, a domain that is not plain ASCII is lowered only; the stores
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
        guard let at = email.lastIndex(of: "@") else { return (lowered(email), nil) }
        let local = lowered(String(email[...at]))
        let domain = String(email[email.index(after: at)...])
        // A domain IDNA refuses is lowered, and IDNA asked again about that form, so that a key
        // is its own key.
        var unavailable: String?
        for candidate in [domain, lowered(domain)] {
            switch IDNA.unicodeForm(ofDomain: candidate) {
            case .valid(let form) where !form.contains("@"): return (local + UnicodeText.nfc(form), nil)
            case .valid, .invalid: continue
            case .unavailable(let reason): unavailable = reason
            }
        }
        return (local + lowered(domain), unavailable)
    }

    private static func lowered(_ text: String) -> String {
        UnicodeText.nfc(UnicodeText.lowercasedLetterCase(text))
    }

    /// The email as stored: trimmed of surrounding white space and line breaks, and in NFC.
    static func normalized(_ email: String) -> String {
        UnicodeText.nfc(email.trimmingBlanksAndNewlines())
    }
}
