import ArgumentParser
import Glibc
import SignupCore

/// A usage error (exit 64) whose text is made only of the program's own words.
///
/// It cannot be built from a `String`: only from literals, an errno's text and a policy
/// file's problem, so no argument, option value or path can reach a usage message by
/// accident (SPEC 10: any of them may be a password typed in the wrong place).
struct UsageError: Error {
    /// The message, without `error: `.
    let text: String

    init(_ message: StaticString) {
        text = message.description
    }

    /// `message: reason`, the reason being the text of `code` (`No such file or directory`).
    init(_ message: StaticString, errno code: Int32) {
        text = "\(message): \(String(cString: strerror(code)))"
    }

    /// `message: problem`, for what is wrong inside a policy file (SignupCore's words; any
    /// text quoted from the file is made visible there).
    init(_ message: StaticString, _ problem: PolicyFileError) {
        text = "\(message): \(problem.description)"
    }

    /// Writes `error: …` to standard error and exits 64.
    func exit() -> Never {
        IO.write("error: \(text)\n", to: 2)
        Glibc.exit(ExitStatus.usage)
    }
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
        var lines = ["error: " + kind(of: parser, known: known)]
        // The usage and "See … --help" lines are generated from the definitions, never from input.
        lines += command.fullMessage(for: error).split(separator: "\n").map(String.init)
            .filter { $0.hasPrefix("Usage: ") || $0.hasPrefix("  See '") }
        return lines.joined(separator: "\n") + "\n"
    }

    private static let notShown = "(not shown: it may be a secret)"

    static func kind(of message: String, known: Set<String>) -> String {
        func name(after marker: String) -> String? {
            guard let range = message.ranges(of: marker).last else { return nil }
            let rest = message[range.upperBound...]
            guard let end = rest.firstIndex(of: "'") else { return nil }
            let candidate = String(rest[..<end])
            return known.contains(candidate) ? candidate : nil
        }
        if message.hasPrefix("Unknown option") || message.hasPrefix("Invalid option") {
            return "Unknown option \(notShown)"
        }
        if message.hasPrefix("Unexpected argument") || message.contains("unexpected arguments") {
            return "Unexpected argument \(notShown)"
        }
        if message.hasPrefix("Missing value for '") {
            return "Missing value for \(name(after: "Missing value for '") ?? "an option")"
        }
        if message.hasPrefix("Missing expected argument '") {
            return "Missing \(name(after: "Missing expected argument '") ?? "an argument")"
        }
        if message.hasPrefix("The option '"), message.contains("does not take any value") {
            let option = name(after: "The option '") ?? "This option"
            return "\(option) does not take a value (the value is not shown: it may be a secret)"
        }
        if message.hasPrefix("The value '"), message.contains(" is invalid") {
            let option = name(after: "is invalid for '").map { " for \($0)" } ?? ""
            return "The value given\(option) is not valid (not shown: it may be a secret)"
        }
        return "The command line is not valid (its values are not shown: one may be a secret)"
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
