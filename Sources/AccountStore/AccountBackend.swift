import Foundation

/// What the program needs from wherever accounts are stored; SQLite and PostgreSQL both provide it.
///
/// Every method is synchronous and throws only ``StoreError``. Emails are keyed with
/// ``AccountStore/key(forEmail:)`` in Swift by both backends, never by the database.
public protocol AccountBackend: AnyObject {
    /// Stores a new account; throws ``StoreError/emailTaken`` when its key exists.
    func create(email: String, passwordHash: String, at date: Date) throws(StoreError) -> Account
    /// Whether an account with this email's key exists.
    func isTaken(email: String) throws(StoreError) -> Bool
    /// The stored PHC hash for this email's key, or nil when there is no such account.
    func passwordHash(forEmail email: String) throws(StoreError) -> String?
    /// Hands each account to `body` in id order without holding them all; `body` returns false to stop.
    func streamAccounts(_ body: (Account) -> Bool) throws(StoreError)
}

extension AccountBackend {
    /// Stores a new account created now.
    public func create(email: String, passwordHash: String) throws(StoreError) -> Account {
        try create(email: email, passwordHash: passwordHash, at: Date())
    }
}

extension StoreLocation {
    /// Opens the store for writing, creating it and applying pending migrations when needed.
    public func openForWriting() throws(StoreError) -> any AccountBackend {
        switch self {
        case .sqlite(let path): try AccountStore(path: path)
        case .postgres(let location): try PostgresStore(location)
        }
    }

    /// Opens an existing store for reading, or returns nil when there is none yet. Creates nothing.
    public func openExisting() throws(StoreError) -> (any AccountBackend)? {
        switch self {
        case .sqlite(let path): try AccountStore.openExisting(path: path)
        case .postgres(let location): try PostgresStore.openExisting(location)
        }
    }
}

extension AccountStore: AccountBackend {}

// TO BE REPLACED by the store branch's streaming `streamAccounts` (issue 8): this one reads
// every account first, so it is only here for the seam to compile on this branch.
extension AccountStore {
    /// Hands each account to `body` in id order; `body` returns false to stop.
    public func streamAccounts(_ body: (Account) -> Bool) throws(StoreError) {
        for account in try accounts() where !body(account) { return }
    }
}
