import Foundation

/// A stored account, without its password hash.
public struct Account: Sendable, Equatable, Codable {
    /// The row id, assigned by the database.
    public let id: Int64
    /// The email as entered: trimmed and in Unicode NFC.
    public let email: String
    /// When the account was created, in UTC ISO 8601 (`2026-11-22T02:35:12Z`).
    public let createdAt: String

    /// Makes an account value; the store is what assigns ids.
    public init(id: Int64, email: String, createdAt: String) {
        self.id = id
        self.email = email
        self.createdAt = createdAt
    }
}

/// The columns of `account` that may leave the store: never the hash.
enum AccountRow {
    /// Every account in id order, each column read safely (``SafeColumn``): id, email, created_at.
    static let selectAll = "SELECT \(SafeColumn.id) AS id, \(SafeColumn.text("email")) AS email, "
        + "\(SafeColumn.text("created_at")) AS created_at FROM account ORDER BY account.id"
}

/// Columns as another program may have filled them: NULL, a number, bytes that are not UTF-8.
///
/// GRDB stops the process when a row's value cannot become the Swift type asked for, so a
/// hostile file must never reach it unconverted: SQLite casts, and text that is not UTF-8
/// is decoded with replacement characters.
enum SafeColumn {
    static let id = "IFNULL(CAST(id AS INTEGER), 0)"

    /// The stored hash, or "" (an unusable hash) when it holds a NUL byte: read as C text, a
    /// well-formed hash followed by a NUL and anything was taken for the hash alone.
    static let hash = "CASE WHEN instr(CAST(password_hash AS BLOB), x'00') > 0 THEN '' ELSE \(text("password_hash")) END"

    static func text(_ column: String) -> String {
        "IFNULL(CAST(\(column) AS TEXT), '')"
    }
}
