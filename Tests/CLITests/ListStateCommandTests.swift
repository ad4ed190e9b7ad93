import Foundation
import Testing

/// `list --state` finds the rows `list` shows in that state, whatever another program stored.
@Suite struct ListStateCommandTests {
    typealias Store = AccountLifeCommandTests.Store

    /// Sets `email`'s stored state to `state` (nil: NULL, PostgreSQL only) as another program would,
    /// past signup's CHECK and NOT NULL constraints.
    static func storeState(_ state: String?, of email: String, in fixture: AccountLifeCommandTests.Fixture) {
        if let pg = fixture.pg {
            pg.psql("ALTER TABLE account DROP CONSTRAINT IF EXISTS account_state_check; ALTER TABLE account ALTER COLUMN state DROP NOT NULL; "
                + "UPDATE account SET state = \(state.map { "'\($0)'" } ?? "NULL") WHERE email_key = '\(email)'")
        } else {
            let update = tool(["python3", "-c", """
                import os, sqlite3; db = sqlite3.connect(os.environ['DB']); db.execute('PRAGMA ignore_check_constraints = ON')
                db.execute('UPDATE account SET state = ? WHERE email_key = ?', (os.environ['S'], os.environ['E'])); db.commit()
                """], environment: ["DB": fixture.database, "S": state ?? "", "E": email])
            #expect(update.status == 0, "\(update.stderr)")
        }
    }

    @Test(arguments: Store.available)
    func aStateNoSignupWritesIsListedAsDisabledAndFoundAsDisabled(store: Store) {
        let fixture = AccountLifeCommandTests.Fixture(store)
        // An empty state on SQLite (whose NOT NULL another program cannot drop), NULL on PostgreSQL.
        let disabled = ["bob@example.com", "carol@example.com", "dave@example.com", "erin@example.com"]
        for email in disabled {
            #expect(fixture.run(["--no-interactive"], input: "\(email)\n\(goodPassword)\n\(goodPassword)\n").status == 0)
        }
        Self.storeState("locked", of: "bob@example.com", in: fixture)
        Self.storeState("Active", of: "carol@example.com", in: fixture)
        Self.storeState(store == .postgres ? nil : "", of: "dave@example.com", in: fixture)
        #expect(fixture.run(["disable", "erin@example.com"]).status == 0)

        let all = fixture.run(["list"]).stdout
        for email in disabled {
            #expect(all.contains("disabled  \(email)\n"), "\(all)")
        }
        #expect(!all.contains("locked") && !all.contains("Active"), "\(all)")

        #expect(fixture.listed(["--state", "disabled"]).compactMap { $0["email"] as? String } == disabled)
        #expect(fixture.listed(["--state", "disabled"]).compactMap { $0["state"] as? String } == Array(repeating: "disabled", count: disabled.count))
        let table = fixture.run(["list", "--state", "disabled"]).stdout.split(separator: "\n").dropFirst()
        #expect(table.map { String($0.split(separator: " ").last ?? "") } == disabled, "\(table)")
        #expect(fixture.listed(["--state", "active"]).compactMap { $0["email"] as? String } == ["alice@example.com"])
        #expect(fixture.run(["list", "--state", "active"]).stdout.split(separator: "\n").count == 2)
        #expect(fixture.listed(["--state", "pending"]).isEmpty)
    }
}
