import AccountStore
import ArgumentParser
import Glibc
import SignupCore

/// A usage error (exit 64) whose text is made only of the program's own words.
///
/// It cannot be built from a `String`: only from literals, an errno's text, a policy file's
/// problem and a store location's, so no argument, option value or path can reach a usage message by
/// accident (any of them may be a password typed in the wrong place). The literal is
/// English, marked for the catalog (`UsageError(.english("…"))`), and shown in the reader's
/// language: the catalog's text for it, never anything typed.
struct UsageError: Error {
    private let message: StaticString
    private let reason: String?
    /// What fills the message's `{option}`: one of the program's own names (``naming(_:)``).
    private var option: StaticString?

    init(_ message: StaticString) {
        self.message = message
        reason = nil
    }

    /// `message: reason`, the reason being the text of `code` (`No such file or directory`).
    init(_ message: StaticString, errno code: Int32) {
        self.message = message
        reason = String(cString: strerror(code))
    }

    /// `message: problem`, for what is wrong inside a policy file (SignupCore's words; any
    /// text quoted from the file is made visible there).
    init(_ message: StaticString, _ problem: PolicyFileError) {
        self.message = message
        reason = problem.description
    }

    /// `message: problem`, for a `--db` or `SIGNUP_DB` the store cannot use: ``StoreLocation``'s
    /// reasons for a value it refuses are its own words (an empty path, a password in a
    /// connection string, a string libpq cannot parse), never the value.
    init(_ message: StaticString, location problem: StoreError) {
        self.message = message
        reason = problem.description
    }

    /// The same error, its message's `{option}` filled with `option`: `--policy-file` on the
    /// command line, `policy-file` in a configuration file.
    func naming(_ option: StaticString) -> UsageError {
        var named = self
        named.option = option
        return named
    }

    /// The message in the reader's language, without `error: `.
    var text: String {
        let text = option.map { About.english(message.description, ["option": $0.description]) } ?? About.text(message.description)
        return text + (reason.map { ": " + $0 } ?? "")
    }
}

extension StaticString {
    /// Marks an English usage message for the catalog (scripts/po extracts `english("…")`):
    /// `UsageError(.english("use only one of --policy and --policy-file"))`.
    static func english(_ text: StaticString) -> StaticString { text }
}

/// Usage errors from swift-argument-parser, rewritten from the kind of error alone.
///
/// The parser's own messages quote what was typed (`Unknown option '-pSECRET'`, `The value
/// 'SECRET' is invalid`); here only the kind of error is kept, with the names of the
/// program's own options and arguments, never a value or an unknown name.
enum ParseErrorText {
    /// The message for a parse error of `command`, ending with the usage lines.
    static func message(for error: any Error, in command: any ParsableCommand.Type) -> String {
        let parser = command.message(for: error)
        let known = knownNames()
        var lines = ["error: " + About.text(kind(of: parser, known: known))]
        // The usage and "See … --help" lines are generated from the definitions, never from input.
        lines += command.fullMessage(for: error).split(separator: "\n").map(String.init)
            .filter { $0.hasPrefix("Usage: ") || $0.hasPrefix("  See '") }
            .map(HelpText.localizedUsageLine)
        return lines.joined(separator: "\n") + "\n"
    }

    /// The English text (a catalog's key, or a text made from one of its templates) for the
    /// parser's `message`; a name it holds is one of `known`, else it is not said.
    static func kind(of message: String, known: Set<String>) -> String {
        func name(after marker: String) -> String? {
            guard let range = message.ranges(of: marker).last else { return nil }
            let rest = message[range.upperBound...]
            guard let end = rest.firstIndex(of: "'") else { return nil }
            let candidate = String(rest[..<end])
            return known.contains(candidate) ? candidate : nil
        }
        if message.hasPrefix("Unknown option") || message.hasPrefix("Invalid option") {
            return Translation.english("Unknown option (not shown: it may be a secret)")
        }
        if message.hasPrefix("Unexpected argument") || message.contains("unexpected arguments") {
            return Translation.english("Unexpected argument (not shown: it may be a secret)")
        }
        if message.hasPrefix("Missing value for '") {
            guard let option = name(after: "Missing value for '") else { return Translation.english("Missing value for an option") }
            return Translation.english("Missing value for {option}", ["option": option])
        }
        if message.hasPrefix("Missing expected argument '") {
            guard let argument = name(after: "Missing expected argument '") else { return Translation.english("Missing an argument") }
            return Translation.english("Missing {argument}", ["argument": argument])
        }
        if message.hasPrefix("The option '"), message.contains("does not take any value") {
            guard let option = name(after: "The option '") else {
                return Translation.english("This option does not take a value (the value is not shown: it may be a secret)")
            }
            return Translation.english("{option} does not take a value (the value is not shown: it may be a secret)", ["option": option])
        }
        if message.hasPrefix("The value '"), message.contains(" is invalid") {
            guard let option = name(after: "is invalid for '") else {
                return Translation.english("The value given is not valid (not shown: it may be a secret)")
            }
            return Translation.english("The value given for {option} is not valid (not shown: it may be a secret)", ["option": option])
        }
        return Translation.english("The command line is not valid (its values are not shown: one may be a secret)")
    }

    /// Every option and argument name of every command, as the parser writes them
    /// (`--password-fd <n>`, `--json`, `<email>`): the only words of input a message may repeat.
    static func knownNames() -> Set<String> {
        var names: Set<String> = ["-h", "--help"]
        for command in Signup.configuration.subcommands {
            let usage = Signup.usageString(for: command)
            // `[--email <address>]` → `--email <address>`, `--email`; `<email>` stays as it is.
            for group in usage.split(separator: "[").flatMap({ $0.split(separator: "]") }) {
                let words = group.split(separator: " ").map(String.init).filter { $0.hasPrefix("-") || $0.hasPrefix("<") }
                names.formUnion(words)
                if words.count == 2, words[0].hasPrefix("-"), words[1].hasPrefix("<") { names.insert(words.joined(separator: " ")) }
            }
            // A long usage line is cut to `[<options>]`: the help's option lines name each one
            // (`  --email <address>   Answer …`, `  -h, --help   Show …`).
            for line in Signup.helpMessage(for: command, columns: 1000).split(separator: "\n") {
                let trimmed = line.drop { $0 == " " }
                guard trimmed.hasPrefix("-") || trimmed.hasPrefix("<"), let end = trimmed.firstRange(of: "  ")?.lowerBound ?? Optional(trimmed.endIndex) else { continue }
                for spelling in trimmed[..<end].split(separator: ",").map({ $0.trimmingBlanks() }) {
                    let words = spelling.split(separator: " ").map(String.init)
                    names.formUnion(words)
                    if words.count == 2 { names.insert(spelling) }
                }
            }
        }
        return names
    }
}
