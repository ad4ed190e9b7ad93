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
    /// The mail command's words (`mail.command`).
    let mailCommand: [String]
    let from: String
    /// The mail command, the audit log and the clock of the run.
    let environment: CommandEnvironment
    /// A public session: refusals go to the audit log as a stranger's, and nothing tells a taken address.
    let isPublic: Bool
    /// A reset, not a sign-up.
    var isReset = false
    /// In public mode: where each mail and each code is counted against the limits (the client's
    /// origin as ``PublicSession/origin(environment:)`` gives it, the limits, the store).
    var counted: (origin: String, limits: SignupLimits, location: StoreLocation)?

    /// The budget this flow spends: a sign-up's or a reset's.
    var purpose: LimitPurpose { isReset ? .reset : .signUp }

    init(settings: Settings, isPublic: Bool, environment: CommandEnvironment) {
        mailCommand = settings.mailCommand.value
        self.environment = environment
        from = settings.mailFrom.value
        self.isPublic = isPublic
    }

    /// Mails `email` what it should get: a code (kept as the one to match), or the notice of
    /// `kind` (no code matches then). `email` is the account's as stored when one has its key: mail
    /// about an account goes there, never to the spelling typed. Ends the process when the mail
    /// cannot be sent.
    ///
    /// In public mode the mail is counted first; when the account had its mails of this purpose
    /// (the bound per account), nothing is sent and no code will match, and the stranger hears
    /// what they hear for any other address.
    func mail(_ email: String, notice kind: ProofMail.Kind? = nil) {
        guard let recipient = MailMessage.recipient(email) else {
            end(Translation.english("The code could not be mailed to this address. Nothing was saved."),
                detail: "the address has no ASCII form: " + email)
        }
        guard proof.countMail() else {
            end(Translation.english("Too many mails in one session: the session ends. Nothing was saved."), refusal: .tooManyMails)
        }
        var withheld: LimitRefusal?
        if let (origin, limits, location) = counted {
            // Every mail of a public session counts, a code and a notice alike: the limits of the
            // store bound what strangers can make this host mail, whatever the addresses.
            do throws(StoreError) {
                withheld = try location.openForWriting().recordMail(origin: origin, purpose: purpose, toEmail: email, at: environment.now(), limits: limits)
            } catch {
                if case .limitReached(let refusal) = error { PublicSession.end(refusal.message, refusal: .rateLimit(refusal), audit: environment.audit) }
                end(Translation.english("The code could not be mailed; try again later. Nothing was saved."), detail: error.description)
            }
        }
        let code = AddressProof.newCode()
        do throws(StoreError) {
            // A notice, or a mail the account's bound withholds, costs the same hashing as a code:
            // the time does not tell them apart.
            if kind != nil || withheld != nil { try proof.sendNothing(for: email) } else { try proof.expect(code, for: email) }
        } catch {
            end(Translation.english("The code could not be mailed. Nothing was saved."), detail: error.description)
        }
        if let withheld {
            environment.audit.refuse(.rateLimit(withheld))
            return
        }
        let message = ProofMail.message(kind ?? (isReset ? .resetCode(code) : .signupCode(code)), to: recipient, from: from)
        do throws(Mailer.Failure) {
            try environment.sendMail(message, mailCommand)
        } catch {
            end(Translation.english("The code could not be mailed; try again later. Nothing was saved."), detail: error.detail)
        }
        if isReset {
            environment.audit.record(kind == nil ? .resetCodeMailed(email: email) : .resetRefusalMailed(email: email))
        } else {
            environment.audit.record(kind == nil ? .codeSent(email: email) : .ownerNotified(email: email))
        }
    }

    /// Mails the owner of `email` (the account's email as stored) that someone tried to sign up
    /// with it, when nothing may be said to the person at the terminal: counted in public mode as
    /// every mail is, but a limit or a failure goes to the audit log only (ending the session
    /// then would tell the stranger that the address has an account).
    func notify(_ email: String) {
        guard let recipient = MailMessage.recipient(email) else { return }
        if let (origin, limits, location) = counted {
            do throws(StoreError) {
                if let withheld = try location.openForWriting().recordMail(origin: origin, purpose: purpose, toEmail: email, at: environment.now(), limits: limits) {
                    environment.audit.refuse(.rateLimit(withheld))
                    return
                }
            } catch {
                if case .limitReached(let refusal) = error { environment.audit.refuse(.rateLimit(refusal)) } else { environment.audit.record(.mailFailed(detail: error.description)) }
                return
            }
        }
        do throws(Mailer.Failure) {
            try environment.sendMail(ProofMail.message(.alreadyRegistered, to: recipient, from: from), mailCommand)
            environment.audit.record(.ownerNotified(email: email))
        } catch {
            environment.audit.record(.mailFailed(detail: error.detail))
        }
    }

    /// The email of the account with `email`'s key as stored at `location`, or nil when there is
    /// none (or the store cannot say: the commit reports a store that is unavailable).
    static func storedEmail(_ email: String, at location: StoreLocation) -> String? {
        do throws(StoreError) {
            return try location.openExisting()?.storedEmail(forEmail: email)
        } catch {
            return nil
        }
    }

    /// Judges one typed answer to the code field: the audit log hears a match once, each wrong
    /// code, and the end of the session on the fifth wrong one or an expired one.
    func judge(_ answer: String) {
        // No mail yet (a script whose email the rules refused): the answer fails the code's rule, uncounted.
        guard let email = proof.email else { return }
        if let (_, limits, location) = counted, AddressProof.digits(of: answer).count == 6 {
            // Only six digits can match: each such answer is counted for the account, in the store,
            // whichever client types it; past the bound it is judged as any other and never matches.
            do throws(StoreError) {
                let refusal = try location.openForWriting().admitCode(forEmail: email, purpose: purpose, at: environment.now(), limits: limits)
                proof.mayCheck(answer, refusal == nil)
                if let refusal { environment.audit.refuse(.rateLimit(refusal)) }
            } catch {
                // A code that cannot be counted is not checked (the commit reports a store that is unavailable).
                proof.mayCheck(answer, false)
            }
        }
        switch proof.attempt(answer) {
        case .matched:
            environment.audit.record(.addressVerified(email: email))
        case .wrong(let left):
            if isPublic { environment.audit.refuse(.wrongCode) } else { environment.audit.record(.wrongCode(email: email)) }
            if left == 0 {
                end(Translation.english("Too many wrong codes: the session ends. Nothing was saved."), refusal: nil)
            }
        case .expired:
            end(Translation.english("The code expired: start again. Nothing was saved."), refusal: .codeExpired)
        }
    }

    /// Ends the run: the terminal restored, `line` (translated) on standard error, exit 75.
    func end(_ line: String, refusal: AuditLog.Refusal?) -> Never {
        if isPublic, let refusal { environment.audit.refuse(refusal) }
        TerminalGuard.restore()
        environment.write("\n" + Translation.signup(line) + "\n", 2)
        Signup.endEarly(Self.ended)
    }

    /// Ends the run for a mail that was not handed over: `detail` only to the audit log.
    func end(_ line: String, detail: String) -> Never {
        environment.audit.record(.mailFailed(detail: detail))
        end(line, refusal: nil)
    }
}
