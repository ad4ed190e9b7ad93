import ArgumentParser
import Glibc
import SignupCore
import WizardTerminal

/// Runs `signup` with the process's arguments and ends the process: the executable's one line.
package func runSignup() -> Never {
    Signup.main()
    exit(0)
}

/// `signup`: create an account (the default), list accounts, or verify a password.
struct Signup: ParsableCommand {
    // Made on first use, at run time: its texts come from the catalog in the reader's language.
    static let configuration = CommandConfiguration(
        commandName: "signup",
        abstract: About.english("Create an account: email, password, and the password again."),
        discussion: About.english("""
            Answers come from a person at a terminal, or from a script on standard input \
            (one line each: email, password, confirmation). Passwords are never taken on the \
            command line: use --password-file, --password-fd or SIGNUP_PASSWORD.
            Exit codes: 0 created (or would be, with --dry-run), 1 declined, 64 usage, 65 invalid \
            or taken, 66 input ended early or no terminal could be used, 74 storage failure or \
            standard output failed, 75 a limit of --public was reached, 130 cancelled.
            Environment: SIGNUP_DB is the database when --db is not given; SIGNUP_CONFIG names the one \
            configuration file to read when --config is not given; XDG_CONFIG_HOME places the user's; SIGNUP_PASSWORD answers \
            both password fields (read once at start and removed: prefer --password-file or \
            --password-fd); XDG_DATA_HOME places the default database; NO_COLOR, or TERM dumb, unset \
            or unknown, means no colour and no escape sequences; LC_ALL, LC_CTYPE and LANG choose \
            UTF-8 or ASCII output; HOME places ~/.local/share; COLUMNS is used when the terminal \
            does not say its width; libpq's PG variables (PGHOST, PGUSER, PGPASSFILE, \
            PGSERVICE...) apply to a PostgreSQL database.
            Files: /etc/signup/signup.conf, the system's settings, and $XDG_CONFIG_HOME/signup/signup.conf, \
            else ~/.config/signup/signup.conf, the user's (signup.conf(5): the command line, then the \
            environment, then the user's file, then the system's); \
            $XDG_DATA_HOME/signup/accounts.sqlite, else ~/.local/share/signup/accounts.sqlite, \
            the default database (with its -wal and -shm files beside it); ~/.pgpass, libpq's passwords.
            Examples:
              signup                          ask at this terminal
              signup --db ./accounts.sqlite < answers.txt
                                              a script: email, password, confirmation
              signup --email a@example.com --password-file pw.txt --json
              signup --public                 a sign-up for strangers, over SSH
              signup list
              signup list --state pending     the accounts waiting for an administrator
              signup verify a@example.com < pw.txt
              signup passwd a@example.com     change a password at this terminal
              signup reset a@example.com      a forgotten password, with a code mailed to the address
              signup disable a@example.com    no sign-in until signup enable
              signup enable a@example.com     sign-in allowed again, or a pending one approved
              signup delete a@example.com --yes
              signup import --dry-run users.csv
                                              check a file of email,password rows, store nothing
              signup import users.csv         create its accounts
              signup export > accounts.jsonl  every account whole, to import elsewhere
              signup backup /var/backups/signup/accounts.sqlite
                                              a consistent copy while it is in use
              signup restore --yes /var/backups/signup/accounts.sqlite
              signup config                   the settings and where each came from
            """),
        version: About.version,
        subcommands: [
            CreateCommand.self, ListCommand.self, VerifyCommand.self, PasswdCommand.self, ResetCommand.self, DisableCommand.self,
            EnableCommand.self, DeleteCommand.self, ImportCommand.self, ExportCommand.self, BackupCommand.self, RestoreCommand.self,
            ConfigCommand.self,
        ],
        defaultSubcommand: CreateCommand.self
    )

    /// The most words a command line may have after the program's name.
    static let mostArguments = 64

    static func main() {
        prepareProcess()
        refuseBeforeParsing()
        do {
            try runCommand()
        } catch {
            end(for: error)
        }
    }

    /// What every run needs before anything else: the process hardened, the standard descriptors
    /// held, the password variable taken, broken pipes ignored and the reader's language chosen.
    private static func prepareProcess() {
        ProcessHardening.apply()
        IO.reserveStandardDescriptors()
        // Read once and scrubbed before anything else runs: no other code sees the variable.
        _ = EnvironmentPassword.taken
        ProcessSignals.ignoreBrokenPipes()
        // The reader's language before anything can be written, on every path: the first
        // lookup applies the message locale, which the system's own texts (`strerror`) follow
        // too. Without it here, a line read without the parser said `No such file or directory`
        // in German where the parser's path said `Datei oder Verzeichnis nicht gefunden`.
        _ = About.translation
    }

    /// Ends the run for a command line the parser must not see (or repeat in an error): too many
    /// words, a password given as an option, `help` with a word that names no command; and
    /// answers the root help without it.
    private static func refuseBeforeParsing() {
        // No command takes more than about 30 words. The parser's time grows with the square of
        // their number (20,000 took 16 s before the first prompt): a size from outside, bounded.
        if CommandLine.arguments.count - 1 > Self.mostArguments {
            endForUsage(UsageError(.english("too many arguments: no command of signup's takes more than 64")).text)
        }
        if About.asksForRootHelp(CommandLine.arguments) { exitShowing(About.rootHelp()) }
        // Refuse a password on the command line before the parser can repeat it in an error.
        if CommandLine.arguments.dropFirst().contains(where: Self.looksLikePasswordOption) {
            IO.write("error: " + About.english("passwords are never taken on the command line, and this option is not one of signup's.") + "\n"
                + About.english("Use --password-file PATH, --password-fd N or the SIGNUP_PASSWORD environment variable.") + "\n", to: 2)
            Self.exit(withError: ExitCode(ExitStatus.usage))
        }
        // `signup help WORD` shows the root help for any WORD and exits 0; a word that names no
        // subcommand is a usage error, and (like every argument) is not repeated.
        let words = CommandLine.arguments.dropFirst()
        if words.first == "help", words.dropFirst().contains(where: { !Self.namesCommand($0) && !$0.hasPrefix("-") }) {
            IO.write("error: " + About.english("signup help takes the name of a command (the word given is not shown: it may be a secret).") + "\n"
                + Self.commandList, to: 2)
            Self.exit(withError: ExitCode(ExitStatus.usage))
        }
    }

    /// Runs the command the arguments name: the everyday sign-up without the parser, a
    /// completion script, or whatever the parser finds.
    private static func runCommand() throws {
        // No argument, or only the default command's everyday options: without the parser's
        // start-up cost (SignUpPlan.init(everydayArguments:)). Anything else is the parser's.
        if let plan = SignUpPlan(everydayArguments: CommandLine.arguments.dropFirst()) {
            try SignUpFlow(plan: plan, environment: .live).run()
        } else if CommandLine.arguments[1].hasPrefix("--generate-completion-script") {
            // The parser answers a completion request with a clean exit that writes the script
            // of the command it is given to: CompletionTree's. Errors still quote no argument.
            do { _ = try CompletionTree.parseAsRoot() } catch {
                if CompletionTree.exitCode(for: error) == .success { exitSucceeding(error, as: CompletionTree.self) }
                exitWithoutRepeatingArguments(error)
            }
            exitWithoutRepeatingArguments(ValidationError("--generate-completion-script takes a shell: bash, zsh or fish."))
        } else {
            var command = parsed()
            try command.run()
        }
    }

    /// Ends the process for what a command threw: its own result (already written), a usage or
    /// configuration error, or what the parser raised (help, version, a validation error).
    private static func end(for error: any Error) -> Never {
        switch error {
        case let error as UsageError:
            endForUsage(error.text)
        case let error as ConfigError:
            // Nothing was asked or written.
            endForUsage(error.text)
        case let code as ExitCode:
            // signup's own result (66 at end of input, 65, 1, 130): its message is already
            // written. The parser's `exit(withError:)` builds the whole help text to find that it
            // has nothing to add, which was half the instructions of a start-up that ends at once.
            Glibc.exit(code.rawValue)
        case let error as ValidationError:
            // A usage error a command's own validation found: the parser's text, its usage lines translated.
            let lines = fullMessage(for: error).split(separator: "\n", omittingEmptySubsequences: false).map { HelpText.localizedUsageLine(String($0)) }
            IO.write(lines.joined(separator: "\n") + "\n", to: 2)
            Self.exit(withError: exitCode(for: error))
        default:
            // A help or version request the parser raised while running a command (`list --help`).
            if exitCode(for: error) == .success { exitSucceeding(error, as: Self.self) }
            Self.exit(withError: error)
        }
    }

    /// The command the arguments name, or the exit of a parse error.
    static func parsed() -> ParsableCommand {
        do {
            return try parseAsRoot()
        } catch {
            exitWithoutRepeatingArguments(error)
        }
    }

    /// Exits for a parse error without quoting any argument, option value or unknown option
    /// name: any of them may be a password typed in the wrong place, and errors end up in logs.
    static func exitWithoutRepeatingArguments(_ error: any Error) -> Never {
        let code = exitCode(for: error)
        guard code != .success else { exitSucceeding(error, as: Self.self) }  // --help, --version
        var message = ParseErrorText.message(for: error, in: Self.self)
        // `signup passwd`, `signup lsit`: a first word that names no command is most likely a
        // command that does not exist (here, or yet), so the message says which ones do.
        if let first = CommandLine.arguments.dropFirst().first, !first.hasPrefix("-"), !namesCommand(first),
           let lineEnd = message.firstIndex(of: "\n") {
            message.insert(contentsOf: About.english("The first word names no command of signup's.") + "\n" + commandList,
                           at: message.index(after: lineEnd))
        }
        IO.write(message, to: 2)
        Self.exit(withError: code)
    }

    /// The names of signup's commands, from the configuration's `subcommands`: a command added
    /// there appears in every message that lists them.
    static var commandNames: [String] {
        configuration.subcommands.compactMap { $0.configuration.commandName }
    }

    /// True when `word` is one of signup's commands, or `help`.
    static func namesCommand(_ word: String) -> Bool {
        word == "help" || commandNames.contains(word)
    }

    /// `Commands: create, list, verify (signup COMMAND --help for one).`, a line of its own.
    static var commandList: String {
        About.english("Commands: {commands} (signup help COMMAND for one).", ["commands": commandNames.joined(separator: ", ")]) + "\n"
    }

    /// Writes what a clean exit shows (help, the version, a completion script: the parser's text
    /// and the line end its own `exit(withError:)` would print) and exits 0, or
    /// 74 with a message when standard output does not take it (`> /dev/full`, closed): text that
    /// was not delivered is not a success, as for every other result of signup's.
    static func exitSucceeding<Command: ParsableCommand>(_ error: any Error, as command: Command.Type) -> Never {
        let text = command.fullMessage(for: error)
        // A command's own `ExitCode(0)` shows nothing: it wrote its result itself.
        if text.isEmpty { command.exit(withError: error) }
        exitShowing(text + "\n")
    }

    /// Writes `text` to standard output and exits 0, or 74 when it does not arrive.
    static func exitShowing(_ text: String) -> Never {
        IO.write(HelpText.localized(text), to: 1)
        // A reader that went away (`signup --help | head -1`) ends it quietly, as SIGPIPE would,
        // the way `signup list` does: 141 in a shell.
        IO.endIfReaderWentAway(IO.outputFailureCode)
        if let failure = IO.outputFailure {
            IO.write("error: " + About.english("cannot write to standard output: {reason}", ["reason": "\(failure)"]) + "\n", to: 2)
            Self.exit(withError: ExitCode(ExitStatus.unwritable))
        }
        Self.exit()
    }

    /// Writes `error: MESSAGE` to standard error and exits 64.
    static func endForUsage(_ message: String) -> Never {
        IO.write("error: \(message)\n", to: 2)
        Glibc.exit(ExitStatus.usage)
    }

    /// Ends the run with `status` once its caller has said why and restored the terminal: a public
    /// session's limit (75), a code that can no longer match.
    static func endEarly(_ status: Int32) -> Never {
        Glibc.exit(status)
    }

    /// Ends the run when a library it needs now cannot be loaded: the terminal restored (the
    /// estimate may be asked in the middle of a masked read), `error: REASON`, exit 74.
    static func endForMissingLibrary(_ reason: String) -> Never {
        TerminalGuard.restore()
        IO.write("error: \(reason)\n", to: 2)
        Glibc.exit(ExitStatus.storage)
    }

    /// `--password`, `--passwd`, `--pass=…`, `-p…` and the like, but not `--password-file` or `--password-fd`.
    static func looksLikePasswordOption(_ argument: String) -> Bool {
        let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
        if name.hasPrefix("-p") && !name.hasPrefix("--") { return true }
        guard name.hasPrefix("--pass") else { return false }
        return !["--password-file", "--password-fd"].contains(name)
    }
}
