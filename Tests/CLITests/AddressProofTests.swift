import Foundation
import Glibc
@testable import SignupCommand
import Testing

/// Proof of the address (`--prove-address`, `--public`): a code mailed through `mail.command` and
/// typed back before anything is stored. The mail command here is a script that keeps each
/// message in the sandbox; `Tests/integration/ssh.sh` uses a real MTA.
@Suite struct AddressProofTests {
    /// A sandbox whose configuration's mail command is `command` (default: a script that keeps each
    /// message as `mail-N` and its arguments as `args-N`).
    static func mailBox(command: String? = nil) -> (Sandbox, [String: String]) {
        let box = Sandbox()
        let keeper = box.file("keep-mail", Data("""
            #!/bin/sh
            n=$(ls "\(box.folder.path)" | grep -c '^mail-')
            printf '%s\\n' "$@" > "\(box.folder.path)/args-$n"
            env > "\(box.folder.path)/env-$n"
            cat > "\(box.folder.path)/tmp-$n" && mv "\(box.folder.path)/tmp-$n" "\(box.folder.path)/mail-$n"

            """.utf8))
        chmod(keeper, 0o755)
        let config = box.file("signup.conf", Data("mail.command = \(command ?? keeper + " -t -i")\nmail.from = signup@test.example\n".utf8))
        return (box, ["SIGNUP_CONFIG": config])
    }

    /// A shell that writes `before` to signup's standard input, waits for the first mail, writes
    /// its code (or `code` when given), then `after`.
    static func feeding(_ box: Sandbox, before: String, code: String? = nil, after: String) -> String {
        let mail = box.folder.appendingPathComponent("mail-0").path
        let typed = code.map { "printf '%s\\n' '\($0)'" } ?? "sed -n 's/^    \\([0-9]\\{6\\}\\)$/\\1/p' '\(mail)'"
        return """
            { printf '%s' '\(before)'; i=0; while [ ! -f '\(mail)' ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i+1)); done; \
            \(typed); printf '%s' '\(after)'; } | exec "$0" "$@"
            """
    }

    static func mail(_ box: Sandbox, _ n: Int = 0) -> String {
        (try? String(contentsOfFile: box.folder.appendingPathComponent("mail-\(n)").path, encoding: .utf8)) ?? ""
    }

    static let passwords = "\(goodPassword)\n\(goodPassword)\n"

    @Test func theAccountIsStoredOnlyWithTheMailedCode() throws {
        let (box, environment) = Self.mailBox()
        // The password from SIGNUP_PASSWORD: the mail command must not inherit it.
        let run = box.run(["--prove-address", "--db", box.db], environment: environment.merging(["SIGNUP_PASSWORD": goodPassword]) { $1 },
                          via: Self.feeding(box, before: "bob@bücher.de\n", after: ""))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(box.accounts().map { $0["email"] as? String } == ["bob@bücher.de"])
        let mail = Self.mail(box)
        let headers = mail.components(separatedBy: "\n\n")[0].components(separatedBy: "\n")
        // The domain in its IDNA ASCII form; the address only in To:, never an argument.
        #expect(headers.contains("To: bob@xn--bcher-kva.de"))
        #expect(headers.contains("From: signup@test.example"))
        #expect(headers.contains("MIME-Version: 1.0"))
        #expect(headers.contains("Content-Type: text/plain; charset=UTF-8"))
        #expect(headers.contains("Content-Transfer-Encoding: 8bit"))
        #expect(headers.contains { $0.range(of: #"^Date: [A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}$"#, options: .regularExpression) != nil })
        #expect(headers.contains { $0.range(of: #"^Message-ID: <[0-9a-f]{32}@[A-Za-z0-9.-]+>$"#, options: .regularExpression) != nil })
        #expect(headers.contains { $0.hasPrefix("Subject: Your sign-up code for ") })
        #expect(mail.range(of: #"\n    \d{6}\n"#, options: .regularExpression) != nil)
        #expect(!mail.contains(goodPassword))
        let arguments = try String(contentsOfFile: box.folder.appendingPathComponent("args-0").path, encoding: .utf8)
        #expect(arguments == "-t\n-i\n")
        // The child's environment is signup's minimal one: no SIGNUP_PASSWORD, no HOME.
        let environmentSeen = try String(contentsOfFile: box.folder.appendingPathComponent("env-0").path, encoding: .utf8)
        #expect(!environmentSeen.contains("SIGNUP_") && !environmentSeen.contains("HOME="))
        // The code is not in the result (a script's conversation shows its answers as typed).
        let code = mail.components(separatedBy: "\n").first { $0.hasPrefix("    ") }!.trimmingCharacters(in: .whitespaces)
        #expect(!run.stdout.contains(code))
    }

    @Test(arguments: [
        ("/bin/false", "exit"),
        ("/nonexistent/sendmail -t -i", "missing"),
    ])
    func aMailCommandThatFailsEndsTheRunWithNothingStored(command: String, _: String) {
        let (box, environment) = Self.mailBox(command: command)
        let run = box.run(["--prove-address", "--db", box.db], input: lines("bob@example.com\n000000\n" + Self.passwords), environment: environment)
        #expect(run.status == 75)
        #expect(run.stderr.contains("The code could not be mailed; try again later. Nothing was saved."))
        // What the command said, or why it could not run, is not shown.
        #expect(!run.stderr.contains("nonexistent") && !run.stderr.contains("exit 1"))
        #expect(box.accounts().isEmpty)
    }

    @Test func aHostileAddressNeverBecomesAnOptionOrAHeader() {
        let (box, environment) = Self.mailBox()
        let run = box.run(["--prove-address", "--db", box.db], environment: environment,
                          via: Self.feeding(box, before: "-oQ/tmp/x@example.com\n", after: Self.passwords))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.mail(box).contains("\nTo: -oQ/tmp/x@example.com\n"))
        #expect((try? String(contentsOfFile: box.folder.appendingPathComponent("args-0").path, encoding: .utf8)) == "-t\n-i\n")
        // A line break cannot reach a header: the email's rules refuse it before any mail.
        let forged = Self.mailBox()
        let refused = forged.0.run(["--prove-address", "--db", forged.0.db, "--email", "a@example.com\r\nBcc: victim@example.org"],
                                   input: lines("000000\n" + Self.passwords), environment: forged.1)
        #expect(refused.status == 65)
        #expect(!FileManager.default.fileExists(atPath: forged.0.folder.appendingPathComponent("mail-0").path))
    }

    /// A code read from standard input could take the password's line there, and echo it: refused first.
    @Test func thePasswordOnStandardInputAndACodeAreAUsageError() {
        let (box, environment) = Self.mailBox()
        let run = box.run(["--prove-address", "--email", "bob@example.com", "--password-fd", "0", "--db", box.db],
                          input: lines(goodPassword + "\n"), environment: environment)
        #expect(run.status == 64)
        #expect(run.stderr.contains("no code can be asked"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: box.folder.appendingPathComponent("mail-0").path))
    }

    @Test func theMailIsInTheReadersLanguage() {
        let (box, environment) = Self.mailBox()
        let run = box.run(["--prove-address", "--db", box.db], environment: environment.merging(LanguageTests.german) { $1 },
                          via: Self.feeding(box, before: "bob@example.com\n", after: Self.passwords))
        #expect(run.status == 0, "\(run.stderr)")
        let mail = Self.mail(box)
        #expect(mail.contains("Subject: =?UTF-8?B?"), "a non-ASCII subject is RFC 2047-encoded: \(mail)")
        #expect(mail.contains("Der Code gilt 10 Minuten."), "\(mail)")
    }

    /// Mails of public sessions count in the store: 3 for each account the per-client limit allows.
    @Test func publicMailsStopAtTheirLimitCountedInTheStore() {
        let (box, environment) = Self.mailBox()
        let client = environment.merging(["SSH_CONNECTION": "192.0.2.1 50000 127.0.0.1 22"]) { $1 }
        for _ in 1...3 {
            let run = box.run(["--public", "--limit-per-client", "1", "--db", box.db], input: lines("x@example.com\n000000\n" + Self.passwords),
                              environment: client)
            #expect(run.status == 65, "\(run.stderr)")
        }
        let refused = box.run(["--public", "--limit-per-client", "1", "--db", box.db], input: lines("x@example.com\n000000\n" + Self.passwords),
                              environment: client)
        #expect(refused.status == 75)
        #expect(refused.stderr.contains("too many mails were sent for sign-ups from your address recently"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("192.0.2.1"))
        let mails = (try? FileManager.default.contentsOfDirectory(atPath: box.folder.path))?.filter { $0.hasPrefix("mail-") } ?? []
        #expect(mails.count == 3)
        // Another client still gets its mail.
        let other = box.run(["--public", "--limit-per-client", "1", "--db", box.db], input: lines("y@example.com\n000000\n" + Self.passwords),
                            environment: environment.merging(["SSH_CONNECTION": "198.51.100.7 50000 127.0.0.1 22"]) { $1 })
        #expect(other.status == 65, "\(other.stderr)")
    }

    @Test func aCodeExpiresAfterTenMinutesAndFiveWrongOnesAreTheEnd() throws {
        let clock = Clock()
        let proof = AddressProof(now: { clock.seconds })
        try proof.expect("123456", for: "bob@example.com")
        #expect(proof.attempt("000000") == .wrong(left: 4))
        #expect(proof.accepts("123 456"))
        clock.seconds = AddressProof.lifetimeSeconds - 1
        #expect(proof.accepts("123456"))
        let late = AddressProof(now: { clock.seconds })
        try late.expect("123456", for: "bob@example.com")
        clock.seconds += AddressProof.lifetimeSeconds
        #expect(!late.accepts("123456"))
        #expect(late.attempt("123456") == .expired)
        #expect(AddressProof.isExpired(sentAt: 100, now: 699) == false)
        #expect(AddressProof.isExpired(sentAt: 100, now: 700) == true)
        let counted = AddressProof(now: { clock.seconds })
        try counted.expect("123456", for: "bob@example.com")
        #expect((1...5).map { _ in counted.attempt("654321") } == [.wrong(left: 4), .wrong(left: 3), .wrong(left: 2), .wrong(left: 1), .wrong(left: 0)])
        // A notice instead of a code: nothing matches, not even a code of an earlier mail.
        try counted.sendNothing(for: "bob@example.com")
        #expect(!counted.accepts("123456"))
        #expect((0..<200).map { _ in AddressProof.newCode() }.allSatisfy { $0.count == 6 && $0.allSatisfy(\.isNumber) })
        #expect(Set((0..<200).map { _ in AddressProof.newCode() }).count > 190)
    }

    /// A notice's state checks a typed code as long as a real code's does (both an Argon2id
    /// verification): the time after a code does not tell a taken address from a free one.
    /// Counted in this thread's CPU time, which other tests and processes on the machine do not
    /// stretch as they stretch the clock: the check is whether the work is done, not how fast.
    @Test func aNoticeChecksACodeAsLongAsACode() throws {
        let code = AddressProof(), notice = AddressProof()
        try code.expect("123456", for: "free@example.com")
        try notice.sendNothing(for: "taken@example.com")
        func seconds(_ proof: AddressProof) -> Double {
            var start = timespec(), end = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
            for _ in 1...10 { _ = proof.accepts("654321") }
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
            return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
        }
        _ = seconds(code)
        let (real, none) = (seconds(code), seconds(notice))
        #expect(real > 0, "a code's check took no CPU time: the hash ran elsewhere")
        #expect(none > real / 3, "a notice's check took \(none) s of CPU, a code's \(real) s")
        #expect(!notice.accepts("123456"))
    }

    final class Clock: @unchecked Sendable {
        var seconds = 0
    }

    @Test func aMailCommandThatHangsIsKilledWithItsChildren() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("signup-hang-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pidFile = folder.appendingPathComponent("pid").path
        let mailer = Mailer(command: ["/bin/sh", "-c", "sleep 60 & echo $! > \(pidFile); cat >/dev/null; sleep 60"], timeoutSeconds: 1)
        let started = Date()
        #expect(throws: Mailer.Failure.timedOut(seconds: 1)) { try mailer.run(input: Array("x\n".utf8)) }
        #expect(Date().timeIntervalSince(started) < 5)
        let child = pid_t(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines))!
        // Killed: gone, or a zombie that init has not reaped yet.
        usleep(200_000)
        let state = (try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8))?.components(separatedBy: ") ").last?.first
        #expect(state == nil || state == "Z", "the command's own child outlived it")
    }

    /// A signal that ends signup while it waits on the mail command ends the command's group
    /// too, though the command ignores that signal: nothing of the run is left behind.
    @Test(arguments: [SIGTERM, SIGHUP])
    func aMailCommandEndsWithSignupEvenIfItIgnoresTheSignal(signal: Int32) throws {
        let box = Sandbox()
        let pids = box.folder.appendingPathComponent("pids").path
        let stubborn = box.file("stubborn-mail", Data("""
            #!/bin/sh
            trap '' TERM HUP INT
            sleep 60 &
            echo "$$ $!" > "\(pids).tmp" && mv "\(pids).tmp" "\(pids)"
            wait

            """.utf8))
        chmod(stubborn, 0o755)
        let config = box.file("signup.conf", Data("mail.command = \(stubborn)\nmail.from = signup@test.example\n".utf8))
        let started = Date()
        let run = box.run(["--prove-address", "--db", box.db], environment: ["SIGNUP_CONFIG": config, "SIGNUP_PASSWORD": goodPassword], via: """
            f='\(box.folder.path)/answers'; mkfifo "$f"
            "$0" "$@" < "$f" & p=$!
            { printf 'bob@example.com\\n'; exec sleep 30; } > "$f" 2>/dev/null & q=$!
            i=0; while [ ! -f '\(pids)' ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
            kill -\(signal) $p; wait $p; s=$?; kill $q; exit $s
            """)
        #expect(Date().timeIntervalSince(started) < 25, "signup waited for the mail command")
        #expect(run.status != 0)
        let left = try String(contentsOfFile: pids, encoding: .utf8).split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(left.count == 2)
        usleep(300_000)
        for pid in left {
            let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.components(separatedBy: ") ").last?.first
            #expect(state == nil || state == "Z", "the mail command's process \(pid) outlived signup")
            kill(pid, SIGKILL)
        }
        #expect(box.accounts().isEmpty)
    }

    @Test func headersAreOneLineEach() {
        let message = MailMessage(from: "signup@test.example", to: "a@example.com\nBcc: victim@example.org", subject: "Hi", body: "x")
        #expect(throws: MailMessage.Refused(header: "To")) { try message.text(date: "d", messageID: "<m@h>") }
        #expect(MailMessage.encodedWords("Ihr Code für vm") == "=?UTF-8?B?SWhyIENvZGUgZsO8ciB2bQ==?=")
        #expect(MailMessage.encodedWords("plain") == "plain")
        let long = MailMessage.encodedWords(String(repeating: "ü", count: 60))
        #expect(long.components(separatedBy: "\n ").allSatisfy { $0.count <= 75 })
    }
}
