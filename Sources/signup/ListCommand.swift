import AccountStore
import ArgumentParser
import Foundation

/// `signup list`: the accounts, never their hashes.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the accounts (never their password hashes).")

    @Option(help: ArgumentHelp("The account database.", valueName: "path"))
    var db: String?

    @Flag(help: "Print one JSON array on standard output.")
    var json = false

    func run() throws {
        let location = try StoreOption.location(given: db)
        var accounts: [Account] = []
        do {
            try location.openExisting()?.streamAccounts { accounts.append($0); return true }
        } catch {
            IO.write("error: \(error.description)\n", to: 2)
            throw ExitCode(ExitStatus.storage)
        }
        if json {
            let items = accounts.map { JSONText.object([("id", $0.id), ("email", $0.email), ("created_at", $0.createdAt)]) }
            IO.write("[" + items.joined(separator: ",") + "]\n", to: 1)
            return
        }
        if accounts.isEmpty {
            IO.write("No accounts in \(location)\n", to: 2)
            return
        }
        let idWidth = max(2, accounts.map { String($0.id).count }.max() ?? 0)
        let emailWidth = max(5, accounts.map(\.email.count).max() ?? 0)
        func row(_ id: String, _ email: String, _ created: String) -> String {
            id.padding(toLength: idWidth, withPad: " ", startingAt: 0) + "  "
                + email + String(repeating: " ", count: emailWidth - email.count) + "  " + created + "\n"
        }
        var text = row("ID", "EMAIL", "CREATED")
        for account in accounts { text += row(String(account.id), account.email, account.createdAt) }
        IO.write(text, to: 1)
    }
}
