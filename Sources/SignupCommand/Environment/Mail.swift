import AccountStore
import Glibc
import SignupCore
import WizardTerminal

/// One plain-text mail, made for a sendmail-compatible command (`mail.command`, read with `-t`):
/// its headers name the recipient, never the command line.
struct MailMessage: Equatable {
    var from: String
    var to: String
    var subject: String
    var body: String

    /// Why a message cannot be made: a header value with a line break or another control character.
    struct Refused: Error, Equatable {
        var header: String
    }

    /// The message's bytes: the headers (RFC 5322, a non-ASCII subject RFC 2047-encoded), an
    /// empty line, the body as UTF-8 8bit, lines ending in LF (the command's `-i` keeps a lone
    /// `.` line). `date` and `messageID` come from ``date(_:)`` and ``messageID(host:)``.
    func text(date: String, messageID: String) throws(Refused) -> String {
        for (name, value) in [("From", from), ("To", to), ("Subject", subject), ("Date", date), ("Message-ID", messageID)]
        where value.isEmpty || value.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{2028}" || $0 == "\u{2029}" }) {
            throw Refused(header: name)
        }
        let body = body.unicodeScalars.contains("\r") ? body.replacingCRs() : body
        return """
            From: \(from)
            To: \(to)
            Subject: \(Self.encodedWords(subject))
            Date: \(date)
            Message-ID: \(messageID)
            MIME-Version: 1.0
            Content-Type: text/plain; charset=UTF-8
            Content-Transfer-Encoding: 8bit
            Auto-Submitted: auto-generated

            \(body.hasSuffix("\n") ? body : body + "\n")
            """
    }

    /// `text` as it is when it is printable ASCII, else RFC 2047 `=?UTF-8?B?…?=` words of at most
    /// 75 characters each, joined by a folding space, never splitting a character.
    static func encodedWords(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 >= 0x80 }) else { return text }
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in text {
            let bytes = Array(String(character).utf8)
            // 45 bytes are 60 base64 characters: with `=?UTF-8?B?` and `?=` a word of 72.
            if chunk.count + bytes.count > 45, !chunk.isEmpty {
                words.append("=?UTF-8?B?" + base64(chunk) + "?=")
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append("=?UTF-8?B?" + base64(chunk) + "?=") }
        return words.joined(separator: "\n ")
    }

    static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let a = UInt32(bytes[index]), b = index + 1 < bytes.count ? UInt32(bytes[index + 1]) : 0, c = index + 2 < bytes.count ? UInt32(bytes[index + 2]) : 0
            let n = a << 16 | b << 8 | c
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(index + 1 < bytes.count ? alphabet[Int(n >> 6 & 63)] : UInt8(ascii: "="))
            out.append(index + 2 < bytes.count ? alphabet[Int(n & 63)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `Fri, 27 Nov 2026 16:03:56 +0000`: RFC 5322's date of `time` in the local zone, from the C
    /// library (the names are English whatever the language: LC_TIME is never set).
    static func date(_ time: time_t = Glibc.time(nil)) -> String {
        var seconds = time
        var parts = tm()
        localtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S %z", &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `<32 hex digits@host>`: 128 random bits.
    static func messageID(host: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            .map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        return "<\(digits)@\(host)>"
    }

    /// The host's name (gethostname), the default domain of `mail.from` and of a Message-ID;
    /// `localhost` when it has none a header can hold.
    static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let allowed = !name.isEmpty && name.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2D || $0 == 0x2E }
        return allowed ? name : "localhost"
    }

    /// `email` with its domain in IDNA's ASCII form (`a@xn--bcher-kva.de`), the form an MTA routes;
    /// nil when the domain has none (the email rules refuse such a domain before a mail is made).
    static func recipient(_ email: String) -> String? {
        let email = SignupForm.normalizeEmail(email)
        guard let at = email.lastIndex(of: "@") else { return nil }
        guard case .valid(let domain) = IDNA.asciiForm(ofDomain: String(email[email.index(after: at)...])) else { return nil }
        return String(email[..<at]) + "@" + domain
    }
}

private extension String {
    func replacingCRs() -> String {
        String(String.UnicodeScalarView(unicodeScalars.filter { $0 != "\r" }))
    }
}

/// Hands a message to `mail.command` (`/usr/sbin/sendmail -t -i` by default) on its standard
/// input: run by `posix_spawn` (no shell), in a process group of its own, with a minimal
/// environment, its output kept from the person and sent to the audit log, killed when it
/// overruns ``timeoutSeconds`` or when a signal ends signup while it waits.
struct Mailer {
    /// The command's words: the program's absolute path, then its arguments.
    var command: [String]
    /// How long the command may take.
    var timeoutSeconds = 30

    /// Why a mail was not handed over.
    enum Failure: Error, Equatable {
        /// The program could not be started (errno's text).
        case cannotRun(String)
        /// It exited with a status other than 0, or was killed by a signal: what it said, bounded.
        case failed(status: String, output: String)
        /// It did not finish in time and was killed.
        case timedOut(seconds: Int)
        /// The message could not be made (a header with a line break).
        case refused(header: String)

        /// One line for the audit log: never the message, which holds a code.
        var detail: String {
            switch self {
            case .cannotRun(let reason): "cannot run the mail command: \(reason)"
            case .failed(let status, let output): "the mail command failed (\(status))" + (output.isEmpty ? "" : ": " + output)
            case .timedOut(let seconds): "the mail command did not finish in \(seconds) s and was killed"
            case .refused(let header): "a header would not be one line: \(header)"
            }
        }
    }

    /// The environment the command gets: a search path and the C locale, nothing of signup's own.
    static let environment = ["PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C"]

    /// Sends `message`; returns when the command has exited 0.
    func send(_ message: MailMessage, host: String = MailMessage.hostName) throws(Failure) {
        let text: String
        do throws(MailMessage.Refused) {
            text = try message.text(date: MailMessage.date(), messageID: MailMessage.messageID(host: host))
        } catch {
            throw .refused(header: error.header)
        }
        try run(input: Array(text.utf8))
    }

    /// A pipe whose two ends are closed on exec (the child gets only the duplicates it is given).
    private static func pipe(_ ends: inout [Int32]) -> Bool {
        guard Glibc.pipe(&ends) == 0 else { return false }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return true
    }

    /// Runs the command with `input` on its standard input.
    func run(input: [UInt8]) throws(Failure) {
        guard let program = command.first, program.hasPrefix("/") else { throw .cannotRun("mail.command must start with an absolute path") }
        // A signal that ends signup while it waits ends the command's group too, which may ignore
        // it. The signals that end signup wait (blocked; the command starts with none blocked)
        // from before the command starts until its group is named: one that came in between
        // left the command running.
        var ending = sigset_t(), previous = sigset_t()
        sigemptyset(&ending)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM] { sigaddset(&ending, signal) }
        pthread_sigmask(SIG_BLOCK, &ending, &previous)
        let started: Child
        do {
            started = try Child.spawn(program, command)
        } catch {
            pthread_sigmask(SIG_SETMASK, &previous, nil)
            throw error
        }
        TerminalGuard.setChildGroup(started.pid)
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        defer { TerminalGuard.setChildGroup(nil) }
        var child = started
        let (status, written, output) = try child.exchange(input, timeoutSeconds: timeoutSeconds)
        // A child left behind in the group (a daemon the command forked) is the MTA's business.
        let exited = status & 0x7F == 0
        let code = (status >> 8) & 0xFF
        guard exited && code == 0 else {
            let said = VisibleText.of(String(decoding: output, as: UTF8.self)).split(separator: "^J").joined(separator: " / ")
            throw .failed(status: exited ? "exit \(code)" : "signal \(status & 0x7F)", output: String(said.prefix(300)))
        }
        if written < input.count { throw .failed(status: "exit 0", output: "it did not read the whole message") }
    }

    /// The running command: its process (the leader of a group of its own) and the two pipes it
    /// reads the message from and writes its words to.
    private struct Child {
        let pid: pid_t
        var writeEnd: Int32
        let readEnd: Int32

        /// Starts `program` with `arguments` in a process group of its own, its standard input
        /// from a pipe, standard output and error into another, and ``Mailer/environment``.
        static func spawn(_ program: String, _ arguments: [String]) throws(Failure) -> Child {
            var stdinPipe: [Int32] = [-1, -1]
            var outputPipe: [Int32] = [-1, -1]
            guard Mailer.pipe(&stdinPipe) else { throw .cannotRun(IO.lastErrorText()) }
            guard Mailer.pipe(&outputPipe) else {
                close(stdinPipe[0]); close(stdinPipe[1])
                throw .cannotRun(IO.lastErrorText())
            }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], 0)
            posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
            posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 2)
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            ownGroupWithDefaultSignals(&attributes)
            let argv = arguments.map { strdup($0) } + [nil]
            let environment = Mailer.environment.map { strdup($0) } + [nil]
            defer {
                argv.forEach { free($0) }
                environment.forEach { free($0) }
            }
            var pid: pid_t = 0
            let spawned = posix_spawn(&pid, program, &actions, &attributes, argv, environment)
            close(stdinPipe[0])
            close(outputPipe[1])
            guard spawned == 0 else {
                close(stdinPipe[1]); close(outputPipe[0])
                throw .cannotRun(String(cString: strerror(spawned)))
            }
            _ = fcntl(stdinPipe[1], F_SETFL, O_NONBLOCK)
            _ = fcntl(outputPipe[0], F_SETFL, O_NONBLOCK)
            return Child(pid: pid, writeEnd: stdinPipe[1], readEnd: outputPipe[0])
        }

        /// Its own process group (killed whole when it overruns), no signal blocked, and every
        /// signal a public session ignores (SIGTSTP…) or handles back to its default.
        private static func ownGroupWithDefaultSignals(_ attributes: inout posix_spawnattr_t) {
            var noSignals = sigset_t()
            sigemptyset(&noSignals)
            var defaults = sigset_t()
            sigemptyset(&defaults)
            for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE, SIGALRM, SIGCHLD, SIGWINCH] { sigaddset(&defaults, signal) }
            posix_spawnattr_setsigmask(&attributes, &noSignals)
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            posix_spawnattr_setpgroup(&attributes, 0)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        }

        /// Writes `input` to the command and keeps the first 1,024 bytes it says until it exits;
        /// past `timeoutSeconds` its whole group is killed. Returns its wait status, how much of
        /// `input` it read, and what it said. Both pipes are closed on every path.
        mutating func exchange(_ input: [UInt8], timeoutSeconds: Int) throws(Failure) -> (status: Int32, written: Int, output: [UInt8]) {
            defer {
                if writeEnd >= 0 { close(writeEnd) }
                close(readEnd)
            }
            var written = 0
            var output: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            let deadline = ContinuousClock.now + .seconds(timeoutSeconds)
            var status: Int32 = 0
            while true {
                if writeEnd >= 0 {
                    if written < input.count {
                        let count = input.withUnsafeBytes { Glibc.write(writeEnd, $0.baseAddress! + written, input.count - written) }
                        if count > 0 { written += count } else if count < 0 && errno != EAGAIN && errno != EINTR { written = input.count }
                    }
                    if written >= input.count { close(writeEnd); writeEnd = -1 }
                }
                while true {
                    let got = Glibc.read(readEnd, &buffer, buffer.count)
                    guard got > 0 else { break }
                    if output.count < 1024 { output += buffer.prefix(min(got, 1024 - output.count)) }
                }
                let waited = waitpid(pid, &status, WNOHANG)
                if waited == pid || (waited < 0 && errno != EINTR) { return (status, written, output) }
                if ContinuousClock.now >= deadline {
                    kill(-pid, SIGKILL)
                    kill(pid, SIGKILL)
                    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                    throw .timedOut(seconds: timeoutSeconds)
                }
                var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
                nanosleep(&pause, nil)
            }
        }
    }
}
