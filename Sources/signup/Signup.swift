import ArgumentParser

/// `signup`: create an account (the default), list accounts, or verify a password.
@main
struct Signup: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signup",
        abstract: "Create an account: email, password, and the password again.",
        discussion: """
            Answers come from a person at a terminal, or from a script on standard input \
            (one line each: email, password, confirmation). Passwords are never taken on the \
            command line: use --password-file, --password-fd or SIGNUP_PASSWORD.
            Exit codes: 0 created, 1 declined, 64 usage, 65 invalid or taken, 66 input ended early, \
            74 storage failure, 130 cancelled.
            """,
        version: About.version,
        subcommands: [CreateCommand.self, ListCommand.self, VerifyCommand.self],
        defaultSubcommand: CreateCommand.self
    )

    static func main() {
        ProcessHardening.apply()
        IO.ignoreBrokenPipes()
        if About.asksForRootHelp(CommandLine.arguments) { IO.write(About.rootHelp(), to: 1); Self.exit() }
        // Refuse a password on the command line before the parser can repeat it in an error.
        if let flag = CommandLine.arguments.dropFirst().first(where: Self.looksLikePasswordOption) {
            let name = flag.split(separator: "=", maxSplits: 1).first.map(String.init) ?? flag
            IO.write("error: \(name) is not an option: passwords are never taken on the command line.\n"
                + "Use --password-file PATH, --password-fd N or the SIGNUP_PASSWORD environment variable.\n", to: 2)
            Self.exit(withError: ExitCode(ExitStatus.usage))
        }
        // `signup help WORD` shows the root help for any WORD and exits 0; a word that names no
        // subcommand is a usage error, and (like every argument) is not repeated.
        let words = CommandLine.arguments.dropFirst()
        let names = Set(configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"])
        if words.first == "help", words.dropFirst().contains(where: { !names.contains($0) && !$0.hasPrefix("-") }) {
            IO.write("error: signup help takes the name of a subcommand: create, list or verify (the word given is not shown: it may be a secret).\n", to: 2)
            Self.exit(withError: ExitCode(ExitStatus.usage))
        }
        var command: ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            exitWithoutRepeatingArguments(error)
        }
        do {
            try command.run()
        } catch {
            Self.exit(withError: error)
        }
    }

    /// Exits for a parse error without quoting any bare argument: a stray one may be a password
    /// typed in the wrong place (`signup hunter2`), and errors end up in logs.
    static func exitWithoutRepeatingArguments(_ error: any Error) -> Never {
        let code = exitCode(for: error)
        guard code != .success else { Self.exit(withError: error) }  // --help, --version
        var message = fullMessage(for: error)
        for argument in CommandLine.arguments.dropFirst() where !argument.hasPrefix("-") {
            message = message.replacingOccurrences(of: "'\(argument)'", with: "(not shown: it may be a secret)")
        }
        IO.write(message + "\n", to: 2)
        Self.exit(withError: code)
    }

    /// `--password`, `--passwd`, `--pass=…` and the like, but not `--password-file` or `--password-fd`.
    static func looksLikePasswordOption(_ argument: String) -> Bool {
        let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
        guard name.hasPrefix("--pass") || name == "-p" else { return false }
        return !["--password-file", "--password-fd"].contains(name)
    }
}

/// The exit codes of SPEC 7.
enum ExitStatus {
    static let created: Int32 = 0
    static let declined: Int32 = 1
    static let usage: Int32 = 64
    static let invalid: Int32 = 65
    static let incomplete: Int32 = 66
    static let storage: Int32 = 74
    /// The result could not be written to standard output (EX_IOERR, as for storage).
    static let unwritable: Int32 = 74
    static let cancelled: Int32 = 130
}
