import AccountStore
import FoundationEssentials
import Glibc
import SignupCore
import WizardTerminal

/// A sign-up or a reset that proves the address: mails the code when the email is answered,
/// judges each code typed, ends the session on the fifth wrong one or an expired one.
///
/// In public mode an address whose mail must say something else (a sign-up with a taken
/// address, a reset of an account that cannot be reset) gets that mail instead of a code, and
/// the person is asked for a code all the same, which nothing they type can match: the
/// conversation is the one of a free address, word for word (SECURITY.md).
struct ProofFlow {
    /// Exit status when a session ends for its code (wrong 5 times, expired) or a mail that could not be sent.
    static let ended = ExitStatus.limitReached

    let proof = AddressProof()
    let mailer: Mailer
    let from: String
    /// A public session: refusals go to the audit log as a stranger's, and nothing tells a taken address.
    let isPublic: Bool
    /// A reset, not a sign-up.
    var isReset = false
    /// In public mode: where each mail is counted against the limits (the client, the limits, the store).
    var counted: (origin: String, limits: SignupLimits, location: StoreLocation)?

    init(settings: Settings, isPublic: Bool) {
        mailer = Mailer(command: settings.mailCommand.value)
        from = settings.mailFrom.value
        self.isPublic = isPublic
    }

    /// Mails `email` what it should get: a code (kept as the one to match), or the notice of
    /// `kind` (no code matches then). Ends the process when the mail cannot be sent.
    func mail(_ email: String, notice kind: ProofMail.Kind? = nil) {
        guard let recipient = MailMessage.recipient(email) else {
            end(Translation.english("The code could not be mailed to this address. Nothing was saved."),
                detail: "the address has no ASCII form: " + email)
        }
        guard proof.countMail() else {
            end(Translation.english("Too many mails in one session: the session ends. Nothing was saved."), refusal: .tooManyMails)
        }
        if let (origin, limits, location) = counted {
            // Every mail of a public session counts, a code and a notice alike: the limits of the
            // store bound what strangers can make this host mail, whatever the addresses.
            do throws(StoreError) {
                try location.openForWriting().recordMail(origin: origin, at: Date(), limits: limits)
            } catch {
                if case .limitReached(let reason) = error { PublicSession.end(reason, refusal: .rateLimit(reason: reason)) }
                end(Translation.english("The code could not be mailed; try again later. Nothing was saved."), detail: error.description)
            }
        }
        let message: MailMessage
        let code = AddressProof.newCode()
        do throws(StoreError) {
            // A notice costs the same hashing as a code: the time does not tell them apart.
            if kind != nil { try proof.sendNothing(for: email) } else { try proof.expect(code, for: email) }
        } catch {
            end(Translation.english("The code could not be mailed. Nothing was saved."), detail: error.description)
        }
        if let kind {
            message = ProofMail.message(kind, to: recipient, from: from)
        } else {
            message = ProofMail.message(isReset ? .resetCode(code) : .signupCode(code), to: recipient, from: from)
        }
        do throws(Mailer.Failure) {
            try mailer.send(message)
        } catch {
            end(Translation.english("The code could not be mailed; try again later. Nothing was saved."), detail: error.detail)
        }
        if isReset {
            AuditLog.record(kind == nil ? .resetCodeMailed(email: email) : .resetRefusalMailed(email: email))
        } else {
            AuditLog.record(kind == nil ? .codeSent(email: email) : .ownerNotified(email: email))
        }
    }

    /// Mails the owner of `email` that someone tried to sign up with it, when nothing may be said
    /// to the person at the terminal: a failure goes to the audit log only.
    func notify(_ email: String) {
        guard let recipient = MailMessage.recipient(email) else { return }
        do throws(Mailer.Failure) {
            try mailer.send(ProofMail.message(.alreadyRegistered, to: recipient, from: from))
            AuditLog.record(.ownerNotified(email: email))
        } catch {
            AuditLog.record(.mailFailed(detail: error.detail))
        }
    }

    /// Judges one typed answer to the code field: the audit log hears a match once, each wrong
    /// code, and the end of the session on the fifth wrong one or an expired one.
    func judge(_ answer: String) {
        // No mail yet (a script whose email the rules refused): the answer fails the code's rule, uncounted.
        guard let email = proof.email else { return }
        switch proof.attempt(answer) {
        case .matched:
            AuditLog.record(.addressVerified(email: email))
        case .wrong(let left):
            if isPublic { AuditLog.refuse(.wrongCode) } else { AuditLog.record(.wrongCode(email: email)) }
            if left == 0 {
                end(Translation.english("Too many wrong codes: the session ends. Nothing was saved."), refusal: nil)
            }
        case .expired:
            end(Translation.english("The code expired: start again. Nothing was saved."), refusal: .codeExpired)
        }
    }

    /// Ends the run: the terminal restored, `line` (translated) on standard error, exit 75.
    func end(_ line: String, refusal: AuditLog.Refusal?) -> Never {
        if isPublic, let refusal { AuditLog.refuse(refusal) }
        TerminalGuard.restore()
        IO.write("\n" + Translation.signup(line) + "\n", to: 2)
        Signup.endEarly(Self.ended)
    }

    /// Ends the run for a mail that was not handed over: `detail` only to the audit log.
    func end(_ line: String, detail: String) -> Never {
        AuditLog.record(.mailFailed(detail: detail))
        end(line, refusal: nil)
    }
}
