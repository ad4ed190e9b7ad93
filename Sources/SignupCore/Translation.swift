import Synchronization

/// Shows the English texts of a conversation in the reader's language, at the moment they are shown.
///
/// The core speaks English: rule messages, labels and the wizard's questions are English texts,
/// and so is everything a program outside reads (codes, `--json`). A display calls a translation
/// on each text it shows; the translation looks the text up in a catalog keyed by the English text
/// (the convention of GNU gettext's `msgid`). Texts made from a template with values
/// (``english(_:_:translated:)``) are looked up by their template, and the values put back in by
/// name: a translation can reorder them but never change them, and a value from outside (an email,
/// a reason) is never looked up itself. A catalog's text that holds a control character, or names
/// other placeholders than its English template, is not used: the English text is shown instead.
///
/// ```swift
/// let message = Translation.english("Use at least {count} characters", ["count": "8"])  // the English text
/// translation(message)                                                                  // in the reader's language
/// ```
///
/// `WizardTerminal` makes translations from gettext catalogs (`Translation.gettext`).
public struct Translation: Sendable {
    private let lookup: @Sendable (String) -> String?

    /// A translation that finds the text for an English text (a catalog's `msgid`) with `lookup`, nil when it has none.
    public init(lookup: @escaping @Sendable (_ english: String) -> String?) {
        self.lookup = lookup
    }

    /// No translation: every text stays English.
    public static let english = Translation { _ in nil }

    /// `text` in the catalog's language, or `text` itself when the catalog has no usable entry for it.
    public func callAsFunction(_ text: String) -> String {
        translate(text, depth: 0)
    }

    /// The first translation that has a usable text for `english`, else `other`'s: a program's
    /// own catalog first, then the library's.
    public func then(_ other: Translation) -> Translation {
        let first = lookup
        return Translation { english in first(english) ?? other.lookup(english) }
    }

    private func translate(_ text: String, depth: Int) -> String {
        if text.isEmpty { return text }
        if let found = Self.usable(lookup(text), for: text) { return found }
        // A template's values may be texts made from templates themselves ("at least {level}"); a few levels at most.
        guard depth < 4, let made = MadeTexts.shared.origin(of: text) else { return text }
        switch made {
        case .template(let template, let values, let translated):
            var filled = values
            for (name, value) in translated { filled[name] = translate(value, depth: depth + 1) }
            let pattern = Self.usable(lookup(template), for: template) ?? template
            return Self.fill(pattern, filled)
        case .list(let items):
            let separator = Self.usable(lookup(Self.listSeparator), for: Self.listSeparator) ?? Self.listSeparator
            return Self.join(items.map { translate($0, depth: depth + 1) }, separator: separator)
        }
    }

    /// A catalog's text when it can be shown in place of `english`: not empty, no control or
    /// bidirectional formatting character (a catalog is not trusted with the terminal), and the same
    /// placeholders as the English text (a translation cannot drop or invent a value).
    static func usable(_ translated: String?, for english: String) -> String? {
        guard let translated, !translated.isEmpty,
              !translated.unicodeScalars.contains(where: VisibleText.needsEscape),
              placeholders(in: translated) == placeholders(in: english) else { return nil }
        return translated
    }

    /// The names between braces in `template`: `{count}` → `count`.
    static func placeholders(in template: String) -> Set<Substring> {
        var names: Set<Substring> = []
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: "}") else { break }
            let name = after[..<close]
            if !name.isEmpty, name.allSatisfy(\.isASCIILetterOrDigit) { names.insert(name) }
            rest = after
        }
        return names
    }

    /// `template` with each `{name}` replaced by `values[name]`, in one pass: a value that itself
    /// holds braces is never filled again. A name without a value stays as it is.
    static func fill(_ template: String, _ values: [String: String]) -> String {
        if let filled = fillASCII(template, values) { return filled }
        // `append(contentsOf:)` of a Substring, not `+=`: that is the generic Sequence append,
        // whose first call asks the runtime for Substring's Collection conformance (a scan of
        // every conformance in the program) before the first prompt.
        var out = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            out.append(contentsOf: rest[..<open])
            let after = rest[rest.index(after: open)...]
            if let close = after.firstIndex(of: "}"), let value = values[String(after[..<close])] {
                out += value
                rest = after[after.index(after: close)...]
            } else {
                out += "{"
                rest = after
            }
        }
        out.append(contentsOf: rest)
        return out
    }

    /// ``fill(_:_:)`` of an ASCII template (every English one), or nil for any other: it looks for
    /// the braces byte by byte. In ASCII text every character is one byte (but `\r\n`, which is
    /// no brace), so it finds what the search by character finds, without breaking the text into
    /// characters (about 300 instructions each: the rules' texts cost 180,000 before the first prompt).
    private static func fillASCII(_ template: String, _ values: [String: String]) -> String? {
        let bytes = template.utf8
        var index = bytes.startIndex
        while index < bytes.endIndex {
            guard bytes[index] < 0x80 else { return nil }
            bytes.formIndex(after: &index)
        }
        func next(_ byte: UInt8, from start: String.Index) -> String.Index? {
            var index = start
            while index < bytes.endIndex {
                if bytes[index] == byte { return index }
                bytes.formIndex(after: &index)
            }
            return nil
        }
        var out = ""
        var rest = bytes.startIndex
        while let open = next(UInt8(ascii: "{"), from: rest) {
            out.append(contentsOf: template[rest..<open])
            let afterOpen = bytes.index(after: open)
            if let close = next(UInt8(ascii: "}"), from: afterOpen), let value = values[String(template[afterOpen..<close])] {
                out += value
                rest = bytes.index(after: close)
            } else {
                out += "{"
                rest = afterOpen
            }
        }
        out.append(contentsOf: template[rest...])
        return out
    }

    // MARK: - Marking English texts

    /// Marks `text` as an English text of the conversation, for the catalog template
    /// (`scripts/po` extracts every call), and returns it unchanged.
    public static func english(_ text: String) -> String { text }

    /// The English text of `template` with its `{name}` placeholders filled: `values` as they are
    /// (numbers, an email, a reason), `translated` looked up themselves when shown (a level, a label).
    /// `scripts/po` extracts the template; its translation gets the same values.
    public static func english(_ template: String, _ values: [String: String], translated: [String: String] = [:]) -> String {
        let text = fill(template, values.merging(translated) { value, _ in value })
        MadeTexts.shared.record(text, as: .template(template, values: values, translated: translated))
        return text
    }

    /// The English text of `template` with only values to translate (a label, a level).
    public static func english(_ template: String, translated: [String: String]) -> String {
        english(template, [:], translated: translated)
    }

    /// Texts joined for one line (`at least 8 characters, a digit`), each translated by itself when shown.
    public static func list(_ items: [String]) -> String {
        let text = join(items, separator: listSeparator)
        if items.count > 1 { MadeTexts.shared.record(text, as: .list(items)) }
        return text
    }

    /// `items` with `separator` between them. Not `joined(separator:)`: the standard library's is
    /// generic code that looks up `[String]`'s conformances at run time, before the first prompt.
    private static func join(_ items: [String], separator: String) -> String {
        var text = ""
        for (index, item) in items.enumerated() {
            if index > 0 { text += separator }
            text += item
        }
        return text
    }

    /// What joins the items of ``list(_:)``; a catalog may change it.
    static let listSeparator = english(", ")
}

/// Where each text made from a template came from, so a display can translate the template and
/// put the same values back. Bounded: a process that makes many texts forgets the oldest set.
final class MadeTexts: Sendable {
    enum Origin: Sendable {
        case template(String, values: [String: String], translated: [String: String])
        case list([String])
    }

    static let shared = MadeTexts()
    private static let limit = 4096
    private let origins = Mutex<[String: Origin]>([:])

    func record(_ text: String, as origin: Origin) {
        origins.withLock { origins in
            if origins.count >= Self.limit && origins[text] == nil { origins.removeAll(keepingCapacity: true) }
            origins[text] = origin
        }
    }

    func origin(of text: String) -> Origin? {
        origins.withLock { $0[text] }
    }
}

extension Character {
    fileprivate var isASCIILetterOrDigit: Bool { isASCII && (isLetter || isNumber) }
}
