import SignupCore

/// How much strangers may do in a time window: accounts and mails from one client and from
/// everyone, and mails and codes for one account.
///
/// They are counted in the store (accounts from the `origin` of the rows public sign-ups made,
/// mails and typed codes in tables of their own), so they hold across concurrent processes,
/// restarts and client addresses. An account an administrator deletes (a refused one) no longer
/// counts. A sign-up and a password reset spend separate budgets (``LimitPurpose``).
public struct SignupLimits: Sendable, Equatable {
    /// The window, in seconds, that the counts per client and overall look back over.
    public var windowSeconds: Int
    /// Accounts one client address may create in the window.
    public var perClient: Int
    /// Accounts all public sign-ups together may create in the window.
    public var overall: Int
    /// The window, in seconds, that the counts per account look back over.
    public var accountWindowSeconds: Int
    /// Mails of one purpose one account (one email key) may be sent in the account window.
    public var mailsPerAccount: Int
    /// Codes of one purpose that may be checked for one account (one email key) in the account window.
    public var codesPerAccount: Int

    /// Limits of `perClient` accounts a client and `overall` in all per `windowSeconds`, and
    /// `mailsPerAccount` mails and `codesPerAccount` codes an account per `accountWindowSeconds`.
    public init(windowSeconds: Int = 3600, perClient: Int = 3, overall: Int = 30,
                accountWindowSeconds: Int = 86400, mailsPerAccount: Int = 5, codesPerAccount: Int = 10) {
        self.windowSeconds = windowSeconds
        self.perClient = perClient
        self.overall = overall
        self.accountWindowSeconds = accountWindowSeconds
        self.mailsPerAccount = mailsPerAccount
        self.codesPerAccount = codesPerAccount
    }

    /// Mails a public session may send, per client and overall, for each account the limits
    /// allow: a code, a code again for a mistyped address, a notice.
    public static let mailsForEachAccount = 3

    /// The refusal when `fromOrigin` and `fromAll` mails of `purpose` were already sent in the
    /// window: each limit allows ``mailsForEachAccount`` mails for each account it allows.
    public func mailRefusal(fromOrigin: Int, fromAll: Int, purpose: LimitPurpose) -> LimitRefusal? {
        if fromOrigin >= perClient * Self.mailsForEachAccount {
            return LimitRefusal(scope: .perClient, counted: .mails, purpose: purpose, windowSeconds: windowSeconds)
        }
        if fromAll >= overall * Self.mailsForEachAccount {
            return LimitRefusal(scope: .overall, counted: .mails, purpose: purpose, windowSeconds: windowSeconds)
        }
        return nil
    }

    /// The refusal when `toAccount` mails of `purpose` were already sent to one account in the account window.
    public func accountMailRefusal(toAccount: Int, purpose: LimitPurpose) -> LimitRefusal? {
        toAccount >= mailsPerAccount
            ? LimitRefusal(scope: .perAccount, counted: .mails, purpose: purpose, windowSeconds: accountWindowSeconds) : nil
    }

    /// The refusal when `forAccount` codes of `purpose` were already checked for one account in the account window.
    public func codeRefusal(forAccount: Int, purpose: LimitPurpose) -> LimitRefusal? {
        forAccount >= codesPerAccount
            ? LimitRefusal(scope: .perAccount, counted: .codes, purpose: purpose, windowSeconds: accountWindowSeconds) : nil
    }

    /// The refusal when `fromOrigin` and `fromAll` accounts already made in the window leave no room.
    func refusal(fromOrigin: Int, fromAll: Int) -> LimitRefusal? {
        if fromOrigin >= perClient {
            return LimitRefusal(scope: .perClient, counted: .accounts, purpose: .signUp, windowSeconds: windowSeconds)
        }
        if fromAll >= overall {
            return LimitRefusal(scope: .overall, counted: .accounts, purpose: .signUp, windowSeconds: windowSeconds)
        }
        return nil
    }

    /// The chance that a stranger who types every code they may, at one account, for `days` days,
    /// matches one: each checked code matches with probability 10⁻⁶ (6 random digits), and at
    /// most ``codesPerAccount`` are checked per account window.
    public func guessChance(days: Int = 30) -> Double {
        let windows = Double(days * 86400) / Double(accountWindowSeconds)
        let guesses = windows.rounded(.up) * Double(codesPerAccount)
        return 1 - pow1m(1e-6, guesses)
    }

    /// (1 − p)^n without Foundation.
    private func pow1m(_ p: Double, _ n: Double) -> Double {
        var result = 1.0, base = 1 - p, exponent = Int(n)
        while exponent > 0 {
            if exponent & 1 == 1 { result *= base }
            base *= base
            exponent >>= 1
        }
        return result
    }
}

/// What a public limit is spent on: a sign-up and a password reset have budgets of their own, so
/// that strangers who exhaust one leave the other open.
public enum LimitPurpose: String, Sendable, Equatable, CaseIterable {
    /// A public sign-up (`signup --public`): its accounts, its codes and notices.
    case signUp = "sign-up"
    /// A public password reset (`signup reset --public`): its codes and notices.
    case reset = "reset"
}

/// A limit of ``SignupLimits`` that refused: whose count, of what, for which purpose.
///
/// A value, never a sentence to match: its ``message`` is made from it for people, and the
/// audit log names the scope.
public struct LimitRefusal: Sendable, Equatable, CustomStringConvertible {
    /// Whose count was full.
    public enum Scope: Sendable, Equatable {
        /// The client's address (an IPv6 address counts by its /64).
        case perClient
        /// All strangers together.
        case overall
        /// One account (one email key), whatever the clients.
        case perAccount
    }

    /// What was counted.
    public enum Counted: Sendable, Equatable {
        /// Accounts created.
        case accounts
        /// Mails sent.
        case mails
        /// Codes typed back and checked.
        case codes
    }

    /// Whose count was full.
    public var scope: Scope
    /// What was counted.
    public var counted: Counted
    /// The budget it was spent from.
    public var purpose: LimitPurpose
    /// The window of the count, in seconds: when to try again at the latest.
    public var windowSeconds: Int

    /// A refusal of `scope` for `counted` things of `purpose` in a window of `windowSeconds`.
    public init(scope: Scope, counted: Counted, purpose: LimitPurpose, windowSeconds: Int) {
        self.scope = scope
        self.counted = counted
        self.purpose = purpose
        self.windowSeconds = windowSeconds
    }

    /// The English sentence for the person (a catalog key: translate it at the edge), without
    /// the client's address. A limit per account is never said: the conversation goes on as if
    /// it were not there.
    public var message: String {
        let minutes = ["minutes": "\(max(1, (windowSeconds + 59) / 60))"]
        switch (counted, scope, purpose) {
        case (_, .perAccount, _):
            // Never shown to a stranger: not a text of the catalog.
            return "too many mails or codes for this account recently; the limit lifts within \(minutes["minutes"]!) minutes"
        case (.accounts, .perClient, _):
            return Translation.english("too many accounts were created from your address recently; try again in up to {minutes} minutes", minutes)
        case (.accounts, _, _):
            return Translation.english("too many accounts were created recently; try again in up to {minutes} minutes", minutes)
        case (.mails, .perClient, .signUp):
            return Translation.english("too many mails were sent for sign-ups from your address recently; try again in up to {minutes} minutes", minutes)
        case (.mails, _, .signUp):
            return Translation.english("too many mails were sent for sign-ups recently; try again in up to {minutes} minutes", minutes)
        case (.mails, .perClient, .reset):
            return Translation.english("too many mails were sent for password resets from your address recently; try again in up to {minutes} minutes", minutes)
        case (.mails, _, .reset):
            return Translation.english("too many mails were sent for password resets recently; try again in up to {minutes} minutes", minutes)
        case (.codes, _, _):
            return "too many codes were typed recently; the limit lifts within \(minutes["minutes"]!) minutes"
        }
    }

    /// ``message``.
    public var description: String { message }
}
