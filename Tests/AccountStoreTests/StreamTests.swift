@testable import AccountStore
import Foundation
import Testing

/// `streamAccounts` hands rows over one at a time, in id order, without sorting the table first.
@Suite("Streaming accounts")
struct StreamTests {
    @Test("rows come in id order and the body can stop the stream")
    func orderAndStop() throws {
        try withTemporaryFolder { folder throws in
            let store = try AccountStore(path: folder.file("accounts.sqlite"))
            for number in 0..<5 { _ = try store.create(email: "n\(number)@example.com", passwordHash: fakeHash) }
            var seen: [Int64] = []
            try store.streamAccounts { seen.append($0.id); return seen.count < 2 }
            #expect(seen == [1, 2])
            #expect(try store.accounts().map(\.id) == [1, 2, 3, 4, 5])
        }
    }

    @Test("the list query walks the table in rowid order: no temporary sort that would read every row before the first")
    func queryPlanStreams() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            _ = try AccountStore(path: path)
            for sql in [AccountRow.select(hasStates: true), AccountRow.select(hasStates: false)] {
                // Unfiltered (NULL) and filtered by a state: both walk the table, neither sorts.
                for state in ["NULL", "'pending'"] {
                let plan = try sqliteRows(path, "EXPLAIN QUERY PLAN " + sql.replacingOccurrences(of: "?1", with: state)).joined(separator: "\n")
                #expect(plan.contains("SCAN account"), "\(plan)")
                #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
                }
            }
        }
    }
}
