import ArgumentParser

/// What `--version` and the help say about the program itself: one place for each.
enum About {
    /// The version: `signup --version` prints it, and scripts/package reads it from the
    /// binary it packages, so the two cannot drift.
    static let version = "0.1.0"

    /// The help of every `--db`: SPEC 8's fallback order, spelled out.
    static let databaseHelp = ArgumentHelp(
        "The account database (default: $SIGNUP_DB, else $XDG_DATA_HOME/signup/accounts.sqlite, "
            + "else ~/.local/share/signup/accounts.sqlite).",
        valueName: "path"
    )
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
