import Foundation
import Testing

/// Running an import again never repeats its work: rows already stored are looked up before any
/// hashing and reported in one line.
@Suite struct ImportResumeTests {
    typealias Store = AccountLifeCommandTests.Store

    /// Argon2 at 256 MiB a hash: a run that hashes even one row peaks above it.
    static let costlyPolicy = #"{"base": "standard", "argon2": {"memoryKiB": 262144, "iterations": 1, "parallelism": 1}}"#

    /// Every stored hash, in id order, read by another program.
    static func hashes(_ fixture: AccountLifeCommandTests.Fixture) -> [String] {
        if let pg = fixture.pg { return pg.psql("SELECT password_hash FROM account ORDER BY id") }
        let script = "import sqlite3, sys; [print(r[0]) for r in sqlite3.connect(sys.argv[1]).execute('SELECT password_hash FROM account ORDER BY id')]"
        return tool(["python3", "-c", script, fixture.database]).stdout.split(separator: "\n").map(String.init)
    }

    /// Runs `signup arguments --db …` under GNU time; returns the run and its peak resident memory in KiB.
    static func measured(_ fixture: AccountLifeCommandTests.Fixture, _ arguments: [String]) -> (Run, peakKiB: Int) {
        let run = fixture.sandbox.run(arguments + ["--db", fixture.database], via: #"exec /usr/bin/time -f "peak %M" "$0" "$@""#)
        let peak = run.stderr.split(separator: "\n").last { $0.hasPrefix("peak ") }.flatMap { Int($0.dropFirst(5)) } ?? -1
        return (run, peak)
    }

    /// A second run of 1,000 stored rows hashed every one again (8 s to create nothing).
    @Test(arguments: Store.available)
    func aSecondRunHashesNoRowItFindsStored(store: Store) {
        let fixture = AccountLifeCommandTests.Fixture(store)
        let rows = ImportCountingTests.rows(40)
        let file = fixture.sandbox.file("rows.csv", Data((rows.joined(separator: "\n") + "\n").utf8))
        #expect(fixture.run(["import", file, "--policy-file", fixture.sandbox.cheapPolicy]).status == 0)
        let before = Self.hashes(fixture)
        let costly = fixture.sandbox.file("costly.json", Data(Self.costlyPolicy.utf8))
        for update in [[], ["--update"]] {
            let (again, peak) = Self.measured(fixture, ["import", file, "--policy-file", costly, "--json"] + update)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.json["taken"] as? Int == 40 && again.json["created"] as? Int == 0 && again.json["updated"] as? Int == 0, "\(again.stdout)")
            #expect(peak > 0 && peak < 128 * 1024, "\(update): peak \(peak) KiB: a 256 MiB Argon2 hash ran")
            // One line for all of them, none a row.
            let reports = again.stderr.split(separator: "\n").filter { !$0.hasPrefix("peak ") }
            #expect(reports == ["Already there, not changed: 40 (lines 2-41)"], "\(again.stderr)")
            #expect(Self.hashes(fixture) == before, "\(update): a stored hash was written again")
        }
        // With --update a row whose password is new is still changed, and only that one.
        var changed = rows
        changed[7] = "user6@example.com,New-Harbor-Tulip-6"
        let update = fixture.run(["import", fixture.sandbox.file("changed.csv", Data((changed.joined(separator: "\n") + "\n").utf8)),
                                  "--policy-file", fixture.sandbox.cheapPolicy, "--update", "--json"], secrets: ["New-Harbor-Tulip-6"])
        #expect(update.json["updated"] as? Int == 1 && update.json["taken"] as? Int == 39, "\(update.stdout)")
        #expect(update.stderr == "Already there, not changed: 39 (lines 2-7, 9-41)\n")
        let after = Self.hashes(fixture)
        #expect(after.indices.filter { after[$0] != before[$0] } == [7], "only user6 (id 8, after alice) has a new hash")
        #expect(fixture.verify("user6@example.com", "New-Harbor-Tulip-6") == 0)
    }
}
