import AccountStore
import ArgumentParser
import SignupCore

/// `signup reset [EMAIL]`: a forgotten password given back to whoever reads the address's mail.
struct ResetCommand: ParsableCommand, SignUpCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: About.english("Reset a forgotten password with a code mailed to the address."),
        discussion: About.english("""
            Asks the email (unless given), mails a 6-digit code to it through mail.command, asks the code, \
            then the new password as passwd asks it: the policy's requirements, masked, confirmed, a review. \
            The conversation is the same whether the address has an account or not: only an active account's \
            address gets a code; an address with no account, or a disabled or pending one, is mailed that it \
            cannot be reset, and no code matches. The code is valid for 10 minutes; 5 wrong codes end the run. \
            --public is for an SSH forced command (ssh reset@host: see docs/public-signup.md): the time limits \
            of a public sign-up, no job control.
            Exit codes: 0 changed, 1 declined at the review, 64 usage, 65 an answer is refused (a wrong code in \
            a script, the policy), 66 input ended early, 74 storage failure, 75 the mail could not be sent, the \
            code expired, 5 wrong codes or a limit, 130 cancelled.
            """)
    )

    @Argument(help: .english("The account's email address (asked when not given).", value: Translation.english("email")))
    var email: String?

    @OptionGroup var passwordOptions: PasswordOptions

    @Flag(help: .english("A stranger's reset (an SSH forced command): the time and attempt limits of a public sign-up, no job control."))
    var `public` = false

    func run() throws {
        try SignUpFlow(plan: plan(), environment: .live).run()
    }

    /// The options as a plan: a reset, a stranger's with `--public`.
    func plan() -> SignUpPlan {
        var plan = passwordOptions.plan
        plan.email = email
        plan.purpose = .reset
        if `public` { plan.audience = .stranger(SignUpPlan.PublicOptions()) }
        return plan
    }

    /// The words of a reset's conversation.
    static var texts: WizardTexts {
        var texts = WizardTexts(banner: Translation.english("Reset a forgotten password (Ctrl-C to cancel)"))
        texts.reviewQuestion = Translation.english("Change the password? [Y/n/e] ")
        texts.reviewHelp = Translation.english("Answer y to change the password, n to cancel, or e to change an answer.")
        texts.unavailable = { Translation.english("The password could not be changed: {reason}.", ["reason": $0]) }
        return texts
    }

    /// Whether `email` names an active account at `location`: only such an account's address gets a code.
    static func canReset(_ email: String, at location: StoreLocation) -> Bool {
        do throws(StoreError) {
            guard let store = try location.openExisting(), case .account(_, let state) = try store.verificationTarget(forEmail: email) else { return false }
            return state == .active
        } catch {
            return false
        }
    }

    /// Stores the new password once the code matched, as passwd does, if the account is still active.
    static func reset(_ submission: Submission, at location: StoreLocation, costs: PasswordPolicy.Argon2Costs,
                      environment: CommandEnvironment) -> SubmitResult<CreatedAccount> {
        // Disabled or made pending since its code was mailed: it cannot be reset now.
        guard canReset(submission.email, at: location) else { return .rejected([SignupForm.emailUnknown]) }
        // The line names the account as stored, whatever spelling was typed.
        let stored = ProofFlow.storedEmail(submission.email, at: location)
        return SignUpFlow.changePassword(submission, at: location, costs: costs, environment: environment) { .passwordReset(email: stored ?? $0) }
    }
}
