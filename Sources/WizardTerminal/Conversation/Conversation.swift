import Glibc
import SignupCore

/// How the conversation looks: symbols or ASCII, colour or none.
public struct WizardStyle: Sendable, Equatable {
    /// Whether `✗`, `✓` may be used; otherwise error lines start with `error: `.
    public var unicode: Bool
    /// Whether colour escape sequences may be used.
    public var color: Bool

    /// A style with or without symbols and colour.
    public init(unicode: Bool, color: Bool) {
        self.unicode = unicode
        self.color = color
    }

    /// ASCII, no colour: for `--plain`, scripts and dumb terminals.
    public static let plain = WizardStyle(unicode: false, color: false)

    /// The style for a conversation: ASCII for `plain`, a script, a dumb terminal (`TERM`
    /// unset, `dumb` or unknown to terminfo: dumb everywhere) or a locale that is not UTF-8;
    /// colour only at a known terminal, without `NO_COLOR`.
    public static func detect(interactive: Bool, plain: Bool, environment: [String: String]) -> WizardStyle {
        guard interactive, !plain, TerminalCapabilities.knowsTerminal(environment: environment) else { return .plain }
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        return WizardStyle(unicode: TerminalCapabilities.localeIsUTF8(environment: environment), color: !noColor)
    }
}

/// Writes the conversation (standard error by default), unless `quiet` silenced it. Every text
/// is shown in the reader's language (``translation``) and every text from outside (an answer,
/// a path, a reason) goes through `VisibleText.of` here.
public struct Conversation {
    /// Symbols and colour.
    public var style: WizardStyle
    /// Whether only errors and the lines questions need are written.
    public var quiet: Bool
    /// Where the text goes: a descriptor, or the terminal session so it stays in order with libedit.
    public var output: (String) -> Void
    /// The reader's language for every text shown (English unless set; `Translation.gettext(_:)` (SignupCore)).
    public var translation: Translation

    /// A conversation written to descriptor `fd`, in the language of `translation`.
    public init(style: WizardStyle, quiet: Bool, fd: Int32 = 2, translation: Translation = .english) {
        self.style = style
        self.quiet = quiet
        self.translation = translation
        self.output = { text in Conversation.write(text, to: fd) }
    }

    /// A line of conversation, translated; silenced by `quiet`.
    public func say(_ line: String) {
        if !quiet { output(translation(line) + "\n") }
    }

    /// Text with no line ending (a prompt already translated, an answer echoed), as it is; silenced by `quiet`.
    public func put(_ text: String) {
        if !quiet { output(text) }
    }

    /// An error line, translated; never silenced.
    public func error(_ message: String) {
        output(errorLine(message) + "\n")
    }

    /// A line that belongs to a question about to be asked (the review, the choices, a notice):
    /// shown even when quiet, since the question cannot be answered without it.
    public func sayWithQuestion(_ line: String) {
        output(VisibleText.of(translation(line)) + "\n")
    }

    /// `✗ message` in red, or `error: message`, translated; `message` may quote outside text (a
    /// path, an email). The `error: ` prefix is the same in every language: scripts look for it.
    public func errorLine(_ message: String, indent: String = "") -> String {
        let message = VisibleText.of(translation(message))
        return style.unicode ? indent + paint("✗ \(message)", code: "31") : "error: \(message)"
    }

    /// `✓ message` in green, or the message alone, translated; `message` may quote an email.
    public func successLine(_ message: String) -> String {
        let message = VisibleText.of(translation(message))
        return style.unicode ? paint("✓ \(message)", code: "32") : message
    }

    /// Shows an effect that is only output; asks, submits and the finish are the runner's.
    public func show<Success>(_ effect: WizardEffect<Success>) {
        switch effect {
        case .banner(let text):
            say(paint(VisibleText.of(translation(text)), code: "1"))
        case .hint(let text):
            say(VisibleText.of(translation(text)))
        case .errors(let errors):
            // A rule with an empty message says nothing: no bare `✗` line.
            for error in errors where !error.message.isEmpty { output(errorLine(error.message, indent: "  ") + "\n") }
        case .note(.strength(let level)):
            say("  " + translation(Translation.english("Strength: {level}", translated: ["level": level.label])))
        case .note(.text(let text)):
            say("  " + VisibleText.of(translation(text)))
        case .note(.checklist(let checks)):
            for check in checks { say("  " + checkLine(check)) }
        case .review(let title, let lines):
            sayWithQuestion(title)
            let labels = lines.map { translation($0.label) }
            let width = (labels.map(\.count).max() ?? 0) + 2
            for (label, line) in zip(labels, lines) {
                sayWithQuestion("  " + label + String(repeating: " ", count: width - label.count) + VisibleText.of(line.isAnswer ? line.value : translation(line.value)))
            }
        case .choices(let labels):
            for (number, label) in labels.enumerated() { sayWithQuestion("  \(number + 1) \(translation(label))") }
        case .notice(let text):
            sayWithQuestion(text)  // may quote a store's reason, which holds a path
        case .ask, .check, .submit, .finish:
            break
        }
    }

    /// The errors an outcome carries, one line each (`error: age: Enter a whole number`), and for
    /// input that ended early which field it ended at: what a script hears at the end (deferred
    /// errors). Other outcomes write nothing; the result itself is the program's to say.
    public func showErrors<Success>(of outcome: WizardOutcome<Success>) {
        switch outcome {
        case .invalid(let errors):
            for error in errors { self.error(line(error)) }
        case .incomplete(_, let label, let errors):
            for error in errors { self.error(line(error)) }
            self.error(Translation.english("input ended before \"{label}\" was answered", translated: ["label": label]))
        case .succeeded, .declined, .cancelled, .unavailable:
            break
        }
    }

    /// `field: message`, or the message alone for an error of the whole form: the message in the
    /// reader's language, the field's name as it is (scripts read `error: password: `). An empty
    /// message is the code alone (`error: name.reserved`): a script's line always says what failed.
    func line(_ error: FieldError) -> String {
        if error.message.isEmpty { return error.code }
        return error.isFormLevel ? translation(error.message) : "\(error.field): \(translation(error.message))"
    }

    /// `✓ label` / `✗ label` in colour, or `[x] label` / `[ ] label` in ASCII.
    public func checkLine(_ status: CheckStatus) -> String {
        let label = VisibleText.of(translation(status.check.label))
        guard style.unicode else { return (status.passed ? "[x] " : "[ ] ") + label }
        return status.passed ? paint("✓ \(label)", code: "32") : paint("✗ \(label)", code: "31")
    }

    private func paint(_ text: String, code: String) -> String {
        style.color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    /// Writes all of `text` to `fd`, retrying EINTR; a failed write is dropped (a closed standard error).
    static func write(_ text: String, to fd: Int32) {
        var text = text
        text.withUTF8 { try? Sys.writeAll(fd, UnsafeRawBufferPointer($0)) }
    }
}
