import AccountStore
@testable import SignupCommand
import Foundation
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

    @Test func aResetSaysWhatWasMailedAndAFailedMailFromWhere() {
        #expect(AuditLog.line(for: .resetCodeMailed(email: "bob@example.com"), from: "203.0.113.7", by: "reset (uid 999)")
            == "password reset code mailed from 203.0.113.7 by reset (uid 999): bob@example.com")
        #expect(AuditLog.line(for: .resetRefusalMailed(email: "bob@example.com"), from: "203.0.113.7", by: "reset (uid 999)")
            == "password reset refusal mailed from 203.0.113.7 by reset (uid 999): bob@example.com")
        #expect(AuditLog.line(for: .mailFailed(detail: "the mail command failed (exit 75)"), from: "2001:db8::7", by: user)
            == "mail not sent from 2001:db8::7 by alice (uid 1000): the mail command failed (exit 75)")
        #expect(AuditLog.line(for: .mailFailed(detail: "the mail command failed (exit 75)"), from: nil, by: user)
            == "mail not sent by alice (uid 1000): the mail command failed (exit 75)")
    }

    /// The login a line names: `LOGNAME` only when the password database gives it this uid.
    @Test func theUserIsTheLoginOnlyWhenItHasThisUid() {
        let uid = getuid()
        let plain = AuditLog.user(environment: [:], uid: uid)
        #expect(plain.hasSuffix(" (uid \(uid))"))
        #expect(AuditLog.user(environment: ["LOGNAME": "nobody"], uid: uid) == (uid == 65534 ? "nobody (uid 65534)" : plain))
        #expect(AuditLog.user(environment: ["LOGNAME": "no-such-login-here"], uid: uid) == plain)
        #expect(AuditLog.user(environment: ["LOGNAME": "root\nforged"], uid: 0) == AuditLog.user(environment: [:], uid: 0))
        #expect(AuditLog.user(environment: ["LOGNAME": "nobody"], uid: 65534) == "nobody (uid 65534)")
    }

    /// The message is syslog(3)'s: `<PRI>Mmm dd hh:mm:ss signup[PID]: LINE`, the day padded with a space.
    @Test func theMessageIsSyslogsWithItsTime() {
        func stamp(_ seconds: Int) -> String {
            var bytes = [UInt8](repeating: 0, count: 15)
            bytes.withUnsafeMutableBufferPointer { AuditLog.writeTimestamp(seconds, to: $0.baseAddress!) }
            return String(decoding: bytes, as: UTF8.self)
        }
        #expect(stamp(0) == "Jan  1 00:00:00")
        #expect(stamp(1_700_000_000) == "Nov 14 22:13:20")
        #expect(stamp(951_782_400 + 86_399) == "Feb 29 23:59:59")
        #expect(stamp(-1) == "Dec 31 23:59:59")
        // Every day of a leap year and the next, as the C library writes it in UTC.
        for day in 0..<731 {
            let seconds = 1_704_067_200 + day * 86_400 + day * 37
            var time = time_t(seconds)
            var parts = tm()
            gmtime_r(&time, &parts)
            var expected = [UInt8](repeating: 0, count: 32)
            let count = expected.withUnsafeMutableBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { strftime($0.baseAddress!, 32, "%b %e %H:%M:%S", &parts) }
            }
            #expect(stamp(seconds) == String(decoding: expected.prefix(count), as: UTF8.self))
        }
        let (bytes, timeAt) = AuditLog.message(LOG_AUTHPRIV | LOG_INFO, line: "account created by x (uid 1): a@example.com", at: 0)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(timeAt == 4)
        #expect(text.hasPrefix("<86>"))
        #expect(text.dropFirst(19).hasPrefix(" signup[\(getpid())]: account created by x (uid 1): a@example.com"))
        #expect(text.hasSuffix("a@example.com"))
    }

    /// A logger that does not read (a datagram socket whose queue is full): a line is given up
    /// within the bound, and the next one at once; a logger that reads gets the message whole;
    /// no socket, or one nobody is bound to, loses the line at once.
    @Test func aLoggerThatDoesNotReadHoldsALineOnlyForItsBound() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("signup-logger-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/log"
        let receiver = try Self.boundSocket(path)
        defer { close(receiver) }
        // Fill its queue, as a logger that stopped reading leaves it.
        let filler = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        defer { close(filler) }
        #expect(Self.connect(filler, path) == 0)
        var junk = [UInt8](repeating: 0x78, count: 256)
        while send(filler, &junk, junk.count, 0) > 0 {}
        let stuck = LoggerSocket(path: path)
        var started = LoggerSocket.now()
        #expect(stuck.deliver(Array("<86>a line".utf8)) == .notTaken)
        let waited = LoggerSocket.now() - started
        #expect(waited >= LoggerSocket.bound - 50 && waited < 15_000, "\(waited) ms")
        started = LoggerSocket.now()
        #expect(stuck.deliver(Array("<86>another".utf8)) == .notTaken)
        #expect(LoggerSocket.now() - started < LoggerSocket.bound)
        // Read one message: the queue has room again, and a logger that reads gets what was sent.
        var buffer = [UInt8](repeating: 0, count: 2048)
        while recv(receiver, &buffer, buffer.count, Int32(MSG_DONTWAIT)) > 0 {}
        #expect(stuck.deliver(Array("<86>taken".utf8)) == .sent)
        let got = recv(receiver, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        #expect(got > 0 && String(decoding: buffer[0..<max(got, 0)], as: UTF8.self) == "<86>taken")
        // No logger there: lost at once.
        #expect(LoggerSocket(path: folder + "/none").deliver(Array("<86>x".utf8)) == .noLogger)
        let stale = folder + "/stale"
        close(try Self.boundSocket(stale))
        #expect(LoggerSocket(path: stale).deliver(Array("<86>x".utf8)) == .noLogger)
    }

    static func boundSocket(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        return fd
    }

    static func connect(_ fd: Int32, _ path: String) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
