import Foundation
import GRDB

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

/// One row of the `account` table.
struct AccountRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "account"

    var id: Int64?
    var email: String
    var emailKey: String
    var passwordHash: String
    var createdAt: String

    enum CodingKeys: String, CodingKey {
        case id
        case email
        case emailKey = "email_key"
        case passwordHash = "password_hash"
        case createdAt = "created_at"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let emailKey = Column(CodingKeys.emailKey)
        static let passwordHash = Column(CodingKeys.passwordHash)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// The columns of `account` that may leave the store: never the hash.
struct AccountRow: Decodable, FetchableRecord {
    static var columns: [any SQLSelectable] {
        [AccountRecord.Columns.id, Column(AccountRecord.CodingKeys.email), Column(AccountRecord.CodingKeys.createdAt)]
    }

    var id: Int64
    var email: String
    var createdAt: String

    enum CodingKeys: String, CodingKey {
        case id
        case email
        case createdAt = "created_at"
    }

    var account: Account { Account(id: id, email: email, createdAt: createdAt) }
}
