import AccountStore
import SignupCore

/// What a run of `create`, `passwd` or `reset` is for, for whom, and how it is shown: the options
/// as one value, worked out with no side effect. ``SignUpFlow`` runs it over the process.
///
/// A new mode is a new case of ``Purpose`` or ``Audience``, not another flag.
struct SignUpPlan: Equatable {
    /// What the run changes.
    enum Purpose: Equatable {
        /// A new account (`signup`, `signup create`).
        case create
        /// A new password for the account of this email (`signup passwd EMAIL`).
        case changePassword(email: String)
        /// A forgotten password, once a code mailed to the address matches (`signup reset`).
        case reset
    }

    /// Who answers the questions.
    enum Audience: Equatable {
        /// The administrator or the account's owner at a terminal or in a script.
        case administrator
        /// A stranger (`--public`, an SSH forced command): time, attempt and rate limits, no job
        /// control. The limits given as options; each one not given comes from the configuration.
        case stranger(PublicOptions)
    }

    /// `--idle-timeout`, `--session-limit`, `--limit-per-client`, `--limit-overall` and `--limit-window` as given.
    struct PublicOptions: Equatable {
        var idle: Int?, session: Int?, perClient: Int?, overall: Int?, window: Int?
    }

    var purpose = Purpose.create
    var audience = Audience.administrator
    /// `--prove-address` or `--no-prove-address`; nil leaves it to the purpose and the configuration.
    var proveAddress: Bool? = nil
    var email: String? = nil
    var passwordFile: String? = nil
    var passwordFd: Int32? = nil
    var db: String? = nil
    /// `--config`: the one configuration file to read, instead of the user's and the system's.
    var config: String? = nil
    /// `--policy`, nil when not given (the standard policy, unless `--policy-file`).
    var policy: String? = nil
    var policyFile: String? = nil
    var json = false
    var quiet = false
    var plain = false
    var noInteractive = false
    var dryRun = false

    /// `--policy`'s default.
    static let standardPolicy = "standard"

    /// The combinations of options that mean nothing, found before anything is read or opened.
    func validate() throws(UsageError) {
        if passwordFile != nil && passwordFd != nil {
            throw UsageError(.english("use only one of --password-file and --password-fd"))
        }
        if policyFile != nil && policy != nil {
            throw UsageError(.english("use only one of --policy and --policy-file"))
        }
    }

    /// The account whose password changes, for `passwd`.
    var changing: String? {
        if case .changePassword(let email) = purpose { email } else { nil }
    }

    var isReset: Bool { purpose == .reset }

    /// The limits given as options of a stranger's run; nil for an administrator's.
    var publicOptions: PublicOptions? {
        if case .stranger(let options) = audience { options } else { nil }
    }

    var isPublic: Bool { publicOptions != nil }

    /// Whether the run mails at all: a proof of the address, or a stranger's sign-up, whose taken
    /// address's owner is told by mail even without a proof. A password change mails nothing.
    var mails: Bool {
        changing == nil && (isReset || proveAddress == true || isPublic)
    }

    /// Whether a code mailed to the address must match before anything is stored: always for a
    /// reset; else `--prove-address`, else for a stranger `configured` (public.prove-address).
    func provesAddress(configured: Bool) -> Bool {
        isReset || (proveAddress ?? (isPublic && configured))
    }

    /// The texts of the conversation: a sign-up's, a password change's or a reset's.
    var texts: WizardTexts {
        switch purpose {
        case .create: SignupForm.texts
        case .changePassword(let email): SignupForm.passwordChangeTexts(email: VisibleText.of(SignupForm.normalizeEmail(email)))
        case .reset: ResetCommand.texts
        }
    }

    /// The fields checked right after their answer (before the password is typed for nothing).
    ///
    /// A taken email is said right after the email, but the store still refuses it at commit,
    /// where two runs can race. Not for a stranger: he would learn which addresses have accounts
    /// for one line each, without a hash's cost. Nor on PostgreSQL: a server that is down or stalls
    /// would hold the person after the email for its timeouts (10 s to connect, 45 s an answer),
    /// and again at the commit. A script hears every error at the end anyway: it is not made to
    /// open the store twice. With a proof of the address, the check mails the code (or, for a
    /// stranger, a taken address's owner a notice: the same conversation follows).
    func checkedFields(interactive: Bool, isSQLite: Bool, provingAddress: Bool) -> [FieldKey<String>] {
        (interactive && changing == nil && !isPublic && isSQLite) || provingAddress ? [SignupForm.email] : []
    }
}

extension SignUpPlan {
    /// The plan that `words` (the arguments after the program's name) describe when they are only
    /// `create`'s everyday options; nil for anything else, which the argument parser then reads.
    ///
    /// swift-argument-parser reflects over every command's options and builds every command's
    /// help text before it reads one word: 18 of the 25 million instructions of a start-up with
    /// `--db PATH` (BENCHMARKS.md). What is read here: `create` as the first word; `--db`, `--config`,
    /// `--email`, `--password-file`, `--policy` and `--policy-file`, each followed by its value
    /// as a separate word that is not empty and does not start with `-`; `--dry-run`, `--json`,
    /// `--quiet`, `--plain` and `--no-interactive`. Each word at most once. Anything else (a word
    /// given twice, `--db=PATH`, `--help`, `--public`, a value that looks like an option) is left
    /// to the parser, so what it means and how it is refused stay the parser's alone.
    init?(everydayArguments words: ArraySlice<String>) {
        var words = words
        if words.first == "create" { words = words.dropFirst() }
        var plan = SignUpPlan()
        var seen: Set<String> = []
        var index = words.startIndex
        while index < words.endIndex {
            let word = words[index]
            guard seen.insert(word).inserted else { return nil }
            switch word {
            case "--dry-run": plan.dryRun = true
            case "--json": plan.json = true
            case "--quiet": plan.quiet = true
            case "--plain": plan.plain = true
            case "--no-interactive": plan.noInteractive = true
            case "--db", "--config", "--email", "--password-file", "--policy", "--policy-file":
                index = words.index(after: index)
                guard index < words.endIndex else { return nil }
                let value = words[index]
                guard !value.isEmpty, !value.hasPrefix("-") else { return nil }
                switch word {
                case "--db": plan.db = value
                case "--config": plan.config = value
                case "--email": plan.email = value
                case "--password-file": plan.passwordFile = value
                case "--policy": plan.policy = value
                default: plan.policyFile = value
                }
            default:
                return nil
            }
            index = words.index(after: index)
        }
        self = plan
    }
}
