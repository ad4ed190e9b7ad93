import AccountStore
import ArgumentParser
import Foundation
import SignupCore
import WizardTerminal

/// `signup verify EMAIL`: whether a password matches, in the same time whether or not the email exists.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a password: exit 0 if it matches the account's, 1 if not.",
        discussion: """
            The password is read from a masked prompt at a terminal, else from the first line of standard input \
            (with the terminal's echo off when standard input is one and standard error is not). A line that is \
            not UTF-8, holds a NUL or is longer than 64 KiB is reported as such, exit 1; standard input that is \
            a folder is a usage error.
            Exit codes: 0 it matches, 1 it does not (or no account has this email), 64 usage, 74 storage \
            failure or a stored hash it cannot check, 130 cancelled.
            """
    )

    @Argument(help: "The account's email address.")
    var email: String

    @Option(help: About.databaseHelp, completion: .file())
    var db: String?

    func run() throws {
        let location = try StoreOption.location(given: db)
        let password: Secret
        if isTerminal(0) && isTerminal(2) {
            TerminalGuard.install()
            TerminalGuard.prepareInterruptReport(conversation: "Nothing was checked.\n", result: "")
            let environment = IO.environment()
            let session = try TerminalStart.session(
                escapeSequences: TerminalCapabilities.knowsTerminal(environment: environment) && (environment["NO_COLOR"] ?? "").isEmpty,
                hint: "Nothing was checked. Give the password on standard input instead."
            )
            // The prompt names the account, as the person typed it (made visible: it is outside text).
            // Keys typed before it appeared are not its answer (as at the wizard's first prompt).
            session.discardTypeAhead()
            let read = session.readSecret(prompt: "Password for \(VisibleText.of(email)): ")
            session.close()
            switch read {
            case .line(let text):
                password = Secret(SignupForm.normalizePassword(text))
            case .unreadable(let problem):
                // Bytes that are not UTF-8 are refused, as at the wizard's prompts: never replaced, never a match.
                IO.write("error: password: \(FieldError.unreadable(problem, field: "password").message)\n", to: 2)
                throw ExitCode(1)
            case .interrupted, .endOfInput:
                IO.write("Nothing was checked.\n", to: 2)
                throw ExitCode(ExitStatus.cancelled)
            }
        } else {
            // Standard input may still be a terminal (`verify EMAIL 2>/dev/null`): echo goes off there.
            if isTerminal(0) { TerminalGuard.install() }
            if IO.standardInputIsAFolder { throw UsageError("standard input is a folder: give the password in a file or a pipe") }
            switch LineInput(fd: 0).nextSecret() {
            case .text(let text): password = Secret(SignupForm.normalizePassword(text))
            case .unreadable(let problem):
                // Bytes that are not UTF-8, a NUL or an overlong line: the input's error, as at the prompt.
                IO.write("error: password: \(FieldError.unreadable(problem, field: "password").message)\n", to: 2)
                throw ExitCode(1)
            case .endOfInput: password = Secret("")
            }
        }
        let target: VerificationTarget
        do throws(StoreError) {
            target = try location.openExisting()?.verificationTarget(forEmail: SignupForm.normalizeEmail(email)) ?? .noAccount(decoy: nil)
        } catch {
            IO.write("error: \(error.description)\n", to: 2)
            throw ExitCode(ExitStatus.storage)
        }
        // One Argon2 verification whatever the case (unknown email, unusable hash), with a real
        // account's costs for an unknown email, so timing tells nothing.
        switch PasswordHasher.check(password, against: target) {
        case .matches:
            IO.write("Password matches.\n", to: 2)
            throw ExitCode(0)
        case .doesNotMatch:
            IO.write("Password does not match.\n", to: 2)
            throw ExitCode(1)
        case .unusableHash(let why):
            IO.write("error: the stored password hash for this account cannot be checked: \(why)\n", to: 2)
            throw ExitCode(ExitStatus.storage)
        }
    }
}
