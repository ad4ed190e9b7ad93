import ArgumentParser
import SignupCore
import Synchronization
import WizardTerminal

/// What `--version` and the help say about the program itself: one place for each.
enum About {
    /// The version: `signup --version` prints it, and scripts/package reads it from the
    /// binary it packages, so the two cannot drift.
    static let version = "0.1.0"

    /// signup's catalog, bound once: the parser builds each command many times (every
    /// `@Option(help:)` is made again each time), and a lookup must not bind the catalog again.
    /// The first use applies the reader's message locale, before any help text is made.
    static let translation = Translation.signup

    /// `english` (a text marked elsewhere) in the reader's language.
    static func text(_ english: String) -> String {
        translation(english)
    }

    /// The English `template` (marked for the catalog: scripts/po extracts `english("…")`) in the
    /// reader's language, its `{name}` placeholders filled as ``Translation/english(_:_:translated:)``
    /// fills them. A text of several lines (a command's discussion) is looked up line by line, as
    /// scripts/po extracts it: a catalog's text never holds a line feed (``Translation`` would not use it).
    static func english(_ template: String, _ values: [String: String] = [:], translated: [String: String] = [:]) -> String {
        // The parser makes every command's options again and again while it parses: an option's
        // help is looked up once per run, not each time.
        let fixed = values.isEmpty && translated.isEmpty
        if fixed, let known = shown.withLock({ $0[template] }) { return known }
        let text = template.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            let line = String(line)
            return line.isEmpty ? line : translation(fixed ? line : Translation.english(line, values, translated: translated))
        }.joined(separator: "\n")
        if fixed { shown.withLock { $0[template] = text } }
        return text
    }

    /// The texts ``english(_:_:translated:)`` has shown without values, by their English text.
    private static let shown = Mutex<[String: String]>([:])

    /// The help of every `--db`: the order of places it falls back to, spelled out.
    static var databaseHelp: ArgumentHelp {
        .english(
            "The account database (default: $SIGNUP_DB, else signup.conf's database, else $XDG_DATA_HOME/signup/accounts.sqlite, else ~/.local/share/signup/accounts.sqlite).",
            value: Translation.english("path"))
    }
}

extension About {
    /// The help of every `--config`.
    static var configHelp: ArgumentHelp {
        .english(
            "The configuration file to read instead of ~/.config/signup/signup.conf and /etc/signup/signup.conf (default: $SIGNUP_CONFIG; its format: signup.conf(5)).",
            value: Translation.english("path"))
    }
}

extension ArgumentHelp {
    /// An option's help from signup's catalog: `text` and `value` (the value's name, when it is
    /// a word) are English texts marked for the catalog (scripts/po extracts `english("…")`),
    /// shown in the reader's language; `valueName` is a name that is not a word (`n`), as it is.
    static func english(_ text: String, value: String? = nil, valueName: String? = nil) -> ArgumentHelp {
        ArgumentHelp(About.english(text), valueName: value.map { About.english($0) } ?? valueName)
    }
}

extension About {
    /// True for `signup --help`, `signup -h` and `signup help` with nothing else.
    static func asksForRootHelp(_ arguments: [String]) -> Bool {
        arguments.count == 2 && ["--help", "-h", "help"].contains(arguments[1])
    }

    /// The help of `signup` alone: the program's overview and exit codes, then the default
    /// command's usage and options (what `signup` with no subcommand accepts), then the
    /// other commands. Both parts are ArgumentParser's own text, so they follow the options.
    static func rootHelp() -> String {
        let root = Signup.helpMessage()
        let create = Signup.helpMessage(for: CreateCommand.self)
        guard let overviewEnd = root.firstRange(of: "USAGE:"), let usage = create.firstRange(of: "USAGE:"),
              let commands = root.firstRange(of: "SUBCOMMANDS:")
        else { return root }
        let createPart = create[usage.lowerBound...]
            .replacing("USAGE: signup create ", with: "USAGE: signup [create] ")
        func trimmed<S: StringProtocol>(_ text: S) -> String {
            String(text.reversed().drop(while: \.isNewline).reversed())
        }
        return root[..<overviewEnd.lowerBound] + trimmed(createPart) + "\n\n" + trimmed(root[commands.lowerBound...]) + "\n"
    }
}
