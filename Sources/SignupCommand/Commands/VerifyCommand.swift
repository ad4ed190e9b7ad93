import AccountStore
import ArgumentParser
import SignupCore
import WizardTerminal

/// `signup verify EMAIL`: whether a password matches, in the same time whether or not the email exists.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: About.english("Check a password: exit 0 if it matches the account's, 1 if not."),
        discussion: About.english("""
            The password is read from a masked prompt at a terminal, else from the first line of standard input \
            (with the terminal's echo off when standard input is one and standard error is not). A line that is \
            not UTF-8, holds a NUL or is longer than 64 KiB is reported as such, exit 1; standard input that is \
            a folder is a usage error.
            Every answer takes the time of one Argon2 verification, whatever it is. When the password \
            matches an active account, its hash is made again with the policy's Argon2 costs (--policy, \
            --policy-file; standard: m=19456, t=2, p=1) if they ask for no less memory (m) and no fewer \
            passes (t) than the stored hash, and for more of one; lanes (p) do not count. A hash with more \
            memory but fewer passes, or the reverse (m=47104, t=1 and m=12288, t=3 are as strong as \
            m=19456, t=2 by OWASP's table), is kept: nothing is made cheaper to attack. The new hash is \
            stored only if nobody changed the old one meanwhile; a store that cannot be written keeps the \
            old hash and the answer stays 0.
            Exit codes: 0 it matches, 1 it does not, 64 usage, 67 no account has this email, 69 there is \
            no database at that place (nothing is created), 74 storage failure or a stored hash it cannot \
            check, 77 the account is disabled or pending (whether or not the password matched), 130 cancelled.
            """)
    )

    @Argument(help: .english("The account's email address.", value: Translation.english("email")))
    var email: String

    @Option(help: About.databaseHelp, completion: .file())
    var db: String?

    @OptionGroup var policy: PolicyOptions

    func run() throws {
        let settings = try policy.settings()
        let location = try settings.location(given: db).value
        let costs = try policy.load(settings).argon2
        let password = try readPassword()
        let translation = Translation.signup
        let store: (any AccountBackend)?
        let target: VerificationTarget
        do throws(StoreError) {
            store = try location.openExisting()
            target = try store?.verificationTarget(forEmail: SignupForm.normalizeEmail(email)) ?? .noAccount(decoy: nil)
        } catch {
            IO.write("error: \(error.description)\n", to: 2)
            throw ExitCode(ExitStatus.storage)
        }
        // One Argon2 verification whatever the case (unknown email, unusable hash, a disabled
        // account, no database), with a real account's costs for an unknown email, so timing
        // tells nothing the answer does not.
        let verdict = PasswordHasher.check(password, against: target)
        guard store != nil else { throw AccountAccess.noDatabase(location) }
        switch (target, verdict) {
        case (.noAccount, _):
            throw AccountAccess.failure(.noAccount)
        case (.account(_, let state), _) where state != .active:
            // Whether or not the password matched: a disabled account's password is not worth guessing.
            IO.write(translation(state == .pending ? Translation.english("This account is waiting for an administrator to enable it.") : Translation.english("This account is disabled.")) + "\n", to: 2)
            throw ExitCode(ExitStatus.notActive)
        case (.account(let hash, _), .matches):
            IO.write(translation(Translation.english("Password matches.")) + "\n", to: 2)
            if PasswordHasher.needsRehash(hash, for: costs) { Self.upgrade(email: email, from: hash, password: password, costs: costs, at: location) }
            throw ExitCode(0)
        case (_, .doesNotMatch):
            IO.write(translation(Translation.english("Password does not match.")) + "\n", to: 2)
            throw ExitCode(1)
        case (_, .unusableHash(let why)):
            IO.write("error: " + translation(Translation.english("the stored password hash for this account cannot be checked: {reason}", ["reason": why])) + "\n", to: 2)
            throw ExitCode(ExitStatus.storage)
        }
    }

    /// The password to check: from a masked prompt at a terminal, else the first line of standard
    /// input (its echo off when that is a terminal). Ends the command for a line it cannot use.
    private func readPassword() throws -> Secret {
        let translation = Translation.signup
        let nothingChecked = translation(Translation.english("Nothing was checked.")) + "\n"
        if isTerminal(0) && isTerminal(2) {
            TerminalGuard.install()
            TerminalGuard.prepareInterruptReport(conversation: nothingChecked, result: "")
            let session = try TerminalStart.session(hint: translation(Translation.english("Nothing was checked. Give the password on standard input instead.")))
            // The prompt names the account, as the person typed it (made visible: it is outside text).
            // Keys typed before it appeared are not its answer (as at the wizard's first prompt).
            session.discardTypeAhead()
            let read = session.readSecret(prompt: translation(Translation.english("Password for {email}: ", ["email": VisibleText.of(email)])))
            session.close()
            switch read {
            case .line(let text):
                return Secret(SignupForm.normalizePassword(text))
            case .unreadable(let problem):
                // Bytes that are not UTF-8 are refused, as at the wizard's prompts: never replaced, never a match.
                IO.write("error: password: \(translation(FieldError.unreadable(problem, field: "password").message))\n", to: 2)
                throw ExitCode(1)
            case .interrupted, .endOfInput:
                IO.write(nothingChecked, to: 2)
                throw ExitCode(ExitStatus.cancelled)
            }
        } else {
            // Standard input may still be a terminal (`verify EMAIL 2>/dev/null`): echo goes off there.
            if isTerminal(0) { TerminalGuard.install() }
            if IO.standardInputIsAFolder { throw UsageError(.english("standard input is a folder: give the password in a file or a pipe")) }
            switch LineInput(fd: 0).nextSecret() {
            case .text(let text): return Secret(SignupForm.normalizePassword(text))
            case .unreadable(let problem):
                // Bytes that are not UTF-8, a NUL or an overlong line: the input's error, as at the prompt.
                IO.write("error: password: \(translation(FieldError.unreadable(problem, field: "password").message))\n", to: 2)
                throw ExitCode(1)
            case .endOfInput: return Secret("")
            }
        }
    }

    /// Replaces a matching hash that ``PasswordHasher/needsRehash(_:for:)`` says to make again, unless it changed since it was read
    /// (``AccountBackend/rehash(email:verified:to:)``). A failure is noted; the answer stands.
    private static func upgrade(email: String, from hash: String, password: Secret, costs: PasswordPolicy.Argon2Costs, at location: StoreLocation) {
        do throws(StoreError) {
            let stronger = try PasswordHasher.hash(password, costs: costs)
            let key = SignupForm.normalizeEmail(email)
            if try location.openExistingForWriting()?.rehash(email: key, verified: hash, to: stronger) == true {
                AuditLog.record(.hashUpgraded(email: key))
            }
        } catch {
            IO.write("note: " + About.english("the password hash could not be upgraded to the policy's costs: {reason}",
                                              ["reason": VisibleText.of(error.description)]) + "\n", to: 2)
        }
    }
}
