import AccountStore
import CSystem
import Glibc
import SignupCore
import Synchronization
import WizardTerminal

/// The audit log: one line through syslog(3) for every change to an account and every refusal of
/// a public sign-up, as `useradd`, `passwd` and `sshd` write theirs (docs/audit-log.md).
///
/// Every line is made here, in one shape:
///
///     WHAT[ from ADDRESS] by USER (uid N)[: DETAIL]
///
/// `WHAT` is one of signup's fixed phrases (`account created`, `public sign-up refused`…),
/// `ADDRESS` the client's IP address in public mode (only when it is one), `USER` the Unix user
/// running signup. Outside text (an email) comes only in `DETAIL`, last, through
/// `VisibleText.of` and cut to a bound, so it can neither end the line nor be taken for the parts
/// before it: a fail2ban filter anchored at the line's start matches only signup's own words.
/// Never a password, a hash, a code or a policy.
///
/// Nothing is done before the first line: `openlog` and `syslog` run only when one is written,
/// and a system with no logger (no `/dev/log`) loses the line silently. This file is the only
/// caller of `openlog`, `syslog` and `inet_pton`.
enum AuditLog {
    /// A change to an account, written at `LOG_INFO` once it is stored.
    enum Change {
        case created(email: String)
        /// A public sign-up's account, waiting for an administrator.
        case createdPending(email: String)
        case passwordChanged(email: String)
        case disabled(email: String)
        case enabled(email: String)
        case deleted(email: String)
        /// `verify` replaced a matching hash with one of the policy's costs.
        case hashUpgraded(email: String)
        /// One line for a whole import: what it stored.
        case imported(created: Int, updated: Int, alreadyThere: Int, rejected: Int)
        /// A code to prove the address was handed to the mail command.
        case codeSent(email: String)
        /// The code typed back matched: the address is proven.
        case addressVerified(email: String)
        /// A sign-up with an address that has an account: its owner was mailed a notice, no code.
        case ownerNotified(email: String)
        /// `signup reset`: a mail was handed over for the address (a code, or a notice that it cannot be reset).
        case resetRequested(email: String)
        /// `signup reset` stored a new password.
        case passwordReset(email: String)
        /// A code typed back outside public mode that is not the one mailed (public mode: ``Refusal/wrongCode``).
        case wrongCode(email: String)
        /// The mail command failed or overran: no mail, nothing stored.
        case mailFailed(detail: String)
    }

    /// Why a public sign-up was refused or ended, written at `LOG_WARNING` (a limit) or `LOG_NOTICE`.
    enum Refusal {
        /// A limit of the store (accounts, mails or codes; per client, overall or per account): which one, as a value.
        case rateLimit(LimitRefusal)
        case emailTaken(email: String)
        case idleTimeout(seconds: Int)
        case sessionTimeUp
        case tooManyAttemptsAtOneAnswer
        case tooManyAnswers
        /// The session ended before an account was made: Ctrl-C, the input's end, a hang-up.
        case endedEarly(how: String)
        /// A code typed back that is not the one mailed (or an expired one).
        case wrongCode
        /// The code's 10 minutes were over.
        case codeExpired
        /// A session asked for more mails than ``AddressProof/mailsPerSession``.
        case tooManyMails
    }

    /// Whose session a refusal ends: a public sign-up's (`signup --public`) or a public reset's (`signup reset --public`).
    static var refusing: String {
        get { refusingReset.load(ordering: .sequentiallyConsistent) ? "public password reset" : "public sign-up" }
    }

    /// From now on refusals are a public reset's.
    static func refuseAsReset() { refusingReset.store(true, ordering: .sequentiallyConsistent) }

    /// The facility of every line from now on; set it at start-up (a configuration's `syslog.facility`).
    static var facility: SyslogFacility {
        get { facilityValue.load(ordering: .sequentiallyConsistent) == LOG_AUTH ? .auth : .authpriv }
        set { facilityValue.store(newValue.code, ordering: .sequentiallyConsistent) }
    }

    /// Makes every later line a no-op: a dry run logs nothing, not even a refusal.
    static func silence() { silenced.store(true, ordering: .sequentiallyConsistent) }

    /// The most bytes of an email a line holds, after `VisibleText.of`; a longer one ends in `...`.
    static let emailBound = 254

    /// Writes the line for `change`.
    static func record(_ change: Change, environment: [String: String] = IO.environment()) {
        guard !silenced.load(ordering: .sequentiallyConsistent) else { return }
        let address: String? = switch change {
        case .createdPending, .codeSent, .addressVerified, .ownerNotified, .resetRequested, .passwordReset, .mailFailed: clientAddress(environment: environment)
        default: nil
        }
        if case .mailFailed = change {
            write(LOG_ERR, line(for: change, from: address, by: user))
            return
        }
        write(LOG_INFO, line(for: change, from: address, by: user))
    }

    /// Writes the line for `refusal` of a public sign-up, with the client's address when there is one.
    static func refuse(_ refusal: Refusal, environment: [String: String] = IO.environment()) {
        guard !silenced.load(ordering: .sequentiallyConsistent) else { return }
        let (priority, text) = line(for: refusal, from: clientAddress(environment: environment), by: user)
        write(priority, text)
    }

    /// The line for `change` (no newline), made by `user`; `address` only for a public sign-up's account.
    static func line(for change: Change, from address: String?, by user: String) -> String {
        switch change {
        case .created(let email): "account created by \(user): \(shown(email))"
        case .createdPending(let email): "pending account created\(from(address)) by \(user): \(shown(email))"
        case .passwordChanged(let email): "password changed by \(user): \(shown(email))"
        case .disabled(let email): "account disabled by \(user): \(shown(email))"
        case .enabled(let email): "account enabled by \(user): \(shown(email))"
        case .deleted(let email): "account deleted by \(user): \(shown(email))"
        case .hashUpgraded(let email): "password hash upgraded by \(user): \(shown(email))"
        case .imported(let created, let updated, let alreadyThere, let rejected):
            "accounts imported by \(user): \(created) created, \(updated) updated, \(alreadyThere) already there, \(rejected) rejected"
        case .codeSent(let email): "address code mailed\(from(address)) by \(user): \(shown(email))"
        case .addressVerified(let email): "address verified\(from(address)) by \(user): \(shown(email))"
        case .ownerNotified(let email): "sign-up notice mailed to the owner\(from(address)) by \(user): \(shown(email))"
        case .resetRequested(let email): "password reset requested\(from(address)) by \(user): \(shown(email))"
        case .passwordReset(let email): "password reset\(from(address)) by \(user): \(shown(email))"
        case .wrongCode(let email): "wrong address code by \(user): \(shown(email))"
        case .mailFailed(let detail): "mail not sent\(from(address)) by \(user): \(bounded(VisibleText.of(detail), 400))"
        }
    }

    /// The priority and line for `refusal` from `address` (an IP address, or nil), made by `user`.
    static func line(for refusal: Refusal, from address: String?, by user: String) -> (Int32, String) {
        let (priority, detail): (Int32, String) = switch refusal {
        case .rateLimit(let refusal): (LOG_WARNING, limitReached(refusal.scope))
        case .emailTaken(let email): (LOG_NOTICE, "email taken: \(shown(email))")
        case .idleTimeout(let seconds): (LOG_WARNING, "no answer for \(seconds) s")
        case .sessionTimeUp: (LOG_WARNING, "session time is up")
        case .tooManyAttemptsAtOneAnswer: (LOG_WARNING, "too many attempts at one answer")
        case .tooManyAnswers: (LOG_WARNING, "too many answers")
        case .endedEarly(let how): (LOG_NOTICE, "session ended early: \(how)")
        case .wrongCode: (LOG_WARNING, "wrong code")
        case .codeExpired: (LOG_NOTICE, "code expired")
        case .tooManyMails: (LOG_WARNING, "too many mails")
        }
        return (priority, "\(refusing) refused\(from(address)) by \(user): \(detail)")
    }

    /// The words of a limit's line: which count was full.
    private static func limitReached(_ scope: LimitRefusal.Scope) -> String {
        switch scope {
        case .perClient: "client limit reached"
        case .overall: "overall limit reached"
        case .perAccount: "account limit reached"
        }
    }

    /// The client's address for a line: the first word of `SSH_CONNECTION` (else `SSH_CLIENT`)
    /// when it is an IPv4 or IPv6 address as `inet_pton` reads one; nil otherwise, and the line
    /// says no address (fail2ban then has nothing to ban).
    static func clientAddress(environment: [String: String]) -> String? {
        guard let value = environment["SSH_CONNECTION"] ?? environment["SSH_CLIENT"],
              let word = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false).first,
              word.utf8.count <= 64 else { return nil }
        let address = String(word)
        var buffer = [UInt8](repeating: 0, count: 16)
        let isAddress = address.withCString { text in
            inet_pton(AF_INET, text, &buffer) == 1 || inet_pton(AF_INET6, text, &buffer) == 1
        }
        return isAddress ? address : nil
    }

    /// `alice (uid 1000)`: the real user running signup, by name when the password database has one.
    static var user: String {
        let uid = getuid()
        guard let name = FileSystem.accountName(of: uid) else { return "? (uid \(uid))" }
        return "\(bounded(VisibleText.of(name), 64)) (uid \(uid))"
    }

    /// `email` as a line shows it: visible (no control, newline or bidirectional character) and bounded.
    static func shown(_ email: String) -> String {
        bounded(VisibleText.of(email), emailBound)
    }

    // MARK: - The deadline's line, written in a signal handler

    /// Prepares the lines a signal that ends a public session's wait writes (`deadline`: the
    /// idle timeout's or the session's time), and has `TerminalGuard` write them then. They
    /// are made before the wait: the handler only hands prepared bytes to syslog.
    static func prepareDeadline(_ deadline: Refusal, environment: [String: String] = IO.environment()) {
        guard !silenced.load(ordering: .sequentiallyConsistent) else { return }
        let address = clientAddress(environment: environment)
        let user = preparedUser.withLock { cached in
            if cached == nil { cached = AuditLog.user }
            return cached!
        }
        let (priority, text) = line(for: deadline, from: address, by: user)
        PreparedLine.deadline.set(priority, text)
        if !PreparedLine.ended.isSet {
            let (endPriority, endText) = line(for: .endedEarly(how: "hang-up or termination"), from: address, by: user)
            PreparedLine.ended.set(endPriority, endText)
        }
        TerminalGuard.setDeadlineEnding { sig in
            (sig == SIGALRM ? PreparedLine.deadline : PreparedLine.ended).writeToLog()
        }
    }

    /// A line in memory that is never freed, for a signal handler to pass to syslog.
    final class PreparedLine: @unchecked Sendable {
        static let capacity = 1024
        static let deadline = PreparedLine()
        static let ended = PreparedLine()

        private let bytes = UnsafeMutablePointer<CChar>.allocate(capacity: PreparedLine.capacity)
        private let priority = Atomic<Int32>(-1)

        var isSet: Bool { priority.load(ordering: .sequentiallyConsistent) >= 0 }

        func set(_ priority: Int32, _ text: String) {
            self.priority.store(-1, ordering: .sequentiallyConsistent)
            let utf8 = Array(text.utf8.prefix(Self.capacity - 1))
            for (index, byte) in utf8.enumerated() { bytes[index] = CChar(bitPattern: byte) }
            bytes[utf8.count] = 0
            self.priority.store(priority, ordering: .sequentiallyConsistent)
        }

        func writeToLog() {
            let priority = priority.load(ordering: .sequentiallyConsistent)
            guard priority >= 0 else { return }
            AuditLog.open()
            signup_syslog(AuditLog.facilityValue.load(ordering: .sequentiallyConsistent) | priority, bytes)
        }
    }

    // MARK: - The door

    private static let facilityValue = Atomic<Int32>(LOG_AUTHPRIV)
    private static let opened = Atomic<Bool>(false)
    private static let silenced = Atomic<Bool>(false)
    private static let refusingReset = Atomic<Bool>(false)
    private static let preparedUser = Mutex<String?>(nil)

    /// Writes one line; the first one opens the log.
    private static func write(_ priority: Int32, _ line: String) {
        guard !silenced.load(ordering: .sequentiallyConsistent) else { return }
        open()
        bounded(line, PreparedLine.capacity - 1).withCString { signup_syslog(facilityValue.load(ordering: .sequentiallyConsistent) | priority, $0) }
    }

    private static func open() {
        guard !opened.exchange(true, ordering: .sequentiallyConsistent) else { return }
        signup_openlog(facilityValue.load(ordering: .sequentiallyConsistent))
    }

    private static func from(_ address: String?) -> String {
        address.map { " from \($0)" } ?? ""
    }

    /// `text` cut to at most `bytes` UTF-8 bytes on a character boundary, ending in `...` when cut.
    private static func bounded(_ text: String, _ bytes: Int) -> String {
        guard text.utf8.count > bytes else { return text }
        var kept = ""
        for character in text {
            guard kept.utf8.count + character.utf8.count <= bytes - 3 else { break }
            kept.append(character)
        }
        return kept + "..."
    }
}
