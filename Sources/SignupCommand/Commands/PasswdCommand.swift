import ArgumentParser
import SignupCore

/// `signup passwd EMAIL`: a new password for an existing account, asked as a sign-up asks it.
struct PasswdCommand: ParsableCommand, SignUpCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd",
        abstract: About.english("Change an account's password."),
        discussion: About.english("""
            At a terminal the new password is asked as in a sign-up: the policy's requirements, \
            masked, asked again to confirm, errors after each answer, the strength (the email's local \
            part counts as a known word), a review, and Ctrl-C to cancel. From a script: two lines on \
            standard input (the password and its confirmation), or --password-file, --password-fd or \
            SIGNUP_PASSWORD. The new password must pass the current policy (--policy, --policy-file). \
            The change is one transaction and records when the password changed; on SQLite the old \
            hash's bytes are zeroed (secure_delete) and the -wal checkpointed. The account's state is \
            kept: a disabled account stays disabled.
            Exit codes: 0 changed, 1 declined at the review, 64 usage, 65 the password fails the policy, \
            66 input ended early, 67 no account has this email, 69 there is no database at that place \
            (nothing is created), 74 storage failure, 130 cancelled.
            """)
    )

    @Argument(help: .english("The account's email address.", value: Translation.english("email")))
    var email: String

    @OptionGroup var passwordOptions: PasswordOptions

    func run() throws {
        try SignUpFlow(plan: plan(), environment: .live).run()
    }

    /// The options as a plan: a new password for `email`'s account.
    func plan() -> SignUpPlan {
        var plan = passwordOptions.plan
        plan.purpose = .changePassword(email: email)
        return plan
    }
}
