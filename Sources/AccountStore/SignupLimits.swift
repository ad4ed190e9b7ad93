import SignupCore

/// How many public sign-ups a time window allows: from one client, and from everyone.
///
/// They are counted in the store, from the accounts public sign-ups made (their `origin`), so
/// they hold across concurrent processes and restarts. An account an administrator deletes
/// (a refused one) no longer counts.
public struct SignupLimits: Sendable, Equatable {
    /// The window, in seconds, that both counts look back over.
    public var windowSeconds: Int
    /// Accounts one client address may create in the window.
    public var perClient: Int
    /// Accounts all public sign-ups together may create in the window.
    public var overall: Int

    /// Limits of `perClient` accounts a client and `overall` in all, per `windowSeconds`.
    public init(windowSeconds: Int = 3600, perClient: Int = 3, overall: Int = 30) {
        self.windowSeconds = windowSeconds
        self.perClient = perClient
        self.overall = overall
    }

    /// Mails a public session may send for each account the limits allow: a code, a code again
    /// for a mistyped address, a notice.
    public static let mailsPerAccount = 3

    /// The refusal when `fromOrigin` and `fromAll` mails were already sent in the window: each
    /// limit allows ``mailsPerAccount`` mails for each account it allows.
    public func mailRefusal(fromOrigin: Int, fromAll: Int) -> StoreError? {
        let minutes = max(1, (windowSeconds + 59) / 60)
        if fromOrigin >= perClient * Self.mailsPerAccount {
            return .limitReached(reason: Translation.english(
                "too many mails were sent for sign-ups from your address recently; try again in up to {minutes} minutes", ["minutes": "\(minutes)"]))
        }
        if fromAll >= overall * Self.mailsPerAccount {
            return .limitReached(reason: Translation.english(
                "too many mails were sent for sign-ups recently; try again in up to {minutes} minutes", ["minutes": "\(minutes)"]))
        }
        return nil
    }

    /// The refusal when `fromOrigin` and `fromAll` accounts already made in the window leave no room.
    func refusal(fromOrigin: Int, fromAll: Int) -> StoreError? {
        let minutes = max(1, (windowSeconds + 59) / 60)
        if fromOrigin >= perClient {
            return .limitReached(reason: Translation.english(
                "too many accounts were created from your address recently; try again in up to {minutes} minutes", ["minutes": "\(minutes)"]))
        }
        if fromAll >= overall {
            return .limitReached(reason: Translation.english(
                "too many accounts were created recently; try again in up to {minutes} minutes", ["minutes": "\(minutes)"]))
        }
        return nil
    }
}
