import FoundationEssentials
import Glibc
import SignupCore
import WizardTerminal

/// Everything outside itself that a sign-up flow reads or changes, as one value: the environment
/// variables, the terminals, the standard streams, the clock, the audit log, the mail command,
/// the client's address and the wizard's runner.
///
/// ``live`` is the process's own; a test makes one of closures over lines, files and lists, and
/// runs a whole flow in its own process.
struct CommandEnvironment: Sendable {
    /// The environment variables, read once.
    var variables: [String: String]
    /// A variable's raw bytes, nil when it is unset: a path in it need not be UTF-8.
    var variable: @Sendable (String) -> [UInt8]?
    /// `SIGNUP_PASSWORD` as it was taken at start-up; nil when unset.
    var passwordVariable: LineInput.Line?
    /// Whether a descriptor (0, 1, 2) is a terminal.
    var isTerminal: @Sendable (Int32) -> Bool
    /// Whether standard input is a folder, which no line can be read from.
    var standardInputIsAFolder: @Sendable () -> Bool
    /// Writes text to standard output (1) or standard error (2).
    var write: @Sendable (_ text: String, _ fd: Int32) -> Void
    /// Why a write to standard output failed, when one did: the result is then lost.
    var outputFailure: @Sendable () -> String?
    /// The time stored with an account, a mail and a code.
    var now: @Sendable () -> Date
    /// Where the audit log's lines go.
    var audit: AuditSink
    /// Hands a message to the mail command (`mail.command`'s words).
    var sendMail: @Sendable (_ message: MailMessage, _ command: [String]) throws(Mailer.Failure) -> Void
    /// The origin a public session's limits count the client by (``PublicSession/origin(environment:)``).
    var clientOrigin: @Sendable () -> String
    /// The wizard's runner for the options: a terminal session for a person, or a script's lines.
    var runner: @Sendable (RunnerOptions) throws(TerminalError) -> TerminalRunner
    /// Takes the process's signals for the run: the terminal restored and the cancellation's lines
    /// (conversation, result) written on the way out, and for a stranger (true) no job control.
    var guardSignals: @Sendable (_ stranger: Bool, _ cancellation: (conversation: String, result: String)) -> Void
    /// Arms the timer of a stranger's wait: when it rings, the conversation's line and the status end the run.
    var armDeadline: @Sendable (_ seconds: Int, _ conversation: String, _ status: Int32) -> Void
    /// Disarms that timer once the answer came.
    var disarmDeadline: @Sendable () -> Void

    /// This process: its variables, descriptors, clock, system logger and mail command.
    static var live: CommandEnvironment {
        let variables = IO.environment()
        return CommandEnvironment(
            variables: variables,
            variable: { name in getenv(name).map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) } },
            passwordVariable: EnvironmentPassword.taken,
            isTerminal: { WizardTerminal.isTerminal($0) },
            standardInputIsAFolder: { IO.standardInputIsAFolder },
            write: { IO.write($0, to: $1) },
            outputFailure: { IO.outputFailure },
            now: { Date() },
            audit: .live(environment: variables),
            sendMail: { message, command throws(Mailer.Failure) in try Mailer(command: command).send(message) },
            clientOrigin: { PublicSession.origin(environment: variables) },
            runner: { options throws(TerminalError) in try TerminalRunner(options) },
            guardSignals: { stranger, cancellation in
                if stranger { ProcessSignals.ignoreJobControl() }
                TerminalGuard.install()
                TerminalGuard.prepareInterruptReport(conversation: cancellation.conversation, result: cancellation.result)
            },
            armDeadline: { TerminalGuard.armDeadline(seconds: $0, conversation: $1, status: $2) },
            disarmDeadline: { TerminalGuard.disarmDeadline() }
        )
    }
}

/// Where a run's audit lines go (``AuditLog`` makes them): the system logger, or a test's list.
/// What a run changes about its lines (a dry run's silence, a public reset's words, a stranger's
/// screen kept free of the logger's trouble) is a property of the sink it was given.
struct AuditSink: Sendable {
    /// The variables the client's address and the user's login name come from.
    var environment: [String: String]
    /// A dry run's: every line is dropped, a refusal's too.
    var silenced = false
    /// Refusals end a public reset's session, not a public sign-up's.
    var refusingReset = false
    /// A line the logger does not take is lost without a note on standard error: in public mode
    /// that is the stranger's screen.
    var losesQuietly = false
    /// A public session's steps name the client's address (``AuditLog/clientAddress(environment:)``);
    /// no other run's lines do: outside sshd's forced command, any local user sets `SSH_CONNECTION`.
    var namesClient = false
    /// Hands over one line at a priority; the last argument is ``losesQuietly``.
    var deliver: @Sendable (_ priority: Int32, _ line: String, _ quietly: Bool) -> Void

    /// The system logger's, through ``AuditLog/deliver(_:_:quietly:)``.
    static func live(environment: [String: String]) -> AuditSink {
        AuditSink(environment: environment) { AuditLog.deliver($0, $1, quietly: $2) }
    }

    /// `public password reset` or `public sign-up`: whose session a refusal ends.
    var refusing: String { refusingReset ? "public password reset" : "public sign-up" }

    /// Writes the line for `change`, with the client's address for a public session's steps.
    func record(_ change: AuditLog.Change) {
        guard !silenced else { return }
        let address = namesClient && AuditLog.namesClient(change) ? AuditLog.clientAddress(environment: environment) : nil
        let priority = if case .mailFailed = change { LOG_ERR } else { LOG_INFO }
        deliver(priority, AuditLog.line(for: change, from: address, by: AuditLog.user(environment: environment)), losesQuietly)
    }

    /// Writes the line for `refusal` of a public session, with the client's address when there is one.
    func refuse(_ refusal: AuditLog.Refusal) {
        guard !silenced else { return }
        let (priority, line) = AuditLog.line(for: refusal, from: AuditLog.clientAddress(environment: environment),
                                             by: AuditLog.user(environment: environment), refusing: refusing)
        deliver(priority, line, losesQuietly)
    }
}
