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

    @Option(help: ArgumentHelp("The account database.", valueName: "path"))
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
        do {
            hash = try location.openExisting()?.passwordHash(forEmail: SignupForm.normalizeEmail(email))
        } catch {
            IO.write("error: \(error.description)\n", to: 2)
            throw ExitCode(ExitStatus.storage)
        }
        // An unknown email costs one Argon2 verification too, so timing does not tell it apart.
        let matches = hash.map { PasswordHasher.verify(password, against: $0) } ?? PasswordHasher.verifyAgainstDummy(password)
        IO.write(matches ? "Password matches.\n" : "Password does not match.\n", to: 2)
        throw ExitCode(matches ? 0 : 1)
    }
}
