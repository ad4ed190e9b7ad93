import AccountStore
import Foundation
import Testing

@Suite("Concurrent writers")
struct ConcurrencyTests {
    @Test("two stores signing up the same email at once: one created, one taken, never a lock error")
    func sameEmailRace() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            let stores = [try AccountStore(path: path), try AccountStore(path: path)]
            let rounds = 100
            for round in 0..<rounds {
                let outcomes = Collected<Result<Int64, StoreError>>()
                runConcurrently(2) { index in
                    // Vary the case so the race is on the key, not the text.
                    let email = index == 0 ? "user\(round)@example.com" : "User\(round)@Example.com"
                    outcomes.append(Result { () throws(StoreError) in
                        try stores[index].create(email: email, passwordHash: fakeHash).id
                    })
                }
                let created = outcomes.all.filter { if case .success = $0 { true } else { false } }
                let taken = outcomes.all.filter { $0 == .failure(.emailTaken) }
                #expect(created.count == 1 && taken.count == 1, "round \(round): \(outcomes.all)")
            }
            #expect(try stores[0].accounts().count == rounds)
            #expect(try stores[1].accounts().count == rounds)
        }
    }

    @Test("many stores opening a new database together and inserting different emails: all land")
    func manyWriters() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("new/accounts.sqlite")
            let writers = 8
            let perWriter = 25
            let failures = Collected<String>()
            runConcurrently(writers) { writer in
                do throws(StoreError) {
                    let store = try AccountStore(path: path)
                    for number in 0..<perWriter {
                        _ = try store.create(email: "w\(writer)-n\(number)@example.com", passwordHash: fakeHash)
                    }
                } catch {
                    failures.append("writer \(writer): \(error)")
                }
            }
            #expect(failures.all.isEmpty)
            let accounts = try AccountStore(path: path).accounts()
            #expect(accounts.count == writers * perWriter)
            #expect(Set(accounts.map(\.email)).count == writers * perWriter)
            #expect(accounts.map(\.id) == accounts.map(\.id).sorted())
        }
    }

    @Test("a reader and writers share the file")
    func readersWhileWriting() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            let writer = try AccountStore(path: path)
            let reader = try #require(try AccountStore.openExisting(path: path))
            let failures = Collected<String>()
            runConcurrently(2) { index in
                do throws(StoreError) {
                    for number in 0..<50 {
                        if index == 0 {
                            _ = try writer.create(email: "n\(number)@example.com", passwordHash: fakeHash)
                        } else {
                            _ = try reader.accounts()
                        }
                    }
                } catch {
                    failures.append("\(index): \(error)")
                }
            }
            #expect(failures.all.isEmpty)
            #expect(try reader.accounts().count == 50)
        }
    }
}
