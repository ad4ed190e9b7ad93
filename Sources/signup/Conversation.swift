import SignupCore

/// How the conversation looks: symbols or ASCII, colour or none (SPEC 1).
struct Style: Equatable {
    /// Whether `✗`, `✓` may be used; otherwise error lines start with `error: `.
    var unicode: Bool
    /// Whether colour escape sequences may be used.
    var color: Bool

    static let plain = Style(unicode: false, color: false)

    /// The style for a conversation: ASCII for `--plain`, `TERM=dumb` or a script; colour
    /// only at a terminal whose `TERM` is set and not dumb, without `NO_COLOR`.
    static func detect(interactive: Bool, plain: Bool, environment: [String: String]) -> Style {
        let term = environment["TERM"] ?? ""
        guard interactive, !plain, term != "dumb" else { return .plain }
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        return Style(unicode: true, color: !term.isEmpty && !noColor)
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

    /// `✗ message` in red, or `error: message`.
    func errorLine(_ message: String, indent: String = "") -> String {
        style.unicode ? indent + paint("✗ \(message)", code: "31") : "error: \(message)"
    }

    /// `✓ message` in green, or the message alone.
    func successLine(_ message: String) -> String {
        style.unicode ? paint("✓ \(message)", code: "32") : message
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
            say("Review")
            let width = (lines.map(\.label.count).max() ?? 0) + 2
            for line in lines {
                say("  " + line.label + String(repeating: " ", count: width - line.label.count) + VisibleText.of(line.value))
            }
        case .choices(let labels):
            for (number, label) in labels.enumerated() { say("  \(number + 1) \(label)") }
        case .notice(let text):
            say(VisibleText.of(text))  // may quote a store's reason, which holds a path
        case .ask, .submit, .finish:
            break
        }
    }

    private func paint(_ text: String, code: String) -> String {
        style.color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
