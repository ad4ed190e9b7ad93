/// The exit codes of every command, in one place: the code uses these names, and a test checks
/// that `--help` (hence `signup(1)`, which is made from it) and docs/usage.md name every one.
enum ExitStatus {
    static let created: Int32 = 0
    static let declined: Int32 = 1
    static let usage: Int32 = 64
    static let invalid: Int32 = 65
    static let incomplete: Int32 = 66
    /// No account has the email given (EX_NOUSER).
    static let noAccount: Int32 = 67
    /// There is no database at the place given (EX_UNAVAILABLE); nothing was created.
    static let noDatabase: Int32 = 69
    static let storage: Int32 = 74
    /// The result could not be written to standard output (EX_IOERR, as for storage).
    static let unwritable: Int32 = 74
    /// A limit of a public session (time, attempts, rate, a code that can no longer match):
    /// nothing was stored (EX_TEMPFAIL: try again later).
    static let limitReached: Int32 = 75
    /// verify: the account is disabled or pending, whether or not the password matched (EX_NOPERM).
    static let notActive: Int32 = 77
    static let cancelled: Int32 = 130

    /// Every code a command of signup's may end with, once each.
    static let all: [Int32] = [created, declined, usage, invalid, incomplete, noAccount, noDatabase, storage, limitReached, notActive, cancelled]

    /// Every `status` a `--json` object may have, of every command.
    static let jsonStatuses = [
        "created", "changed", "invalid", "declined", "incomplete", "cancelled", "storage_error", "terminal_error",
        "imported", "interrupted",
    ]
}
