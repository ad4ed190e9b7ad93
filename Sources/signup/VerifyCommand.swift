import AccountStore
import ArgumentParser
import Foundation
import SignupCore
import Terminal

/// `signup verify EMAIL`: whether a password matches, in the same time whether or not the email exists.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a password: exit 0 if it matches the account's, 1 if not.",
        discussion: "The password is read from a masked prompt at a terminal, else from the first line of standard input."
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
            let session = TerminalSession(programName: "signup")
            let read = session.readSecret(prompt: "Password: ")
            session.close()
            guard case .line(let text) = read else {
                IO.write("\nNothing was checked.\n", to: 2)
                throw ExitCode(ExitStatus.cancelled)
            }
            password = Secret(SignupForm.normalizePassword(text))
        } else {
            switch LineInput(fd: 0).next() {
            case .text(let text): password = Secret(SignupForm.normalizePassword(text))
            case .unreadable, .endOfInput: password = Secret("")
            }
        }
        let hash: String?
        do throws(StoreError) {
            switch location {
            case .sqlite(let path):
                hash = try AccountStore.openExisting(at: path)?.passwordHash(forEmail: SignupForm.normalizeEmail(email))
            }
        } catch {
            IO.write("error: \(error.description)\n", to: 2)
            throw ExitCode(ExitStatus.storage)
        }
        // One Argon2 verification whatever the case (unknown email, unusable hash), so timing tells nothing.
        switch PasswordHasher.check(password, against: hash) {
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
