import SignupCore
import WizardTerminal

/// How the conversation looks: symbols or ASCII, colour or none (SPEC 1).
struct Style: Equatable {
    /// Whether `✗`, `✓` may be used; otherwise error lines start with `error: `.
    var unicode: Bool
    /// Whether colour escape sequences may be used.
    var color: Bool

    static let plain = Style(unicode: false, color: false)

    /// The style for a conversation: ASCII for `--plain`, a script, a dumb terminal (`TERM`
    /// unset, `dumb` or unknown to terminfo: dumb everywhere) or a locale that is not UTF-8;
    /// colour only at a known terminal, without `NO_COLOR`.
    static func detect(interactive: Bool, plain: Bool, environment: [String: String]) -> Style {
        guard interactive, !plain, TerminalCapabilities.knowsTerminal(environment: environment) else { return .plain }
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        return Style(unicode: TerminalCapabilities.localeIsUTF8(environment: environment), color: !noColor)
    }
}

/// Writes the conversation to standard error, unless `--quiet` silenced it.
struct Conversation {
    var style: Style
    var quiet: Bool
    /// Where the text goes: standard error, or the terminal session so it stays in order with libedit.
    var output: (String) -> Void = { IO.write($0, to: 2) }

    /// A line of conversation; silenced by `--quiet`.
    func say(_ line: String) {
        if !quiet { output(line + "\n") }
    }

    /// Text with no line ending (a prompt in a script); silenced by `--quiet`.
    func put(_ text: String) {
        if !quiet { output(text) }
    }

    /// An error line; never silenced.
    func error(_ message: String) {
        output(errorLine(message) + "\n")
    }

    /// A line that belongs to a question about to be asked (the review, the choices, a notice):
    /// shown even with `--quiet`, since the question cannot be answered without it.
    func sayWithQuestion(_ line: String) {
        output(VisibleText.of(line) + "\n")
    }

    /// `✗ message` in red, or `error: message`; `message` may quote outside text (a path, an email).
    func errorLine(_ message: String, indent: String = "") -> String {
        let message = VisibleText.of(message)
        return style.unicode ? indent + paint("✗ \(message)", code: "31") : "error: \(message)"
    }

    /// `✓ message` in green, or the message alone; `message` may quote an email.
    func successLine(_ message: String) -> String {
        let message = VisibleText.of(message)
        return style.unicode ? paint("✓ \(message)", code: "32") : message
    }

    /// Shows an effect that is only output; asks and submits are the runner's.
    func show(_ effect: WizardEffect) {
        switch effect {
        case .banner(let text):
            say(paint(text, code: "1"))
        case .errors(let errors):
            for error in errors { output(errorLine(error.message, indent: "  ") + "\n") }
        case .strength(let level):
            say("  Strength: \(level.label)")
        case .review(let lines):
            sayWithQuestion("Review")
            let width = (lines.map(\.label.count).max() ?? 0) + 2
            for line in lines {
                sayWithQuestion("  " + line.label + String(repeating: " ", count: width - line.label.count) + VisibleText.of(line.value))
            }
        case .choices(let labels):
            for (number, label) in labels.enumerated() { sayWithQuestion("  \(number + 1) \(label)") }
        case .notice(let text):
            sayWithQuestion(VisibleText.of(text))  // may quote a store's reason, which holds a path
        case .ask, .submit, .finish:
            break
        }
    }

    private func paint(_ text: String, code: String) -> String {
        style.color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
