import AccountStore
import Glibc
import SignupCore
import Synchronization
import WizardTerminal

/// Proof that a person reads the mail of an address: a one-time code mailed to it, typed back.
///
/// The code is 6 decimal digits from the system's random source (getrandom), held only as an
/// Argon2id hash with the smallest costs (libargon2 compares in constant time), in this
/// process's memory for this one session: the account is written only once the code matched,
/// so nothing about a code is ever stored. It expires ``lifetimeSeconds`` after it was sent;
/// ``attempts`` wrong codes end the session. A new code (the email changed) replaces the old.
///
/// For an address that must not learn anything (a public sign-up of a taken address, a reset of
/// an account that cannot be reset) ``sendNothing()`` keeps a state no code matches, while the
/// person is asked for one as usual.
final class AddressProof: Sendable {
    /// The code's life: from its sending.
    static let lifetimeSeconds = 600
    /// Wrong codes that end the session.
    static let attempts = 5
    /// The code field's key.
    static let field = FieldKey<String>("code")

    private struct State {
        var hash: PasswordHash?
        var sentAt = 0
        /// The email the code was sent for (as typed).
        var email = ""
        var wrong = 0
        /// The answer that matched, kept so that a later check (the review, the submit) of the same answer passes after expiry.
        var matched: String?
        /// The answer (its digits) the account's bound of codes kept from being checked: it is
        /// hashed and compared as any other, for the time, and never matches.
        var unchecked: String?
    }

    private let state = Mutex(State())
    private let mails = Mutex(0)

    /// Mails one session may send (the email answered again, changed at the review): a stranger
    /// cannot make one session a mail cannon.
    static let mailsPerSession = 3

    /// Counts one more mail of this session; false when it would be one too many.
    func countMail() -> Bool {
        mails.withLock { count in
            count += 1
            return count <= Self.mailsPerSession
        }
    }
    /// The clock, in seconds: `IO.monotonicSeconds` (a test gives another).
    private let now: @Sendable () -> Int

    init(now: @escaping @Sendable () -> Int = { IO.monotonicSeconds() }) {
        self.now = now
    }

    /// A new random 6-digit code.
    static func newCode() -> String {
        var generator = SystemRandomNumberGenerator()
        let number = UInt32.random(in: 0..<1_000_000, using: &generator)
        let digits = String(number)
        return String(repeating: "0", count: 6 - digits.count) + digits
    }

    /// Keeps `code`'s hash as the one to match for `email`, from now on; the wrong count starts again.
    func expect(_ code: String, for email: String) throws(StoreError) {
        let hash = try PasswordHasher.hash(Secret(code), costs: .minimum)
        let time = now()
        state.withLock { $0 = State(hash: hash, sentAt: time, email: email) }
    }

    /// No code will match, as for a code sent: for an address that gets a notice instead. A hash
    /// is made and checked all the same, of a random text no answer can be (not 6 digits), so
    /// that the time spent is a code's.
    func sendNothing(for email: String) throws(StoreError) {
        var generator = SystemRandomNumberGenerator()
        let never = "x" + String(UInt64.random(in: .min ... .max, using: &generator), radix: 36)
        let hash = try PasswordHasher.hash(Secret(never), costs: .minimum)
        let time = now()
        state.withLock { $0 = State(hash: hash, sentAt: time, email: email) }
    }

    /// The email the current code is for, nil before any.
    var email: String? { state.withLock { $0.sentAt == 0 && $0.hash == nil && $0.email.isEmpty ? nil : $0.email } }

    /// Whether `answer` is the code (blanks and spaces between digits ignored), within its life.
    /// Does not count: the rule of the code field asks this as often as the form is checked.
    func accepts(_ answer: String) -> Bool {
        let typed = Self.digits(of: answer)
        return state.withLock { state in
            if state.matched == typed { return true }
            guard let hash = state.hash, !Self.isExpired(sentAt: state.sentAt, now: now()) else { return false }
            // Only six digits can match: anything else is not hashed at all.
            guard typed.count == 6 else { return false }
            if PasswordHasher.verify(Secret(typed), against: hash), state.unchecked != typed {
                state.matched = typed
                return true
            }
            return false
        }
    }

    /// Whether the code typed as `answer` may be checked: the store's bound of codes for the
    /// account says so before each answer (``ProofFlow/judge(_:)``). An answer that may not is
    /// judged, hashed and compared as any other, and never matches.
    func mayCheck(_ answer: String, _ allowed: Bool) {
        let typed = Self.digits(of: answer)
        state.withLock { $0.unchecked = allowed ? nil : typed }
    }

    /// What one typed answer means: counted.
    enum Verdict: Equatable {
        case matched
        case wrong(left: Int)
        case expired
    }

    /// Judges a person's answer and counts a wrong one.
    func attempt(_ answer: String) -> Verdict {
        if accepts(answer) { return .matched }
        return state.withLock { state in
            if Self.isExpired(sentAt: state.sentAt, now: now()) { return .expired }
            state.wrong += 1
            return .wrong(left: max(0, Self.attempts - state.wrong))
        }
    }

    /// Whether a code sent at `sentAt` (seconds) is past its life at `now`.
    static func isExpired(sentAt: Int, now: Int) -> Bool {
        now - sentAt >= lifetimeSeconds
    }

    /// The answer's digits: spaces, tabs and hyphens people put between groups are left out.
    static func digits(of answer: String) -> String {
        String(answer.unicodeScalars.filter { $0 != " " && $0 != "\t" && $0 != "-" }.map(Character.init))
    }

    /// The code field, asked right after the email: not shown at the review (it depends on the
    /// email, and a changed email sends a new code and asks it again), never kept for Up to recall.
    /// A secret: its answer is never shown, at a terminal or in a script's conversation. A script
    /// that gives the three lines of a sign-up without proof in mind has its password's line
    /// read here, and that line must not be echoed as an answer.
    func field() -> Field {
        var field = Field(
            Self.field, label: Translation.english("Code from the email"),
            rules: [
                .required(message: Translation.english("Enter the code that was mailed to you")),
                .custom("wrong", message: Translation.english("This is not the code that was mailed, or it expired")) { [self] value, _ in accepts(value) },
            ],
            isSecret: true,
            dependsOn: [SignupForm.email],
            hint: Translation.english("A code was mailed to the address. It is valid for 10 minutes.")
        )
        field.isRemembered = false
        return field
    }

    /// `form` with the code field right after its email.
    func form(around form: Form) -> Form {
        var fields = form.fields
        let at = (fields.firstIndex { $0.name == SignupForm.email.name } ?? -1) + 1
        fields.insert(field(), at: at)
        return Form(fields: fields)
    }
}

/// The mails signup sends, in the reader's language (the session's locale).
enum ProofMail {
    /// What a mail is for.
    enum Kind {
        /// A sign-up's code.
        case signupCode(String)
        /// A sign-up with an address that has an account: its owner is told, no code.
        case alreadyRegistered
        /// A reset's code, for an active account.
        case resetCode(String)
        /// A reset asked for an address with no account that can be reset (none, disabled, pending).
        case resetImpossible
    }

    /// The message of `kind` to `recipient` (its ASCII form) from `from`.
    static func message(_ kind: Kind, to recipient: String, from: String, host: String = MailMessage.hostName) -> MailMessage {
        let t = Translation.signup
        let expiry = t(Translation.english("The code is valid for 10 minutes. Nobody from {host} will ask you for it.", ["host": host]))
        switch kind {
        case .signupCode(let code):
            return MailMessage(
                from: from, to: recipient,
                subject: t(Translation.english("Your sign-up code for {host}", ["host": host])),
                body: t(Translation.english("Someone, probably you, is signing up on {host} with this address. To go on, type this code:", ["host": host]))
                    + "\n\n    \(code)\n\n" + expiry + "\n\n"
                    + t(Translation.english("If it was not you, ignore this mail: no account is made without the code.")) + "\n")
        case .alreadyRegistered:
            return MailMessage(
                from: from, to: recipient,
                subject: t(Translation.english("Someone tried to sign up on {host} with your address", ["host": host])),
                body: t(Translation.english("Someone tried to sign up on {host} with this address, which already has an account there. No account was made and nothing was changed.", ["host": host]))
                    + "\n\n" + t(Translation.english("If it was you and you forgot your password, reset it (signup reset). If it was not you, ignore this mail.")) + "\n")
        case .resetCode(let code):
            return MailMessage(
                from: from, to: recipient,
                subject: t(Translation.english("Your password reset code for {host}", ["host": host])),
                body: t(Translation.english("Someone, probably you, asked to reset the password of this address's account on {host}. To choose a new password, type this code:", ["host": host]))
                    + "\n\n    \(code)\n\n" + expiry + "\n\n"
                    + t(Translation.english("If it was not you, ignore this mail: your password stays as it is.")) + "\n")
        case .resetImpossible:
            return MailMessage(
                from: from, to: recipient,
                subject: t(Translation.english("Password reset on {host}", ["host": host])),
                body: t(Translation.english("Someone asked to reset the password of this address's account on {host}, but this address has no account there that can be reset (none, or one that is disabled or waiting for an administrator). Nothing was changed.", ["host": host]))
                    + "\n\n" + t(Translation.english("If it was not you, ignore this mail.")) + "\n")
        }
    }
}
