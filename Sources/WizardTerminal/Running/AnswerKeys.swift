/// The letters that answer a question, as its prompt shows them in brackets: `[Y/n/e]` in
/// English, the catalog's own letters in a translation (`[J/n/ä]`).
///
/// A translated letter means what the English letter at its place means, and the English
/// letters keep their meaning in every language: a reader may always type `y`, `n` or `e`.
/// A translation is not used for the letters when it would change what an English letter
/// means (its `e` at the place of `y`), names a letter twice, gives them another count, or
/// moves the default (the capital): the question is then shown with the English brackets.
/// No language is known here: the letters are whatever the catalog's question shows.
///
/// ```swift
/// let keys = AnswerKeys(english: "Delete it? [y/N] ", shown: translation("Delete it? [y/N] "))
/// let answer = session.readLine(prompt: keys.shown, remember: false)   // "Löschen? [j/N] "
/// keys.englishAnswer(for: "J")                                          // "y"
/// ```
public struct AnswerKeys: Sendable, Equatable {
    /// The prompt to show: the translation's, or with the English brackets when its letters are not used.
    public let shown: String
    /// Each translated letter (lowercase) and the English letter of its place.
    private let letters: [Character: Character]

    /// The letters of `english`'s last brackets and of `shown`'s (its translation). A text without
    /// letters in brackets (`[1-2]`, `[optional]`) has none to map.
    public init(english: String, shown: String) {
        guard let ours = Self.bracket(in: english), let theirs = Self.bracket(in: shown), ours.letters != theirs.letters else {
            self.shown = shown
            letters = [:]
            return
        }
        let own = ours.letters.map { Character($0.lowercased()) }
        let translated = theirs.letters.map { Character($0.lowercased()) }
        let usable = own.count == translated.count
            && Set(translated).count == translated.count
            && zip(ours.letters, theirs.letters).allSatisfy { $0.isUppercase == $1.isUppercase || !$1.isCased }
            && zip(translated.indices, translated).allSatisfy { place, letter in own.firstIndex(of: letter).map { $0 == place } ?? true }
        guard usable else {
            self.shown = String(shown[..<theirs.range.lowerBound]) + english[ours.range] + shown[theirs.range.upperBound...]
            letters = [:]
            return
        }
        self.shown = shown
        letters = Dictionary(uniqueKeysWithValues: zip(translated, own))
    }

    /// The answer as the wizard reads it: a translated letter (any case, blanks around it)
    /// becomes its English letter; anything else, English letters and words included, stays as it is.
    public func englishAnswer(for answer: String) -> String {
        let trimmed = answer.trimmingBlanks()
        guard trimmed.count == 1, let letter = letters[Character(trimmed.lowercased())] else { return answer }
        return String(letter)
    }

    /// The last `[…]` of `text` when it holds two letters or more, one each, between slashes.
    private static func bracket(in text: String) -> (range: Range<String.Index>, letters: [Character])? {
        guard let open = text.lastIndex(of: "["), let close = text[open...].firstIndex(of: "]") else { return nil }
        let parts = text[text.index(after: open)..<close].split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 2, parts.allSatisfy({ $0.count == 1 && $0.first!.isLetter }) else { return nil }
        return (open..<text.index(after: close), parts.map { $0.first! })
    }
}
