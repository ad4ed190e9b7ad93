import AccountStore
import Foundation
import Testing

@Suite("Concurrent writers")
struct ConcurrencyTests {
    @Test("two stores signing up the same email at once: one created, one taken, never a lock error", arguments: Backend.all)
    func sameEmailRace(backend: Backend) throws {
        try backend.withFreshLocation { location throws in
            let stores = ThreadOwned([try location.openForWriting(), try location.openForWriting()])
            let rounds = 100
            for round in 0..<rounds {
                let outcomes = Collected<Result<Int64, StoreError>>()
                runConcurrently(2) { index in
                    // Vary the case so the race is on the key, not the text.
                    let email = index == 0 ? "user\(round)@example.com" : "User\(round)@Example.com"
                    outcomes.append(Result { () throws(StoreError) in
                        try stores.value[index].create(email: email, passwordHash: fakeHash).id
                    })
                }
                let created = outcomes.all.filter { if case .success = $0 { true } else { false } }
                let taken = outcomes.all.filter { $0 == .failure(.emailTaken) }
                #expect(created.count == 1 && taken.count == 1, "round \(round): \(outcomes.all)")
            }
            #expect(try stores.value[0].collected().count == rounds)
            #expect(try stores.value[1].collected().count == rounds)
        }
    }

    @Test("many stores opening a new database together and inserting different emails: all land", arguments: Backend.all)
    func manyWriters(backend: Backend) throws {
        try backend.withFreshLocation { location throws in
            let writers = 8
            let perWriter = 25
            let failures = Collected<String>()
            runConcurrently(writers) { writer in
                do throws(StoreError) {
                    let store = try location.openForWriting()
                    for number in 0..<perWriter {
                        _ = try store.create(email: "w\(writer)-n\(number)@example.com", passwordHash: fakeHash)
                    }
                } catch {
                    failures.append("writer \(writer): \(error)")
                }
            }
            #expect(failures.all.isEmpty)
            let accounts = try location.openForWriting().collected()
            #expect(accounts.count == writers * perWriter)
            #expect(Set(accounts.map(\.email)).count == writers * perWriter)
            #expect(accounts.map(\.id) == accounts.map(\.id).sorted())
        }
    }

    @Test("a reader and writers share the store", arguments: Backend.all)
    func readersWhileWriting(backend: Backend) throws {
        try backend.withFreshLocation { location throws in
            let writer = ThreadOwned(try location.openForWriting())
            let reader = ThreadOwned(try #require(try location.openExisting()))
            let failures = Collected<String>()
            runConcurrently(2) { index in
                do throws(StoreError) {
                    for number in 0..<50 {
                        if index == 0 {
                            _ = try writer.value.create(email: "n\(number)@example.com", passwordHash: fakeHash)
                        } else {
                            _ = try reader.value.collected()
                        }
                    }
                } catch {
                    failures.append("\(index): \(error)")
                }
            }
            #expect(failures.all.isEmpty)
            #expect(try reader.value.collected().count == 50)
        }
    }
}
