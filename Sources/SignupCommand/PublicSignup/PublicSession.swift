import AccountStore
import Glibc
import SignupCore
import WizardTerminal

/// The limits of `signup --public`, for a stranger's session (an SSH forced command): every wait
/// and every count that the person controls has an end, and reaching it ends the run with one line,
/// exit 75, nothing stored.
///
/// The deadline is armed only while an answer is awaited, never while the password is hashed or
/// the account written, so a limit never cuts a write in half.
final class PublicSession {
    /// Exit status when a limit ends the session (EX_TEMPFAIL: try again later).
    static let limitReached = ExitStatus.limitReached
    /// Answers to one field (a password asked again after its errors counts each time).
    static let attemptsPerField = 5
    /// Prompts of any kind in one session: fields, the review, the edit and discard questions.
    static let promptsPerSession = 25

    let idleSeconds: Int
    let sessionSeconds: Int
    /// How many accounts strangers may create, counted in the store.
    let limits: SignupLimits
    /// Where its refusals and its deadline's lines go: the run's audit sink.
    var audit = AuditSink.live(environment: IO.environment())
    /// Arms the timer of one wait (seconds, the line that ends it, the status), and disarms it.
    var armDeadline: @Sendable (Int, String, Int32) -> Void = { TerminalGuard.armDeadline(seconds: $0, conversation: $1, status: $2) }
    var disarmDeadline: @Sendable () -> Void = { TerminalGuard.disarmDeadline() }
    private let started = ContinuousClock.now
    private var attempts: [String: Int] = [:]
    private var prompts = 0

    init(idleSeconds: Int, sessionSeconds: Int, limits: SignupLimits = SignupLimits()) {
        self.idleSeconds = idleSeconds
        self.sessionSeconds = sessionSeconds
        self.limits = limits
    }

    /// The client's address: the first word of `SSH_CONNECTION` (else `SSH_CLIENT`), as sshd sets
    /// it for a forced command (the client cannot: sshd sets these after `AcceptEnv`); `local`
    /// without either. At most 64 bytes of letters, digits, `.` and `:` (an IPv4 or IPv6
    /// address); anything else counts as `unknown`, one origin for every such client.
    static func clientAddress(environment: [String: String] = IO.environment()) -> String {
        guard let value = environment["SSH_CONNECTION"] ?? environment["SSH_CLIENT"] else { return "local" }
        let address = value.split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
        let allowed = address.utf8.allSatisfy { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: ":") || (0x30...0x39).contains($0)
            || (0x41...0x46).contains($0) || (0x61...0x66).contains($0) }
        return !address.isEmpty && address.utf8.count <= 64 && allowed ? address : "unknown"
    }

    /// The origin the limits count a client by: its address (``clientAddress(environment:)``),
    /// an IPv6 address cut to its /64 (`2001:db8:1:2::/64`), since one subscriber or one
    /// server is given a whole /64 and picks any address in it. An IPv4-mapped IPv6 address
    /// (`::ffff:192.0.2.1`) counts as its IPv4 address.
    static func origin(environment: [String: String] = IO.environment()) -> String {
        origin(ofAddress: clientAddress(environment: environment))
    }

    /// ``origin(environment:)`` of one address; anything that is not an IPv6 address is kept as it is.
    static func origin(ofAddress address: String) -> String {
        guard address.contains(":"), let groups = ipv6Groups(address) else { return address }
        if groups[0..<5].allSatisfy({ $0 == 0 }) && groups[5] == 0xFFFF {
            return "\(groups[6] >> 8).\(groups[6] & 0xFF).\(groups[7] >> 8).\(groups[7] & 0xFF)"
        }
        return groups[0..<4].map { String($0, radix: 16) }.joined(separator: ":") + "::/64"
    }

    /// The eight 16-bit groups of an IPv6 address in text (RFC 4291 2.2: `::` once, a dotted IPv4
    /// address as its last 32 bits), or nil when it is not one.
    static func ipv6Groups(_ text: String) -> [UInt16]? {
        func groups(_ part: Substring) -> [UInt16]? {
            guard !part.isEmpty else { return [] }
            var out: [UInt16] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains(".") {
                    let bytes = piece.split(separator: ".", omittingEmptySubsequences: false).map { UInt8($0) }
                    guard bytes.count == 4, bytes.allSatisfy({ $0 != nil }) else { return nil }
                    out += [UInt16(bytes[0]!) << 8 | UInt16(bytes[1]!), UInt16(bytes[2]!) << 8 | UInt16(bytes[3]!)]
                } else {
                    guard (1...4).contains(piece.count), let value = UInt16(piece, radix: 16) else { return nil }
                    out.append(value)
                }
            }
            return out
        }
        let halves = text.components(separatedBy: "::")
        switch halves.count {
        case 1:
            guard let all = groups(Substring(text)), all.count == 8 else { return nil }
            return all
        case 2:
            guard let head = groups(Substring(halves[0])), let tail = groups(Substring(halves[1])), head.count + tail.count <= 7 else { return nil }
            return head + [UInt16](repeating: 0, count: 8 - head.count - tail.count) + tail
        default:
            return nil
        }
    }

    /// Reads one answer through `read`, within the session's limits.
    func read(_ prompt: Prompt, _ read: () -> WizardInput<CreatedAccount>) -> WizardInput<CreatedAccount> {
        prompts += 1
        if case .field(let name) = prompt.question {
            attempts[name, default: 0] += 1
            if attempts[name]! > Self.attemptsPerField {
                Self.end(Translation.english("Too many attempts at one answer: the session ends. Nothing was saved."), refusal: .tooManyAttemptsAtOneAnswer, audit: audit)
            }
        }
        if prompts > Self.promptsPerSession { Self.end(Translation.english("Too many answers: the session ends. Nothing was saved."), refusal: .tooManyAnswers, audit: audit) }
        let remaining = Duration.seconds(sessionSeconds) - started.duration(to: .now)
        if remaining <= .zero { Self.end(Self.timeIsUp, refusal: .sessionTimeUp, audit: audit) }
        // The timer counts whole seconds: rounded up, so that the session never ends before its
        // limit (in whole seconds of elapsed time it ended up to a second early).
        let left = Int(remaining.components.seconds) + (remaining.components.attoseconds > 0 ? 1 : 0)
        // The line a deadline writes is made now: when it comes, a signal handler only hands it on.
        AuditLog.prepareDeadline(idleSeconds < left ? .idleTimeout(seconds: idleSeconds) : .sessionTimeUp, sink: audit)
        if idleSeconds < left {
            armDeadline(idleSeconds, "\n" + Translation.signup(Translation.english("No answer for {seconds} s: the session ends. Nothing was saved.", ["seconds": "\(idleSeconds)"])) + "\n",
                        Self.limitReached)
        } else {
            armDeadline(left, "\n" + Translation.signup(Self.timeIsUp) + "\n", Self.limitReached)
        }
        defer { disarmDeadline() }
        return read()
    }

    private static var timeIsUp: String { Translation.english("The session's time is up. Nothing was saved.") }

    /// Ends the session for a limit: the terminal restored, `line` (translated) on standard
    /// error, `refusal` in the run's audit log, exit 75 with nothing stored.
    static func end(_ line: String, refusal: AuditLog.Refusal, audit: AuditSink) -> Never {
        audit.refuse(refusal)
        TerminalGuard.restore()
        IO.write("\n" + Translation.signup(line) + "\n", to: 2)
        Signup.endEarly(Self.limitReached)
    }
}
