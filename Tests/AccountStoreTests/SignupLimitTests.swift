import AccountStore
import Foundation
import SignupCore
import Testing

/// A public sign-up's account: created pending, with its origin, within limits the store counts,
/// so that they hold for every process at once. Both stores.
@Suite("Public sign-up limits in the store")
struct SignupLimitTests {
    static let hash = Result { try PasswordHasher.hash(Secret("Some-Password-1")) }

    @Test("accounts from one client stop at its limit; others still get theirs until the overall limit", arguments: Backend.all)
    func limits(backend: Backend) throws {
        let hash = try Self.hash.get()
        let limits = SignupLimits(windowSeconds: 3600, perClient: 2, overall: 3)
        try backend.withFreshLocation { location in
            let store = try location.openForWriting()
            let now = Date()
            let first = try store.createPending(email: "a1@example.com", passwordHash: hash, at: now, origin: "192.0.2.1", limits: limits, whenLocked: {})
            #expect(first.state == .pending)
            _ = try store.createPending(email: "a2@example.com", passwordHash: hash, at: now, origin: "192.0.2.1", limits: limits, whenLocked: {})
            #expect {
                try store.createPending(email: "a3@example.com", passwordHash: hash, at: now, origin: "192.0.2.1", limits: limits, whenLocked: {})
            } throws: { error in
                guard case .limitReached(let refusal) = error as? StoreError else { return false }
                return refusal == LimitRefusal(scope: .perClient, counted: .accounts, purpose: .signUp, windowSeconds: 3600)
                    && refusal.message.contains("your address") && !refusal.message.contains("192.0.2.1")
            }
            _ = try store.createPending(email: "b1@example.com", passwordHash: hash, at: now, origin: "198.51.100.7", limits: limits, whenLocked: {})
            #expect {
                try store.createPending(email: "c1@example.com", passwordHash: hash, at: now, origin: "203.0.113.9", limits: limits, whenLocked: {})
            } throws: { error in
                guard case .limitReached(let refusal) = error as? StoreError else { return false }
                return refusal.scope == .overall && refusal.counted == .accounts && !refusal.message.contains("your address")
            }
            // Accounts an administrator creates do not count, and are not pending.
            _ = try store.create(email: "admin-made@example.com", passwordHash: hash)
            // The window moves on: an hour later the same client may sign up again.
            let later = now.addingTimeInterval(3601)
            _ = try store.createPending(email: "a4@example.com", passwordHash: hash, at: later, origin: "192.0.2.1", limits: limits, whenLocked: {})
            let accounts = try store.collected()
            #expect(accounts.map(\.email) == ["a1@example.com", "a2@example.com", "b1@example.com", "admin-made@example.com", "a4@example.com"])
            #expect(accounts.map(\.state) == [.pending, .pending, .pending, .active, .pending])
        }
    }

    @Test("mails of public sessions stop at 3 per account the limits allow, per client and overall, within the window", arguments: Backend.all)
    func mailLimits(backend: Backend) throws {
        let limits = SignupLimits(windowSeconds: 3600, perClient: 1, overall: 2)
        try backend.withFreshLocation { location in
            let store = try location.openForWriting()
            let now = Date()
            for n in 1...3 { #expect(try store.recordMail(origin: "192.0.2.1", purpose: .signUp, toEmail: "v\(n)@example.com", at: now, limits: limits) == nil) }
            #expect {
                try store.recordMail(origin: "192.0.2.1", purpose: .signUp, toEmail: "v4@example.com", at: now, limits: limits)
            } throws: { error in
                guard case .limitReached(let refusal) = error as? StoreError else { return false }
                return refusal == LimitRefusal(scope: .perClient, counted: .mails, purpose: .signUp, windowSeconds: 3600)
                    && refusal.message.contains("from your address") && !refusal.message.contains("192.0.2.1")
            }
            for n in 1...3 { _ = try store.recordMail(origin: "198.51.100.7", purpose: .signUp, toEmail: "w\(n)@example.com", at: now, limits: limits) }
            #expect {
                try store.recordMail(origin: "203.0.113.9", purpose: .signUp, toEmail: "x@example.com", at: now, limits: limits)
            } throws: { error in
                guard case .limitReached(let refusal) = error as? StoreError else { return false }
                return refusal.scope == .overall && refusal.counted == .mails && !refusal.message.contains("your address")
            }
            // A refused mail was not counted, and the window moves on.
            #expect(try store.recordMail(origin: "192.0.2.1", purpose: .signUp, toEmail: "y@example.com", at: now.addingTimeInterval(3601), limits: limits) == nil)
        }
    }

    @Test("a sign-up and a reset spend separate mail budgets, per client and overall; the reset's refusal says so", arguments: Backend.all)
    func separateMailBudgets(backend: Backend) throws {
        let limits = SignupLimits(windowSeconds: 3600, perClient: 1, overall: 2)
        try backend.withFreshLocation { location in
            let store = try location.openForWriting()
            let now = Date()
            for n in 1...3 { _ = try store.recordMail(origin: "192.0.2.1", purpose: .signUp, toEmail: "s\(n)@example.com", at: now, limits: limits) }
            #expect(throws: StoreError.limitReached(LimitRefusal(scope: .perClient, counted: .mails, purpose: .signUp, windowSeconds: 3600))) {
                try store.recordMail(origin: "192.0.2.1", purpose: .signUp, toEmail: "s4@example.com", at: now, limits: limits)
            }
            // The sign-up's budget is spent; the reset's is whole, and the other way round.
            for n in 1...3 { #expect(try store.recordMail(origin: "192.0.2.1", purpose: .reset, toEmail: "r\(n)@example.com", at: now, limits: limits) == nil) }
            #expect {
                try store.recordMail(origin: "192.0.2.1", purpose: .reset, toEmail: "r4@example.com", at: now, limits: limits)
            } throws: { error in
                guard case .limitReached(let refusal) = error as? StoreError else { return false }
                return refusal == LimitRefusal(scope: .perClient, counted: .mails, purpose: .reset, windowSeconds: 3600)
                    && refusal.message.contains("for password resets") && !refusal.message.contains("sign-up")
            }
            // Overall: 6 mails of each purpose.
            for n in 1...3 { _ = try store.recordMail(origin: "198.51.100.7", purpose: .signUp, toEmail: "t\(n)@example.com", at: now, limits: limits) }
            #expect(throws: StoreError.limitReached(LimitRefusal(scope: .overall, counted: .mails, purpose: .signUp, windowSeconds: 3600))) {
                try store.recordMail(origin: "203.0.113.9", purpose: .signUp, toEmail: "u@example.com", at: now, limits: limits)
            }
            #expect(try store.recordMail(origin: "203.0.113.9", purpose: .reset, toEmail: "u@example.com", at: now, limits: limits) == nil)
        }
    }

    @Test("mails to one account stop at its bound whatever the clients, the spelling and the process, and still count for the client", arguments: Backend.all)
    func mailsPerAccount(backend: Backend) throws {
        let limits = SignupLimits(windowSeconds: 3600, perClient: 2, overall: 100, accountWindowSeconds: 7200, mailsPerAccount: 2)
        let withheld = LimitRefusal(scope: .perAccount, counted: .mails, purpose: .reset, windowSeconds: 7200)
        try backend.withFreshLocation { location in
            let now = Date()
            #expect(try location.openForWriting().recordMail(origin: "192.0.2.1", purpose: .reset, toEmail: "victim@example.com", at: now, limits: limits) == nil)
            #expect(try location.openForWriting().recordMail(origin: "192.0.2.2", purpose: .reset, toEmail: "Victim@EXAMPLE.com", at: now, limits: limits) == nil)
            for origin in ["192.0.2.3", "192.0.2.4", "192.0.2.3"] {
                #expect(try location.openForWriting().recordMail(origin: origin, purpose: .reset, toEmail: "victim@example.com", at: now, limits: limits) == withheld)
            }
            // Another account, and the sign-up's budget of the same account, are whole.
            let store = try location.openForWriting()
            #expect(try store.recordMail(origin: "192.0.2.5", purpose: .reset, toEmail: "other@example.com", at: now, limits: limits) == nil)
            #expect(try store.recordMail(origin: "192.0.2.5", purpose: .signUp, toEmail: "victim@example.com", at: now, limits: limits) == nil)
            // The mails withheld counted against their client: 192.0.2.3 spent 2 of its 6 (2 accounts × 3); 4 more, then none.
            for n in 1...4 { _ = try store.recordMail(origin: "192.0.2.3", purpose: .reset, toEmail: "n\(n)@example.com", at: now, limits: limits) }
            #expect(throws: StoreError.limitReached(LimitRefusal(scope: .perClient, counted: .mails, purpose: .reset, windowSeconds: 3600))) {
                try store.recordMail(origin: "192.0.2.3", purpose: .reset, toEmail: "n5@example.com", at: now, limits: limits)
            }
            // The account's window moves on: two hours later it gets mail again.
            #expect(try store.recordMail(origin: "192.0.2.9", purpose: .reset, toEmail: "victim@example.com", at: now.addingTimeInterval(7201), limits: limits) == nil)
        }
    }

    @Test("codes checked for one account stop at its bound, across clients, spellings and connections; each purpose its own", arguments: Backend.all)
    func codesPerAccount(backend: Backend) throws {
        let limits = SignupLimits(accountWindowSeconds: 86400, codesPerAccount: 10)
        let refused = LimitRefusal(scope: .perAccount, counted: .codes, purpose: .reset, windowSeconds: 86400)
        try backend.withFreshLocation { location in
            let now = Date()
            for n in 1...10 {
                let spelling = n.isMultiple(of: 2) ? "VICTIM@example.com" : "victim@Example.COM"
                #expect(try location.openForWriting().admitCode(forEmail: spelling, purpose: .reset, at: now, limits: limits) == nil)
            }
            let store = try location.openForWriting()
            #expect(try store.admitCode(forEmail: "victim@example.com", purpose: .reset, at: now, limits: limits) == refused)
            #expect(try store.admitCode(forEmail: "victim@example.com", purpose: .reset, at: now.addingTimeInterval(3600), limits: limits) == refused)
            #expect(try store.admitCode(forEmail: "victim@example.com", purpose: .signUp, at: now, limits: limits) == nil)
            #expect(try store.admitCode(forEmail: "other@example.com", purpose: .reset, at: now, limits: limits) == nil)
            // A day later the account's codes are checked again.
            #expect(try store.admitCode(forEmail: "victim@example.com", purpose: .reset, at: now.addingTimeInterval(86401), limits: limits) == nil)
        }
    }

    @Test("concurrent codes for one account never pass its bound together", arguments: Backend.all)
    func concurrentCodes(backend: Backend) throws {
        let limits = SignupLimits(codesPerAccount: 5)
        try backend.withFreshLocation { location in
            _ = try location.openForWriting()  // migrated once, before the race
            let admitted = Counter()
            DispatchQueue.concurrentPerform(iterations: 12) { _ in
                do {
                    if try location.openForWriting().admitCode(forEmail: "victim@example.com", purpose: .reset, at: Date(), limits: limits) == nil { admitted.add() }
                } catch {
                    Issue.record("\(error)")
                }
            }
            #expect(admitted.value == 5)
        }
    }

    @Test("the account's email as stored, whatever spelling of its key is asked", arguments: Backend.all)
    func storedEmail(backend: Backend) throws {
        let hash = try Self.hash.get()
        try backend.withFreshLocation { location in
            let store = try location.openForWriting()
            _ = try store.create(email: "Bob.Smith@Bücher.de", passwordHash: hash)
            #expect(try store.storedEmail(forEmail: "bob.smith@XN--BCHER-KVA.DE") == "Bob.Smith@Bücher.de")
            #expect(try store.storedEmail(forEmail: "BOB.SMITH@bücher.de") == "Bob.Smith@Bücher.de")
            #expect(try store.storedEmail(forEmail: "bob.smith@buecher.de") == nil)
        }
    }

    @Test("the documented chance of guessing a code at one account in 30 days, at the defaults")
    func guessChance() throws {
        let defaults = SignupLimits()
        // 10 codes a day for 30 days, each 1 in 1,000,000: 300 guesses.
        #expect(abs(defaults.guessChance() - 0.000_299_955) < 0.000_000_001)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        for document in ["docs/public-signup.md", "SECURITY.md"] {
            let text = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
            #expect(text.contains("0.03 %"), "\(document) gives the chance")
        }
    }

    @Test("a refused sign-up stores nothing, and a taken email is still taken", arguments: Backend.all)
    func refusalsStoreNothing(backend: Backend) throws {
        let hash = try Self.hash.get()
        let limits = SignupLimits(windowSeconds: 60, perClient: 1, overall: 10)
        try backend.withFreshLocation { location in
            let store = try location.openForWriting()
            _ = try store.createPending(email: "x@example.com", passwordHash: hash, at: Date(), origin: "192.0.2.1", limits: limits, whenLocked: {})
            #expect(throws: StoreError.emailTaken) {
                try store.createPending(email: "X@example.com", passwordHash: hash, at: Date(), origin: "192.0.2.2", limits: limits, whenLocked: {})
            }
            #expect((try? store.createPending(email: "y@example.com", passwordHash: hash, at: Date(), origin: "192.0.2.1", limits: limits, whenLocked: {})) == nil)
            #expect(try store.collected().map(\.email) == ["x@example.com"])
        }
    }

    @Test("concurrent sign-ups from one client never pass its limit together", arguments: Backend.all)
    func concurrent(backend: Backend) throws {
        let hash = try Self.hash.get()
        let limits = SignupLimits(windowSeconds: 3600, perClient: 3, overall: 100)
        try backend.withFreshLocation { location in
            _ = try location.openForWriting()  // migrated once, before the race
            let created = Counter()
            DispatchQueue.concurrentPerform(iterations: 12) { index in
                guard let store = try? location.openForWriting() else { return }
                if (try? store.createPending(email: "r\(index)@example.com", passwordHash: hash, at: Date(), origin: "192.0.2.1",
                                            limits: limits, whenLocked: {})) != nil { created.add() }
            }
            #expect(created.value == 3)
            #expect(try location.openForWriting().collected().count == 3)
        }
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }
}
