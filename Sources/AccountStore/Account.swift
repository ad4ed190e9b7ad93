/// A stored account, without its password hash.
public struct Account: Sendable, Equatable, Codable {
    /// The row id, assigned by the database.
    public let id: Int64
    /// The email as entered: trimmed and in Unicode NFC.
    public let email: String
    /// When the account was created, in UTC ISO 8601 (`2026-11-22T02:35:12Z`).
    public let createdAt: String
    /// Whether the account may sign in: only an ``AccountState/active`` one may.
    public let state: AccountState
    /// When its password was last changed (UTC ISO 8601), or nil when never since it was created.
    public let passwordChangedAt: String?

    /// Makes an account value; the store is what assigns ids.
    public init(id: Int64, email: String, createdAt: String, state: AccountState = .active, passwordChangedAt: String? = nil) {
        self.id = id
        self.email = email
        self.createdAt = createdAt
        self.state = state
        self.passwordChangedAt = passwordChangedAt
    }
}

/// Whether an account may sign in; stored as its raw value in the `state` column.
public enum AccountState: String, Sendable, Hashable, Codable, CaseIterable {
    /// It may sign in: the only state that may.
    case active
    /// An administrator disabled it (`signup disable`); its row and hash are kept.
    case disabled
    /// Created and waiting for an administrator to enable it.
    case pending

    /// The state a stored value names; a value no version of signup writes reads as `disabled`,
    /// so a hand-edited or hostile row can never sign in by it.
    public init(stored: String) {
        self = AccountState(rawValue: stored) ?? .disabled
    }
}

/// The columns of `account` that may leave the store: never the hash.
enum AccountRow {
    /// Accounts in id order, each column read safely (``SafeColumn``): id, email, created_at,
    /// state (as stored: the reader takes it as ``AccountState/init(stored:)`` does),
    /// password_changed_at (NULL stays NULL); only those ``inState(_:_:)`` `?1`, unless it is NULL.
    /// `hasStates` is false on a database read before its `v3-account-state` migration.
    static func select(hasStates: Bool) -> String {
        let state = hasStates ? SafeColumn.text("state") : "'active'"
        let changed = hasStates ? "CAST(password_changed_at AS TEXT)" : "NULL"
        return "SELECT \(SafeColumn.id) AS id, \(SafeColumn.text("email")) AS email, "
            + "\(SafeColumn.text("created_at")) AS created_at, \(state) AS state, \(changed) AS password_changed_at "
            + "FROM account WHERE ?1 IS NULL OR \(inState(state, "?1")) ORDER BY account.id"
    }

    /// SQL both backends run, true when the stored state `stored` (a text expression that is never
    /// NULL, compared byte for byte) reads as the state `wanted` names the way
    /// ``AccountState/init(stored:)`` reads it: a value no version of signup writes (`locked`,
    /// `Active`, empty) is `disabled`. Listing filters on this, so `list --state disabled` lists
    /// every row `list` shows as disabled. An account in the state asked for passes at the first
    /// comparison: a million rows cost what `state = ?1` cost.
    static func inState(_ stored: String, _ wanted: String) -> String {
        let written = AccountState.allCases.filter { $0 != .disabled }.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        return "(\(stored) = \(wanted) OR (\(wanted) = '\(AccountState.disabled.rawValue)' AND \(stored) NOT IN (\(written))))"
    }
}

/// Columns as another program may have filled them: NULL, a number, bytes that are not UTF-8.
///
/// Every column is read as the type the query asks SQLite to cast it to, so what a hostile file
/// holds arrives as an integer or as text, never as a surprise: SQLite casts, and text that is
/// not UTF-8 is decoded with replacement characters.
enum SafeColumn {
    static let id = "IFNULL(CAST(id AS INTEGER), 0)"

    /// The stored hash, or "" (an unusable hash) when it holds a NUL byte: read as C text, a
    /// well-formed hash followed by a NUL and anything was taken for the hash alone.
    static let hash = "CASE WHEN instr(CAST(password_hash AS BLOB), x'00') > 0 THEN '' ELSE \(text("password_hash")) END"

    static func text(_ column: String) -> String {
        "IFNULL(CAST(\(column) AS TEXT), '')"
    }
}
