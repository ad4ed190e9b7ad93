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
                guard case .limitReached(let reason) = error as? StoreError else { return false }
                return reason.contains("your address") && !reason.contains("192.0.2.1")
            }
            _ = try store.createPending(email: "b1@example.com", passwordHash: hash, at: now, origin: "198.51.100.7", limits: limits, whenLocked: {})
            #expect {
                try store.createPending(email: "c1@example.com", passwordHash: hash, at: now, origin: "203.0.113.9", limits: limits, whenLocked: {})
            } throws: { error in
                guard case .limitReached(let reason) = error as? StoreError else { return false }
                return !reason.contains("your address")
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
            for _ in 1...3 { try store.recordMail(origin: "192.0.2.1", at: now, limits: limits) }
            #expect {
                try store.recordMail(origin: "192.0.2.1", at: now, limits: limits)
            } throws: { error in
                guard case .limitReached(let reason) = error as? StoreError else { return false }
                return reason.contains("from your address") && !reason.contains("192.0.2.1")
            }
            for _ in 1...3 { try store.recordMail(origin: "198.51.100.7", at: now, limits: limits) }
            #expect {
                try store.recordMail(origin: "203.0.113.9", at: now, limits: limits)
            } throws: { error in
                guard case .limitReached(let reason) = error as? StoreError else { return false }
                return !reason.contains("your address")
            }
            // A refused mail was not counted, and the window moves on.
            try store.recordMail(origin: "192.0.2.1", at: now.addingTimeInterval(3601), limits: limits)
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
