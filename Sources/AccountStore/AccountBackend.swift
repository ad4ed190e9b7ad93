import FoundationEssentials
import SignupCore

/// What the program needs from wherever accounts are stored; SQLite and PostgreSQL both provide it.
///
/// Every method is synchronous and throws only ``StoreError``. Emails are keyed with
/// ``AccountStore/key(forEmail:)`` in Swift by both backends, never by the database.
public protocol AccountBackend: AnyObject {
    /// Stores a new account; throws ``StoreError/emailTaken`` when its key exists.
    ///
    /// `passwordHash` is a ``PasswordHash``, never text: a plaintext password cannot reach
    /// the database through this door, in either backend.
    ///
    /// `whenLocked` runs just before the commit, once nothing but the commit is left to wait
    /// for: a caller that must not be interrupted while committing holds its signals there.
    func create(
        email: String, passwordHash: PasswordHash, at date: Date, state: AccountState, whenLocked: () -> Void
    ) throws(StoreError) -> Account
    /// Stores a public sign-up's account in the `pending` state, recording `origin` (the client's
    /// address), if `limits` leave room for one more from that origin and from everyone in their
    /// window; else throws ``StoreError/limitReached(_:)``, storing nothing. The count and the
    /// insert are one transaction, serialized with every other public sign-up.
    func createPending(
        email: String, passwordHash: PasswordHash, at date: Date, origin: String, limits: SignupLimits, whenLocked: () -> Void
    ) throws(StoreError) -> Account
    /// Records one mail of `purpose` a public session would send (a code, a notice) from `origin`
    /// to `email`'s account, if `limits` leave room for it from that origin and from everyone
    /// (``SignupLimits/mailRefusal(fromOrigin:fromAll:purpose:)``); else throws
    /// ``StoreError/limitReached(_:)``, recording nothing.
    ///
    /// Returns the refusal of the account's own bound (``SignupLimits/accountMailRefusal(toAccount:purpose:)``)
    /// when `email`'s key had its mails of `purpose` in the account window: then the mail must not
    /// be sent, and it counts against the client and everyone all the same (not against the
    /// account), so the stranger sees nothing of the account's count. Nil: send it. One
    /// transaction, serialized with every public sign-up.
    func recordMail(origin: String, purpose: LimitPurpose, toEmail email: String, at date: Date, limits: SignupLimits) throws(StoreError) -> LimitRefusal?
    /// Counts one code of `purpose` typed back for `email`'s account, if its bound
    /// (``SignupLimits/codeRefusal(forAccount:purpose:)``) leaves room; else returns that refusal,
    /// counting nothing, and the code must not be checked. Whichever client types it, in whichever
    /// process: one transaction, serialized with every public sign-up.
    func admitCode(forEmail email: String, purpose: LimitPurpose, at date: Date, limits: SignupLimits) throws(StoreError) -> LimitRefusal?
    /// The email of the account with this email's key as it is stored (mail about an account goes
    /// there, never to the spelling typed), or nil when no account has the key.
    func storedEmail(forEmail email: String) throws(StoreError) -> String?
    /// Whether an account with this email's key exists.
    func isTaken(email: String) throws(StoreError) -> Bool
    /// What a password for this email is checked against: its account's stored hash or, when
    /// no account has the email's key, another account's hash to spend the same time on.
    ///
    /// The other account is the newest one, for every unknown email: an unknown email costs what
    /// the database's current accounts cost, whatever Argon2 costs they were made with, and the
    /// time of an unknown email depends on no email and on no key. (Two earlier choices leaked:
    /// the next key's account let timing bisect the keys, and an account picked by a keyed
    /// function of the email changed with every new account, where a known email's time does
    /// not.) Accounts whose costs differ from the newest one's
    /// still take their own time.
    func verificationTarget(forEmail email: String) throws(StoreError) -> VerificationTarget
    /// Hands each account (only those in `state`, unless nil) to `body` in id order without
    /// holding them all; `body` returns false to stop.
    func streamAccounts(inState state: AccountState?, _ body: (Account) -> Bool) throws(StoreError)
    /// Replaces the account's hash with `passwordHash` and records `date` as when its password
    /// changed, in one transaction; the old hash is overwritten, not kept (SQLite: `secure_delete`).
    /// Throws ``StoreError/noAccount`` when no account has the email.
    func changePassword(email: String, to passwordHash: PasswordHash, at date: Date, whenLocked: () -> Void) throws(StoreError)
    /// Sets the account's state and returns the state it had; ``StoreError/noAccount`` when none has the email.
    /// `whenLocked` runs once the write lock is held, before the change commits (a program holds
    /// its signals from there, so that its exit code says whether the change was made).
    func setState(_ state: AccountState, email: String, whenLocked: () -> Void) throws(StoreError) -> AccountState
    /// Removes the account's row, hash and all; ``StoreError/noAccount`` when none has the email.
    func delete(email: String, whenLocked: () -> Void) throws(StoreError)
    /// Replaces the stored hash with `passwordHash` only if it is still `verified` (the one a
    /// password was just checked against), so an upgrade never overwrites a concurrent change.
    /// Returns whether it replaced it; the time a password changed is not touched.
    func rehash(email: String, verified: String, to passwordHash: PasswordHash) throws(StoreError) -> Bool
    /// How many accounts have a hash ``PasswordHasher/needsRehash(_:for:)`` would upgrade to `costs`,
    /// read one row at a time.
    func countHashes(weakerThan costs: PasswordPolicy.Argon2Costs) throws(StoreError) -> Int
    /// Stores `rows` in one transaction and says, for each in order, what became of it: an email
    /// already taken is left as it is, or (with `update`) gets the row's hash as a password change.
    /// Either every outcome is committed or none is.
    func insertBatch(_ rows: [NewAccount], update: Bool, at date: Date) throws(StoreError) -> [BatchOutcome]
    /// Does what ``create(email:passwordHash:at:whenLocked:)`` does up to its commit, then rolls
    /// back: throws what `create` would throw (a taken email, a read-only or append-only file, a
    /// role that may not insert, a row-level security policy, …) and stores nothing.
    func rehearseCreate(email: String, passwordHash: PasswordHash) throws(StoreError)
    /// Hands every account whole (its hash, state, origin and dates) to `body` in id order, one
    /// row in memory at a time, until it returns false: `signup export`. A store opened for
    /// writing, so every migration has run.
    func streamWholeAccounts(_ body: (ExportedAccount) -> Bool) throws(StoreError)
}

/// One account to store in a batch (``AccountBackend/insertBatch(_:update:at:)``).
public struct NewAccount: Sendable, Equatable {
    /// The email as entered; the store trims it, makes it NFC and keys it.
    public var email: String
    /// Its Argon2id hash.
    public var passwordHash: PasswordHash
    /// The state it is created in.
    public var state: AccountState
    /// When it was created (UTC ISO 8601), as another store recorded it; nil: the batch's time.
    public var createdAt: String?
    /// When its password last changed, as another store recorded it; nil: never.
    public var passwordChangedAt: String?
    /// Where a public sign-up came from (the client's address), as another store recorded it.
    public var origin: String?

    /// An account to create in `state`, created now.
    public init(email: String, passwordHash: PasswordHash, state: AccountState = .active) {
        self.email = email
        self.passwordHash = passwordHash
        self.state = state
    }

    /// An account exported from a store (``ExportedAccount``), to be stored exactly as it was:
    /// its state, origin and dates are kept, and with `update` they replace a taken account's.
    public init(email: String, passwordHash: PasswordHash, state: AccountState, origin: String?, createdAt: String, passwordChangedAt: String?) {
        self.init(email: email, passwordHash: passwordHash, state: state)
        self.origin = origin
        self.createdAt = createdAt
        self.passwordChangedAt = passwordChangedAt
    }
}

/// An account whole, its stored hash included: what `signup export` writes and `import` restores.
public struct ExportedAccount: Sendable, Equatable {
    /// The email as stored (trimmed, NFC).
    public var email: String
    /// The stored PHC hash, as stored.
    public var passwordHash: String
    /// Its state.
    public var state: AccountState
    /// Where a public sign-up came from, or nil.
    public var origin: String?
    /// When it was created (UTC ISO 8601).
    public var createdAt: String
    /// When its password last changed, or nil.
    public var passwordChangedAt: String?

    /// Makes an exported account value.
    public init(email: String, passwordHash: String, state: AccountState, origin: String?, createdAt: String, passwordChangedAt: String?) {
        self.email = email
        self.passwordHash = passwordHash
        self.state = state
        self.origin = origin
        self.createdAt = createdAt
        self.passwordChangedAt = passwordChangedAt
    }
}

/// What a batch did with one of its rows.
public enum BatchOutcome: Sendable, Equatable {
    /// A new account with this id.
    case created(id: Int64)
    /// The email was taken; nothing changed.
    case taken
    /// The email was taken and its password was changed (`update`).
    case updated
}

/// What a password is checked against (``AccountBackend/verificationTarget(forEmail:)``).
public enum VerificationTarget: Sendable, Hashable {
    /// The stored PHC hash of the account with this email, and the account's state: read in the
    /// same query, so every answer (matches, does not, disabled) costs the same.
    case account(hash: String, state: AccountState = .active)
    /// No account has this email. `decoy` is the newest account's stored hash, checked only to take
    /// the time a real account takes (``PasswordHasher/check(_:against:)-(_,VerificationTarget)``
    /// then answers "does not match"); nil when the store holds no account.
    case noAccount(decoy: String?)
}

extension AccountBackend {
    /// The stored PHC hash for this email's key, or nil when there is no such account.
    public func passwordHash(forEmail email: String) throws(StoreError) -> String? {
        if case .account(let hash, _) = try verificationTarget(forEmail: email) { hash } else { nil }
    }

    /// Every account in id order, to `body`, until it returns false.
    public func streamAccounts(_ body: (Account) -> Bool) throws(StoreError) {
        try streamAccounts(inState: nil, body)
    }

    /// Stores a new active account created at `date`; `whenLocked` as in the requirement.
    public func create(email: String, passwordHash: PasswordHash, at date: Date, whenLocked: () -> Void) throws(StoreError) -> Account {
        try create(email: email, passwordHash: passwordHash, at: date, state: .active, whenLocked: whenLocked)
    }

    /// Changes the account's password now.
    public func changePassword(email: String, to passwordHash: PasswordHash) throws(StoreError) {
        try changePassword(email: email, to: passwordHash, at: Date(), whenLocked: {})
    }

    /// Sets the account's state and returns the state it had.
    public func setState(_ state: AccountState, email: String) throws(StoreError) -> AccountState {
        try setState(state, email: email, whenLocked: {})
    }

    /// Removes the account.
    public func delete(email: String) throws(StoreError) {
        try delete(email: email, whenLocked: {})
    }

    /// Stores a new account created now.
    public func create(email: String, passwordHash: PasswordHash) throws(StoreError) -> Account {
        try create(email: email, passwordHash: passwordHash, at: Date(), state: .active, whenLocked: {})
    }

    /// Stores a new account created at `date`.
    public func create(email: String, passwordHash: PasswordHash, at date: Date) throws(StoreError) -> Account {
        try create(email: email, passwordHash: passwordHash, at: date, state: .active, whenLocked: {})
    }
}

extension StoreLocation {
    /// Opens the store for writing, creating it and applying pending migrations when needed.
    public func openForWriting() throws(StoreError) -> any AccountBackend {
        switch self {
        case .sqlite(let path): try AccountStore(at: path)
        case .postgres(let location): try PostgresStore(location)
        }
    }

    /// Refuses a database file path that another user could have planted or can replace (the
    /// checks of ``AccountStore/init(at:)``), before anyone is asked anything; creates nothing.
    /// A PostgreSQL location is checked when it is connected to.
    public func checkBeforeAsking() throws(StoreError) {
        if case .sqlite(let path) = self { _ = try FileSystem.resolve(path, creatingFolders: false, beforeWriting: true) }
    }

    /// What `create` would throw for this account, short of storing it: a dry run's write.
    ///
    /// An existing store runs the insert in a transaction it rolls back (``AccountBackend/rehearseCreate(email:passwordHash:)``),
    /// so whatever would refuse the real write refuses this one. Where there is no store yet, the
    /// folder a new database would be made in must be writable by this process, or (PostgreSQL)
    /// the server and database writable and the role allowed to create the table. Creates no
    /// file or table; on PostgreSQL the rolled-back insert may use up an id, as a refused
    /// sign-up does.
    public func rehearseCreate(email: String, passwordHash: PasswordHash) throws(StoreError) {
        if let store = try openExisting() {
            if try store.isTaken(email: email) { throw .emailTaken }
            try store.rehearseCreate(email: email, passwordHash: passwordHash)
            return
        }
        switch self {
        case .sqlite(let path):
            try FileSystem.checkWritable(FileSystem.resolve(path, creatingFolders: false, beforeWriting: true), path: path)
        case .postgres(let location):
            try PostgresStore.checkWritable(location)
        }
    }

    /// Opens an existing store for writing (migrating it), or returns nil when there is none: a
    /// command that changes an account creates no database.
    public func openExistingForWriting() throws(StoreError) -> (any AccountBackend)? {
        switch self {
        case .sqlite(let path):
            // The reader's connection is the writer's (one per file and process: DatabaseFile).
            guard try AccountStore.openExisting(at: path) != nil else { return nil }
            return try AccountStore(at: path)
        case .postgres(let location):
            return try PostgresStore.openExistingForWriting(location)
        }
    }

    /// Opens an existing store for reading, or returns nil when there is none yet. Creates nothing.
    public func openExisting() throws(StoreError) -> (any AccountBackend)? {
        switch self {
        case .sqlite(let path): try AccountStore.openExisting(at: path)
        case .postgres(let location): try PostgresStore.openExisting(location)
        }
    }
}

extension AccountStore: AccountBackend {}
