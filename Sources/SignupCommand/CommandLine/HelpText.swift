import SignupCore

/// swift-argument-parser's own words in the help and the usage lines, in the reader's language.
///
/// The parser writes its headers and its few texts (`OVERVIEW:`, `USAGE:`, `OPTIONS:`, `Show help
/// information.`, `(values: …)`) in English and cannot translate them; the commands' own texts
/// come from the catalog already (``About/english(_:_:translated:)``). Here only whole known lines, headers and
/// the parser's fixed phrases are replaced, never any other word: with no catalog (English, `C`)
/// every replacement is the same text, and the help is exactly the parser's.
enum HelpText {
    /// `help` (a whole help text: `signup --help`, `signup help list`) with the parser's words
    /// translated; any other text (the version, a completion script, the JSON of
    /// `--experimental-dump-help`) as it is.
    static func localized(_ help: String) -> String {
        guard help.hasPrefix("OVERVIEW: ") || help.hasPrefix("USAGE: ") else { return help }
        let headers = [
            "ARGUMENTS:": About.english("ARGUMENTS:"),
            "OPTIONS:": About.english("OPTIONS:"),
            "SUBCOMMANDS:": About.english("SUBCOMMANDS:"),
        ]
        // The parser's help of its own options and command, at the end of their line.
        let ownHelp = [
            "Show help information.": About.english("Show help information."),
            "Show the version.": About.english("Show the version."),
            "Show subcommand help information.": About.english("Show subcommand help information."),
        ]
        var lines = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var usageIndent: (from: Int, to: Int)?
        for index in lines.indices {
            let line = lines[index]
            // The usage's continuation lines keep their place under the text after the header.
            if let indent = usageIndent, line.hasPrefix(String(repeating: " ", count: indent.from)) {
                lines[index] = String(repeating: " ", count: indent.to) + line.dropFirst(indent.from)
                continue
            }
            usageIndent = nil
            if index == 0, line.hasPrefix("OVERVIEW: ") {
                // `signup help help` shows the parser's own abstract there.
                let abstract = String(line.dropFirst("OVERVIEW: ".count))
                lines[index] = About.english("OVERVIEW:") + " " + (ownHelp[abstract] ?? abstract)
            } else if line.hasPrefix("USAGE: ") {
                let header = About.english("USAGE:")
                lines[index] = header + placeholders(line.dropFirst("USAGE:".count))
                usageIndent = ("USAGE: ".count, header.count + 1)
            } else if let header = headers[line] {
                lines[index] = header
            } else if line.hasPrefix("  <"), !line.dropFirst(2).contains(Character(" ")) {
                lines[index] = "  " + placeholders(line.dropFirst(2))  // `signup help help`'s `<subcommands>`
            } else if line.hasPrefix("  "), let english = ownHelp.keys.first(where: { line.hasSuffix("  " + $0) }) {
                lines[index] = line.dropLast(english.count) + ownHelp[english]!
            } else if let see = seeLine(line, english: "' for detailed help.") {
                lines[index] = "  " + About.english("See '{command}' for detailed help.", ["command": placeholders(see)])
            } else {
                lines[index] = defaults(line)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// One line of a usage error's text (`Usage: …`, `  See 'signup list --help' for more
    /// information.`), the parser's words translated; any other line as it is.
    static func localizedUsageLine(_ line: String) -> String {
        if line.hasPrefix("Usage: ") {
            return About.english("Usage:") + placeholders(line.dropFirst("Usage:".count))
        }
        if let see = seeLine(line, english: "' for more information.") {
            return "  " + About.english("See '{command}' for more information.", ["command": see])
        }
        return line
    }

    /// The command of `  See 'COMMAND' ENDING`, nil for any other line. COMMAND is made of
    /// the commands' names and option names: the parser's, never input.
    private static func seeLine(_ line: String, english ending: String) -> String? {
        guard line.hasPrefix("  See '"), line.hasSuffix(ending) else { return nil }
        return String(line.dropFirst("  See '".count).dropLast(ending.count))
    }

    /// The parser's placeholders in a usage (`<options>`, `<subcommand>`, `<subcommands>`) translated.
    private static func placeholders<S: StringProtocol>(_ usage: S) -> String {
        let names = [
            "<options>": About.english("<options>"),
            "<subcommand>": About.english("<subcommand>"),
            "<subcommands>": About.english("<subcommands>"),
        ]
        // A placeholder may stand in brackets: `[<subcommands> ...]`.
        return usage.split(separator: " ", omittingEmptySubsequences: false)
            .map { word in names.reduce(String(word)) { $0.replacing($1.key, with: $1.value) } }
            .joined(separator: " ")
    }

    /// The parser's `(default)` after the default command's name, and its `(values: …)` after an
    /// option's help, translated; a label keeps its column. (No option has a parser default: each
    /// says its default in its own help, so the parser writes no `(default: …)`.)
    private static func defaults(_ line: String) -> String {
        var line = line
        let defaultCommand = "(default)"
        if line.hasPrefix("  "), let range = line.firstRange(of: " " + defaultCommand + " ") {
            let translated = About.english("(default)")
            // The padding after the label shrinks or grows so that the command's text stays in its column.
            let after = line[range.upperBound...]
            let padding = after.prefix(while: { $0 == " " }).count + 1
            let kept = max(2, padding - (translated.count - defaultCommand.count))
            line = String(line[..<range.lowerBound]) + " " + translated + String(repeating: " ", count: kept) + after.drop(while: { $0 == " " })
        }
        let values = About.english("(values:")
        if values != "(values:" {
            line = line.split(separator: " ", omittingEmptySubsequences: false)
                .map { $0 == "(values:" ? values : String($0) }.joined(separator: " ")
        }
        return line
    }
}
