import AccountStore
@testable import SignupCommand
import Glibc
import Testing

/// The audit log's lines (docs/audit-log.md) as `AuditLog` makes them; `Tests/integration/audit.sh`
/// reads the same lines back from a real rsyslogd.
@Suite struct AuditLogTests {
    let user = "alice (uid 1000)"

    @Test func everyChangeHasItsLineWithTheEmailLast() {
        let lines = [
            AuditLog.line(for: .created(email: "bob@example.com"), from: nil, by: user),
            AuditLog.line(for: .createdPending(email: "bob@example.com"), from: "203.0.113.7", by: user),
            AuditLog.line(for: .createdPending(email: "bob@example.com"), from: nil, by: user),
            AuditLog.line(for: .passwordChanged(email: "bob@example.com"), from: nil, by: user),
            AuditLog.line(for: .disabled(email: "bob@example.com"), from: nil, by: user),
            AuditLog.line(for: .enabled(email: "bob@example.com"), from: nil, by: user),
            AuditLog.line(for: .deleted(email: "bob@example.com"), from: nil, by: user),
            AuditLog.line(for: .hashUpgraded(email: "bob@example.com"), from: nil, by: user),
            AuditLog.line(for: .imported(created: 120, updated: 3, alreadyThere: 7, rejected: 2), from: nil, by: user),
        ]
        #expect(lines == [
            "account created by alice (uid 1000): bob@example.com",
            "pending account created from 203.0.113.7 by alice (uid 1000): bob@example.com",
            "pending account created by alice (uid 1000): bob@example.com",
            "password changed by alice (uid 1000): bob@example.com",
            "account disabled by alice (uid 1000): bob@example.com",
            "account enabled by alice (uid 1000): bob@example.com",
            "account deleted by alice (uid 1000): bob@example.com",
            "password hash upgraded by alice (uid 1000): bob@example.com",
            "accounts imported by alice (uid 1000): 120 created, 3 updated, 7 already there, 2 rejected",
        ])
    }

    @Test func refusalsStartWithTheAddressAndHaveTheirPriority() {
        // The limit's scope decides the words, never the sentence the stranger reads (in their language).
        let client = LimitRefusal(scope: .perClient, counted: .accounts, purpose: .signUp, windowSeconds: 3600)
        let overall = LimitRefusal(scope: .overall, counted: .mails, purpose: .reset, windowSeconds: 3600)
        let account = LimitRefusal(scope: .perAccount, counted: .codes, purpose: .reset, windowSeconds: 86400)
        let cases: [(AuditLog.Refusal, Int32, String)] = [
            (.rateLimit(client), LOG_WARNING, "client limit reached"),
            (.rateLimit(overall), LOG_WARNING, "overall limit reached"),
            (.rateLimit(account), LOG_WARNING, "account limit reached"),
            (.rateLimit(LimitRefusal(scope: .perClient, counted: .mails, purpose: .reset, windowSeconds: 60)), LOG_WARNING, "client limit reached"),
            (.emailTaken(email: "bob@example.com"), LOG_NOTICE, "email taken: bob@example.com"),
            (.idleTimeout(seconds: 60), LOG_WARNING, "no answer for 60 s"),
            (.sessionTimeUp, LOG_WARNING, "session time is up"),
            (.tooManyAttemptsAtOneAnswer, LOG_WARNING, "too many attempts at one answer"),
            (.tooManyAnswers, LOG_WARNING, "too many answers"),
            (.endedEarly(how: "input ended"), LOG_NOTICE, "session ended early: input ended"),
        ]
        for (refusal, priority, detail) in cases {
            let (got, line) = AuditLog.line(for: refusal, from: "2001:db8::7", by: user)
            #expect(got == priority)
            #expect(line == "public sign-up refused from 2001:db8::7 by alice (uid 1000): \(detail)")
        }
        #expect(AuditLog.line(for: .tooManyAnswers, from: nil, by: user).1 == "public sign-up refused by alice (uid 1000): too many answers")
    }

    @Test func aHostileEmailStaysOneBoundedLineAfterSignupsOwnWords() {
        let forged = "evil@example.com\nJan  1 00:00:00 host signup[1]: public sign-up refused from 192.0.2.66 by x (uid 0): x]\u{1B}[2J\u{202E}\r"
        let line = AuditLog.line(for: .disabled(email: forged + String(repeating: "é", count: 3000)), from: nil, by: user)
        #expect(line.hasPrefix("account disabled by alice (uid 1000): evil@example.com^JJan  1"))
        #expect(line.contains("x]^[[2J<U+202E>^M"))
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(line.hasSuffix("é..."))
        #expect(AuditLog.shown(forged + String(repeating: "é", count: 3000)).utf8.count <= AuditLog.emailBound)
        #expect(AuditLog.shown("bob@example.com") == "bob@example.com")
    }

    @Test func onlyAnIPAddressIsAClientAddress() {
        func address(_ value: String?, client: String? = nil) -> String? {
            var environment: [String: String] = [:]
            environment["SSH_CONNECTION"] = value
            environment["SSH_CLIENT"] = client
            return AuditLog.clientAddress(environment: environment)
        }
        #expect(address("203.0.113.7 50022 192.0.2.1 22") == "203.0.113.7")
        #expect(address("2001:db8::7 50022 2001:db8::1 22") == "2001:db8::7")
        #expect(address("::ffff:203.0.113.7 1 2 3") == "::ffff:203.0.113.7")
        #expect(address(nil, client: "198.51.100.9 50022 22") == "198.51.100.9")
        #expect(address(nil) == nil)
        for hostile in ["", " 203.0.113.7 1 2 3", "local", "unknown", "abc", "...", "1.2.3.4.5", "fe80::1%eth0", "203.0.113.7\n",
                        "203.0.113.7:22", "0x7f.1", String(repeating: "1", count: 80), "[2001:db8::7]"] {
            #expect(address(hostile) == nil, "\(hostile.debugDescription)")
        }
    }

    @Test func theFacilityIsAuthprivUnlessAuthIsNamed() {
        #expect(AuditLog.facility == .authpriv)
        #expect(SyslogFacility(rawValue: "authpriv") == .authpriv)
        #expect(SyslogFacility(rawValue: "auth") == .auth)
        #expect(SyslogFacility(rawValue: "local0") == nil)
        #expect(SyslogFacility(rawValue: "AUTH") == nil)
        #expect(SyslogFacility.authpriv.code == LOG_AUTHPRIV)
        #expect(SyslogFacility.auth.code == LOG_AUTH)
    }
}
