import AccountStore
import CSystem
import Glibc
import SignupCore
import Synchronization
import WizardTerminal

/// The audit log: one line to the system logger for every change to an account and every refusal of
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
/// Nothing is done before the first line: the socket to the logger opens when one is written,
/// and a system with no logger (no `/dev/log`) loses the line silently. A logger that does not
/// take a line within ``LoggerSocket/bound`` loses it too, with a note on standard error: the
/// change is stored, and the command ends as it would have. This file and ``LoggerSocket`` are
/// the only door to the logger; this file the only caller of `inet_pton`.
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
        /// `signup reset`: a code was handed over for the address (an active account's).
        case resetCodeMailed(email: String)
        /// `signup reset`: the address was mailed that it cannot be reset (no account, or one not active).
        case resetRefusalMailed(email: String)
        /// `signup reset` stored a new password.
        case passwordReset(email: String)
        /// A code typed back outside public mode that is not the one mailed (public mode: ``Refusal/wrongCode``).
        case wrongCode(email: String)
        /// The mail command failed or overran: no mail, nothing stored. With the client's address when there is one, as a code mailed has it.
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

    /// The facility of every line from now on; set it at start-up (a configuration's `syslog.facility`).
    static var facility: SyslogFacility {
        get { facilityValue.load(ordering: .sequentiallyConsistent) == LOG_AUTH ? .auth : .authpriv }
        set { facilityValue.store(newValue.code, ordering: .sequentiallyConsistent) }
    }

    /// The most bytes of an email a line holds, after `VisibleText.of`; a longer one ends in `...`.
    static let emailBound = 254

    /// Writes the line for `change`, as every command but the sign-up flow (which has its ``AuditSink``) does.
    static func record(_ change: Change, environment: [String: String] = IO.environment()) {
        AuditSink.live(environment: environment).record(change)
    }

    /// Whether `change`'s line names the client's address in a public session (a public sign-up's
    /// or reset's steps; ``AuditSink/namesClient``).
    static func namesClient(_ change: Change) -> Bool {
        switch change {
        case .createdPending, .codeSent, .addressVerified, .ownerNotified, .resetCodeMailed, .resetRefusalMailed, .passwordReset, .mailFailed: true
        default: false
        }
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
        case .resetCodeMailed(let email): "password reset code mailed\(from(address)) by \(user): \(shown(email))"
        case .resetRefusalMailed(let email): "password reset refusal mailed\(from(address)) by \(user): \(shown(email))"
        case .passwordReset(let email): "password reset\(from(address)) by \(user): \(shown(email))"
        case .wrongCode(let email): "wrong address code by \(user): \(shown(email))"
        case .mailFailed(let detail): "mail not sent\(from(address)) by \(user): \(bounded(VisibleText.of(detail), 400))"
        }
    }

    /// The priority and line for `refusal` from `address` (an IP address, or nil), made by `user`.
    /// `refusing` names whose session it ends: a public sign-up's, or a public reset's (`public password reset`).
    static func line(for refusal: Refusal, from address: String?, by user: String, refusing: String = "public sign-up") -> (Int32, String) {
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
    static var user: String { user(environment: IO.environment()) }

    /// `alice (uid 1000)` for the real user, named by the login it came in as when the password
    /// database gives several names one uid (`new` and `reset` of docs/public-signup.md): the
    /// environment's `LOGNAME` (which sshd, login and cron set) when that name has this uid, else
    /// the database's first name for it. A `LOGNAME` of another uid, or of none, changes nothing:
    /// whoever sets it can choose among the names of their own uid only.
    static func user(environment: [String: String], uid: uid_t = getuid()) -> String {
        let login = environment["LOGNAME"].flatMap { uidOf($0) == uid ? $0 : nil }
        guard let name = login ?? FileSystem.accountName(of: uid) else { return "? (uid \(uid))" }
        return "\(bounded(VisibleText.of(name), 64)) (uid \(uid))"
    }

    /// The uid the password database gives `name`; nil when it has none. The corresponding C function is `getpwnam_r`.
    private static func uidOf(_ name: String) -> uid_t? {
        guard !name.isEmpty, name.utf8.count <= 256, !name.utf8.contains(0) else { return nil }
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return entry.pw_uid
    }

    /// `email` as a line shows it: visible (no control, newline or bidirectional character) and bounded.
    static func shown(_ email: String) -> String {
        bounded(VisibleText.of(email), emailBound)
    }

    // MARK: - The deadline's line, written in a signal handler

    /// Prepares the lines a signal that ends a public session's wait writes (`deadline`: the
    /// idle timeout's or the session's time), and has `TerminalGuard` write them then. They
    /// are made before the wait: the handler only stamps the time and hands prepared bytes to
    /// the logger (``LoggerSocket/sendPrepared(_:count:)``).
    static func prepareDeadline(_ deadline: Refusal, sink: AuditSink) {
        guard !sink.silenced else { return }
        let address = clientAddress(environment: sink.environment)
        let user = preparedUser.withLock { cached in
            if cached == nil { cached = AuditLog.user }
            return cached!
        }
        let (priority, text) = line(for: deadline, from: address, by: user, refusing: sink.refusing)
        PreparedLine.deadline.set(priority, text)
        if !PreparedLine.ended.isSet {
            let (endPriority, endText) = line(for: .endedEarly(how: "hang-up or termination"), from: address, by: user, refusing: sink.refusing)
            PreparedLine.ended.set(endPriority, endText)
        }
        TerminalGuard.setDeadlineEnding { sig in
            (sig == SIGALRM ? PreparedLine.deadline : PreparedLine.ended).writeToLog()
        }
    }

    /// A whole message in memory that is never freed, for a signal handler to send: made when
    /// it is set, but for its time, which the handler writes.
    final class PreparedLine: @unchecked Sendable {
        static let capacity = AuditLog.lineBound + 64
        static let deadline = PreparedLine()
        static let ended = PreparedLine()

        private let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: PreparedLine.capacity)
        /// The message's length; -1 while none is set.
        private let count = Atomic<Int>(-1)
        /// Where the time goes in it, and the local time's offset from UTC when it was set.
        private let timeAt = Atomic<Int>(0)
        private let utcOffset = Atomic<Int>(0)

        var isSet: Bool { count.load(ordering: .sequentiallyConsistent) >= 0 }

        /// Makes the message of `text` at `priority` (a level: the facility is the log's).
        func set(_ priority: Int32, _ text: String) {
            count.store(-1, ordering: .sequentiallyConsistent)
            let now = time(nil)
            let (message, timeAt) = AuditLog.message(AuditLog.facilityValue.load(ordering: .sequentiallyConsistent) | priority, line: text, at: now)
            let kept = min(message.count, Self.capacity)
            message.withUnsafeBufferPointer { bytes.update(from: $0.baseAddress!, count: kept) }
            self.timeAt.store(timeAt, ordering: .sequentiallyConsistent)
            utcOffset.store(AuditLog.utcOffset(at: now), ordering: .sequentiallyConsistent)
            count.store(kept, ordering: .sequentiallyConsistent)
        }

        /// Stamps the time and sends the message; async-signal-safe.
        func writeToLog() {
            let count = self.count.load(ordering: .sequentiallyConsistent)
            guard count >= 0 else { return }
            AuditLog.writeTimestamp(time(nil) + utcOffset.load(ordering: .sequentiallyConsistent), to: bytes + timeAt.load(ordering: .sequentiallyConsistent))
            LoggerSocket.system.sendPrepared(bytes, count: count)
        }
    }

    // MARK: - The door

    /// The most bytes of a line, after signup's own words and the email's bound.
    static let lineBound = 1023

    private static let facilityValue = Atomic<Int32>(LOG_AUTHPRIV)
    private static let preparedUser = Mutex<String?>(nil)

    /// Writes one line: hands it to the logger (``LoggerSocket``), waiting at most its bound. A
    /// line it does not take is lost with a note on standard error, or without one `quietly`.
    static func deliver(_ priority: Int32, _ line: String, quietly: Bool) {
        let (message, _) = message(facilityValue.load(ordering: .sequentiallyConsistent) | priority, line: line, at: time(nil))
        let outcome = LoggerSocket.system.deliver(message)
        // A held signal that came while the line waited (`interrupted`) ends the wait and stays
        // held: the change is stored, and as after any commit it is reported with its status.
        guard outcome == .notTaken || outcome == .interrupted else { return }
        if !quietly {
            IO.write("warning: " + Translation.signup(Translation.english("the system logger did not take the audit log's line in time: the line is lost")) + "\n", to: 2)
        }
    }

    /// The message syslog(3) would send for `line` (cut to ``lineBound``) at `priority` (a
    /// facility or-ed with a level), sent at `time`: `<PRI>Mmm dd hh:mm:ss signup[PID]: LINE`;
    /// and where its time starts.
    static func message(_ priority: Int32, line: String, at time: time_t) -> (bytes: [UInt8], timeAt: Int) {
        var bytes = Array("<\(priority)>".utf8)
        let timeAt = bytes.count
        bytes += [UInt8](repeating: UInt8(ascii: " "), count: 15)
        bytes.withUnsafeMutableBufferPointer { writeTimestamp(time + utcOffset(at: time), to: $0.baseAddress! + timeAt) }
        bytes += Array(" signup[\(getpid())]: ".utf8)
        bytes += Array(bounded(line, lineBound).utf8)
        return (bytes, timeAt)
    }

    /// Local time's offset from UTC at `time`, in seconds. The corresponding C function is `localtime_r`.
    static func utcOffset(at time: time_t) -> Int {
        var time = time
        var local = tm()
        guard localtime_r(&time, &local) != nil else { return 0 }
        return local.tm_gmtoff
    }

    /// Writes `Mmm dd hh:mm:ss` (15 bytes; the day padded with a space, as syslog(3) writes it) for
    /// `seconds` since the epoch, already moved to local time. Async-signal-safe: no allocation, no lock.
    static func writeTimestamp(_ seconds: Int, to out: UnsafeMutablePointer<UInt8>) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let second = seconds - days * 86_400
        // The civil date of a day count (Howard Hinnant's days_from_civil, inverted).
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 2 : monthFromMarch - 10  // 0 is January
        let names: StaticString = "JanFebMarAprMayJunJulAugSepOctNovDec"
        for index in 0..<3 { out[index] = names.utf8Start[month * 3 + index] }
        func digits(_ value: Int, at offset: Int, pad: UInt8) {
            out[offset] = value < 10 ? pad : UInt8(ascii: "0") + UInt8(value / 10)
            out[offset + 1] = UInt8(ascii: "0") + UInt8(value % 10)
        }
        out[3] = UInt8(ascii: " ")
        digits(day, at: 4, pad: UInt8(ascii: " "))
        out[6] = UInt8(ascii: " ")
        digits(second / 3600, at: 7, pad: UInt8(ascii: "0"))
        out[9] = UInt8(ascii: ":")
        digits(second / 60 % 60, at: 10, pad: UInt8(ascii: "0"))
        out[12] = UInt8(ascii: ":")
        digits(second % 60, at: 13, pad: UInt8(ascii: "0"))
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
