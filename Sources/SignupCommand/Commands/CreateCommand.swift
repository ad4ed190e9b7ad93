import AccountStore
import ArgumentParser
import FoundationEssentials
import PasswordStrength
import SignupCore
import WizardTerminal

/// The wizard: asks, checks, reviews and creates the account.
struct CreateCommand: ParsableCommand, SignUpCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: About.english("Create an account (the default command)."),
        discussion: About.english("""
            In a script, a password read from standard input (--password-fd 0, /dev/stdin, or a \
            duplicate of standard input) needs --email: otherwise a line meant as the password could \
            be taken for the email and echoed. Without --email this is a usage error (64) that names \
            the options, never the input.
            --public is for a sign-up open to strangers (an SSH forced command: see docs/public-signup.md). \
            Each question must be answered within --idle-timeout seconds (60), the whole session ends after \
            --session-limit seconds (600), one field may be answered 5 times and the session holds 25 answers \
            of any kind; reaching a limit says so on one line, stores nothing and exits 75. Ctrl-Z does \
            nothing. The limits never interrupt the writing of an account.
            --prove-address (and --public, unless public.prove-address = no) mails a 6-digit code to the \
            address through mail.command right after the email, asks for it, and stores the account only once \
            it matches; it is valid for 10 minutes. Exit 75, nothing stored, when the mail cannot be sent, the \
            code expired or 5 wrong codes were typed. With --public an address that has an account is asked for \
            a code all the same, and its owner is mailed a notice instead: the stranger cannot tell.
            """)
    )

    @OptionGroup var options: CreateOptions

    func run() throws {
        try options.run()
    }

    func plan() throws -> SignUpPlan {
        try options.plan()
    }
}

/// The options of `signup create`, the default command; ``CompletionTree`` offers them at the top level too.
struct CreateOptions: ParsableArguments {
    @Option(help: .english("Answer the email field.", value: Translation.english("address")))
    var email: String?

    @OptionGroup var passwordOptions: PasswordOptions

    @Flag(help: .english("Check everything, hash the password, but store nothing."))
    var dryRun = false

    @Flag(help: .english("A stranger's sign-up (an SSH forced command): time and attempt limits, no job control."))
    var `public` = false

    @Flag(exclusivity: .chooseLast)
    var addressProof: AddressProofFlag?

    /// `--prove-address` and `--no-prove-address`, the last one given deciding: two flags with a
    /// text each. One flag with an inversion gives both names one help, and signup(1) said of
    /// `--no-prove-address` that it mails a code.
    enum AddressProofFlag: EnumerableFlag {
        case proveAddress, noProveAddress

        static func help(for value: AddressProofFlag) -> ArgumentHelp? {
            switch value {
            case .proveAddress:
                .english("Mail a code to the address and ask for it before the account is stored (default: with --public, public.prove-address, else no).")
            case .noProveAddress:
                .english("Mail no code: store the account without proving the address, also with --public (overrides public.prove-address = yes).")
            }
        }
    }

    @Option(help: .english("With --public: seconds to answer one question (default: public.answer-seconds, else 60).", value: Translation.english("seconds")))
    var idleTimeout: Int?

    @Option(help: .english("With --public: seconds for the whole session (default: public.session-seconds, else 600).", value: Translation.english("seconds")))
    var sessionLimit: Int?

    @Option(help: .english("With --public: accounts one client address may create per --limit-window (default: public.per-client, else 3).", valueName: "n"))
    var limitPerClient: Int?

    @Option(help: .english("With --public: accounts all strangers together may create per --limit-window (default: public.overall, else 30).", valueName: "n"))
    var limitOverall: Int?

    @Option(help: .english("With --public: the window of both limits, in seconds (default: public.limit-window, else 3600).", value: Translation.english("seconds")))
    var limitWindow: Int?

    func run() throws {
        try SignUpFlow(plan: plan(), environment: .live).run()
    }

    /// The options as a plan, or the usage error of limits given without `--public` or out of range.
    func plan() throws -> SignUpPlan {
        let limits = [idleTimeout, sessionLimit, limitPerClient, limitOverall, limitWindow]
        if !`public` && limits.contains(where: { $0 != nil }) {
            throw UsageError(.english("--idle-timeout, --session-limit and the --limit- options go with --public"))
        }
        if limits.contains(where: { ($0 ?? 1) < 1 || ($0 ?? 1) > 1_000_000_000 }) {
            throw UsageError(.english("--idle-timeout, --session-limit and the --limit- options take a whole number from 1 to 1000000000"))
        }
        var plan = passwordOptions.plan
        plan.email = email
        plan.dryRun = dryRun
        plan.proveAddress = addressProof.map { $0 == .proveAddress }
        // Each limit not given comes from the configuration (public.*), else its default.
        if `public` {
            plan.audience = .stranger(SignUpPlan.PublicOptions(
                idle: idleTimeout, session: sessionLimit, perClient: limitPerClient, overall: limitOverall, window: limitWindow))
        }
        return plan
    }
}

/// How a new password is given and checked, and how the result is shown: `create` and `passwd` alike.
struct PasswordOptions: ParsableArguments {
    @Option(help: .english("Read the password (both fields) from the first line of this file.", value: Translation.english("path")), completion: .file())
    var passwordFile: String?

    @Option(help: .english("Read the password (both fields) from the first line of this file descriptor.", valueName: "n"))
    var passwordFd: Int32?

    @Option(help: About.databaseHelp, completion: .file())
    var db: String?

    @Option(help: About.configHelp, completion: .file())
    var config: String?

    // Optional, not defaulted: `--policy standard --policy-file F` names two policies.
    @Option(help: .english("The password policy: standard, strict or nist (default: signup.conf's policy or policy-file, else standard).", value: Translation.english("name")), completion: .list(["standard", "strict", "nist"]))
    var policy: String?

    @Option(help: .english("A JSON policy file (its format: man signup-policy).", value: Translation.english("path")), completion: .file())
    var policyFile: String?

    @Flag(help: .english("Print the result as one JSON object on standard output."))
    var json = false

    @Flag(help: .english("Write no conversation, only errors and the result."))
    var quiet = false

    @Flag(help: .english("No colour, no escape sequences, no symbols: error lines start with error:."))
    var plain = false

    @Flag(help: .english("Read answers from standard input even at a terminal."))
    var noInteractive = false

    /// The plan these options describe: a sign-up by an administrator, with no email and no dry run.
    var plan: SignUpPlan {
        SignUpPlan(
            passwordFile: passwordFile, passwordFd: passwordFd, db: db, config: config, policy: policy,
            policyFile: policyFile, json: json, quiet: quiet, plain: plain, noInteractive: noInteractive
        )
    }
}

/// The command tree the shell completions are generated from (`signup --generate-completion-script`):
/// signup's own, with the default command's options at the top level as well, because `signup
/// --db PATH` is `signup create --db PATH`. swift-argument-parser's generators offer a default
/// subcommand's options only after its name; this tree is never run.
struct CompletionTree: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signup",
        version: About.version,
        subcommands: Signup.configuration.subcommands
    )

    @OptionGroup var options: CreateOptions
}

/// A command whose run is a ``SignUpFlow``: `create`, `passwd` and `reset`.
protocol SignUpCommand {
    /// What its options ask for, worked out with no side effect.
    func plan() throws -> SignUpPlan
}
