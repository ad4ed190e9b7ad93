/// An optional answer: an empty line is nil, any other line is read as `Wrapped`.
///
/// `FieldKey<Int?>("age")` is a field that may stay empty: its value is nil until a number is
/// given, and ``Rule/required(message:allowingWhiteSpace:)`` makes it one that must not. Rules of the wrapped
/// type apply to a value that is there: `.range(13...120)` on an `Int?` field, or any rule through
/// ``Rule/ifPresent(_:)``. It is asked as `Wrapped` is (a line, a yes/no, a choice); Enter on an
/// empty line, or at a yes/no or choice with no default, leaves it nil.
extension Optional: AnswerValue where Wrapped: AnswerValue {
    /// nil for an empty line; else the line read as `Wrapped`, or nil (not parsed) when it does not parse.
    public init?(answer: String) {
        if answer.isEmpty {
            self = .none
            return
        }
        guard let value = Wrapped(answer: answer) else { return nil }
        self = .some(value)
    }

    /// The wrapped value's text; "" for nil.
    public var answerText: String { self?.answerText ?? "" }

    /// The wrapped type's failure (`notAWholeNumber` for `Int?`).
    public static var notParsed: RuleFailure { Wrapped.notParsed }

    /// The wrapped type's style.
    public static var promptStyle: PromptStyle { Wrapped.promptStyle }
}

/// A list answer, in order, duplicates kept: `FieldKey<[String]>("tags")`.
///
/// At a terminal, and in a script, it is one line of elements separated by commas:
/// `red, green, blue`. White space around each element is dropped, and so are empty elements, so
/// an empty line is an empty list. An element that holds a comma or a backslash writes it as
/// `\,` or `\\`. Each element is read as `Element` (a number, a choice by name or number); one that
/// does not parse fails the whole line with the element type's reason (`notAWholeNumber`). Count
/// its elements with ``Rule/count(atLeast:message:)`` and the other `count` rules.
extension Array: AnswerValue where Element: AnswerValue {
    /// The elements of a comma-separated line, or nil when one does not parse.
    public init?(answer: String) {
        var elements: [Element] = []
        for text in listElements(of: answer) {
            guard let element = Element(answer: text) else { return nil }
            elements.append(element)
        }
        self = elements
    }

    /// The elements' texts separated by `, `, a comma or backslash within one escaped.
    public var answerText: String { listText(map(\.answerText)) }

    /// The element type's failure (`notAWholeNumber` for `[Int]`).
    public static var notParsed: RuleFailure { Element.notParsed }

    /// A list, naming its elements' choices when they are a choice.
    public static var promptStyle: PromptStyle { .list(listChoices(Element.promptStyle)) }
}

/// A set answer: `FieldKey<Set<Tag>>("tags")`, asked and read as a list (see `Array`'s
/// ``Array/init(answer:)``); an element given twice counts once. Its text lists the elements'
/// texts in sorted order, so two equal sets have one text (an edit form that puts back the
/// same set is not dirty).
extension Set: AnswerValue where Element: AnswerValue {
    /// The elements of a comma-separated line, or nil when one does not parse.
    public init?(answer: String) {
        guard let elements = [Element](answer: answer) else { return nil }
        self = Set(elements)
    }

    /// The elements' texts, sorted, separated by `, `.
    public var answerText: String { listText(map(\.answerText).sorted()) }

    /// The element type's failure.
    public static var notParsed: RuleFailure { Element.notParsed }

    /// A list, naming its elements' choices when they are a choice.
    public static var promptStyle: PromptStyle { .list(listChoices(Element.promptStyle)) }
}

/// The choices of a list's elements: a choice's options, none for free text.
private func listChoices(_ style: PromptStyle) -> [String] {
    if case .choice(let options) = style { options } else { [] }
}

/// The trimmed, non-empty elements of a comma-separated line, `\,` and `\\` read as a comma and a backslash.
private func listElements(of line: String) -> [String] {
    var elements: [String] = []
    var current = ""
    var escaped = false
    for character in line {
        if escaped {
            current.append(character)
            escaped = false
        } else if character == "\\" {
            escaped = true
        } else if character == "," {
            elements.append(current)
            current = ""
        } else {
            current.append(character)
        }
    }
    if escaped { current.append("\\") }
    elements.append(current)
    return elements.map(\.trimmingSpaces).filter { !$0.isEmpty }
}

/// `texts` separated by `, `, a comma or backslash within one escaped.
private func listText(_ texts: [String]) -> String {
    texts.map { text in
        text.replacing("\\", with: "\\\\").replacing(",", with: "\\,")
    }.joined(separator: ", ")
}

/// A value that may be nil: how ``isEmptyValue(_:)`` sees through an optional field's value.
protocol OptionalValue {
    /// The wrapped value, or nil.
    var wrappedValue: Any? { get }
}

extension Optional: OptionalValue {
    var wrappedValue: Any? { self.map { $0 as Any } }
}
