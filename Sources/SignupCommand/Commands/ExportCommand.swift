import AccountStore
import ArgumentParser
import Glibc
import SignupCore
import WizardTerminal

/// `signup export`: every account whole, for `signup import` into another database.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: About.english("Write every account whole (its password hash, state, origin and dates) to standard output."),
        discussion: About.english("""
            JSON Lines: one object a line with the keys email, password_hash, state, origin, \
            created_at and password_changed_at (origin and password_changed_at may be null), in the \
            order the accounts were created. signup import of that output creates each account as it \
            was, state and dates included; with --update it puts them back on accounts already there. \
            --csv writes the same columns as CSV with a header line, for reading elsewhere. The \
            accounts are read in one transaction: the output is one moment's accounts. It holds \
            password hashes: keep it as private as the database (umask 077). A count goes to \
            standard error at the end, and at a terminal the count so far as it goes.
            Exit codes: 0 exported, 64 usage, 69 there is no database at that place, 74 storage \
            failure or standard output failed.
            """)
    )

    @Option(help: About.databaseHelp, completion: .file())
    var db: String?

    @Option(help: About.configHelp, completion: .file())
    var config: String?

    @Flag(help: .english("Write CSV with a header line instead of JSON Lines."))
    var csv = false

    /// The CSV header, the JSON keys in their order.
    static let columns = ["email", "password_hash", "state", "origin", "created_at", "password_changed_at"]

    func run() throws {
        let location = try Settings.load(config: config).location(given: db).value
        let store = try AccountAccess.existingStore(at: location)
        let csv = self.csv
        let progress = isTerminal(2)
        var buffer = csv ? Self.columns.joined(separator: ",") + "\r\n" : ""
        var count = 0
        do throws(StoreError) {
            try store.streamWholeAccounts { account in
                buffer += csv ? Self.csvLine(account) : Self.jsonLine(account)
                count += 1
                if buffer.utf8.count >= 64 * 1024 {
                    IO.write(buffer, to: 1)
                    buffer = ""
                    if progress { IO.write("\r" + Self.counted(count) + "   ", to: 2) }
                }
                return IO.outputFailure == nil
            }
        } catch {
            IO.write(buffer, to: 1)
            throw AccountAccess.failure(error)
        }
        IO.write(buffer, to: 1)
        if let failure = IO.outputFailure {
            IO.write("error: " + Translation.signup(Translation.english("cannot write to standard output: {reason}", ["reason": "\(failure)"])) + "\n", to: 2)
            throw ExitCode(ExitStatus.unwritable)
        }
        IO.write((progress ? "\r" : "") + Self.counted(count) + (progress ? "   " : "") + "\n", to: 2)
    }

    private static func counted(_ count: Int) -> String {
        Translation.signup(Translation.english("Exported {count} accounts", ["count": "\(count)"]))
    }

    /// One JSON object and its newline: `signup import` reads it back whole.
    static func jsonLine(_ account: ExportedAccount) -> String {
        let optional = { (text: String?) in text.map(JSONText.string) ?? "null" }
        return "{\"email\":" + JSONText.string(account.email) + ",\"password_hash\":" + JSONText.string(account.passwordHash)
            + ",\"state\":\"" + account.state.rawValue + "\",\"origin\":" + optional(account.origin)
            + ",\"created_at\":" + JSONText.string(account.createdAt) + ",\"password_changed_at\":" + optional(account.passwordChangedAt) + "}\n"
    }

    /// One CSV record (RFC 4180: every field quoted, a quote doubled), ended by CRLF; null is an empty field.
    static func csvLine(_ account: ExportedAccount) -> String {
        let fields = [account.email, account.passwordHash, account.state.rawValue, account.origin ?? "", account.createdAt,
                      account.passwordChangedAt ?? ""]
        return fields.map { field in
            field.isEmpty ? "" : "\"" + field.replacing("\"", with: "\"\"") + "\""
        }.joined(separator: ",") + "\r\n"
    }
}
