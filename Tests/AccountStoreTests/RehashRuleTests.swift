import AccountStore
import Foundation
import SignupCore
import Testing

/// When `verify` makes a matching hash again with the policy's costs: only when nothing gets
/// cheaper. `list --count-old-hashes` counts by the same rule, in both stores.
@Suite("Hash upgrades never weaken a hash")
struct RehashRuleTests {
    /// A well-formed Argon2id PHC string with these costs (its salt and hash are stand-ins).
    static func stored(m: Int, t: Int, p: Int = 1) -> String {
        "$argon2id$v=19$m=\(m),t=\(t),p=\(p)$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g"
    }

    static func costs(m: Int, t: Int, p: Int = 1) -> PasswordPolicy.Argon2Costs {
        .init(memoryKiB: m, iterations: t, parallelism: p)
    }

    /// OWASP's Argon2id settings of equal strength (m in KiB, t; all p=1).
    static let owaspEquivalents = [(47104, 1), (19456, 2), (12288, 3), (9216, 4), (7168, 5)]

    @Test("a hash at one of OWASP's equivalent settings is never made again at another")
    func equivalentSettingsAreLeftAlone() {
        for (storedM, storedT) in Self.owaspEquivalents {
            for (policyM, policyT) in Self.owaspEquivalents {
                #expect(!PasswordHasher.needsRehash(Self.stored(m: storedM, t: storedT), for: Self.costs(m: policyM, t: policyT)),
                        "m=\(storedM), t=\(storedT) was upgraded to m=\(policyM), t=\(policyT)")
            }
        }
    }

    @Test("against the default policy (m=19456, t=2, p=1)", arguments: [
        (4096, 1, 1, true),       // less of both
        (19456, 1, 1, true),      // the same memory, fewer passes
        (8192, 2, 1, true),       // less memory, the same passes
        (4096, 1, 16, true),      // lanes do not keep a weak hash from its upgrade
        (19456, 2, 1, false),     // the policy's own
        (19456, 2, 4, false),     // lanes alone are no reason
        (65536, 1, 1, false),     // 3.4 times the memory: the policy's hash would need less
        (262144, 1, 16, false),   // 13.5 times the memory
        (47104, 1, 1, false),     // OWASP's equal at t=1
        (12288, 3, 1, false),     // less memory, more passes
        (32768, 3, 1, false),     // more of both
    ])
    func againstTheDefault(m: Int, t: Int, p: Int, upgraded: Bool) {
        #expect(PasswordHasher.needsRehash(Self.stored(m: m, t: t, p: p), for: .standard) == upgraded)
    }

    @Test("a policy that asks for more of both upgrades every hash below it in both, and only those")
    func aDearerPolicy() {
        let policy = Self.costs(m: 47104, t: 5)
        for (m, t) in Self.owaspEquivalents {
            #expect(PasswordHasher.needsRehash(Self.stored(m: m, t: t), for: policy), "m=\(m), t=\(t)")
        }
        #expect(!PasswordHasher.needsRehash(Self.stored(m: 65536, t: 1), for: policy))
        #expect(!PasswordHasher.needsRehash(Self.stored(m: 47104, t: 6), for: policy))
    }

    @Test("a hash signup cannot check is never counted as one to upgrade", arguments: [
        "$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW",
        "$argon2i$v=19$m=4096,t=1,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
        "$argon2id$v=16$m=4096,t=1,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
        "",
    ])
    func unreadableHashes(phc: String) {
        #expect(!PasswordHasher.needsRehash(phc, for: Self.costs(m: 1 << 20, t: 64)))
    }

    @Test("list --count-old-hashes counts by the same rule, in both stores", arguments: Backend.all)
    func countingFollowsTheRule(backend: Backend) throws {
        let hashes = [Self.stored(m: 4096, t: 1), Self.stored(m: 19456, t: 1), Self.stored(m: 65536, t: 1),
                      Self.stored(m: 262144, t: 1, p: 16), Self.stored(m: 12288, t: 3), Self.stored(m: 19456, t: 2, p: 4)]
        try backend.withFreshLocation { location throws in
            let store = try location.openForWriting()
            for (number, phc) in hashes.enumerated() {
                _ = try store.create(email: "n\(number)@example.com", passwordHash: try PasswordHash(parsing: phc))
            }
            #expect(try store.countHashes(weakerThan: .standard) == 2)
            #expect(try store.countHashes(weakerThan: Self.costs(m: 262144, t: 3)) == hashes.count)
        }
    }
}
