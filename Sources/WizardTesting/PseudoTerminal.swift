import Glibc

/// A program running in a pseudo-terminal, driven the way `expect` drives it.
///
/// Safe from the multithreaded test runner: the child is started with `posix_spawn`
/// (never `fork`), in a new session (`POSIX_SPAWN_SETSID`), with the terminal's slave
/// side opened by name as descriptor 0 (so it becomes the controlling terminal: byte
/// 0x03 sent to it is SIGINT) and duplicated to 1 and 2. Every wait has a deadline; the
/// child is killed when the value goes away.
public final class PseudoTerminal {
    /// How the child ended.
    public enum Termination: Equatable, Sendable, CustomStringConvertible {
        /// It exited with this status.
        case exited(Int32)
        /// This signal killed it.
        case signaled(Int32)

        /// `exited(130)`, `signaled(9)`.
        public var description: String {
            switch self {
            case .exited(let code): "exited(\(code))"
            case .signaled(let sig): "signaled(\(sig))"
            }
        }
    }

    /// A failure with what the terminal showed so far.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed, and what the terminal showed.
        public let message: String
        /// The message.
        public var description: String { message }
        /// A failure saying `message`.
        public init(message: String) { self.message = message }
    }

    /// The pinned environment tests start from: `PATH`, `TERM=xterm`, 80×24, UTF-8, no colour, no backtracer.
    public static func environment(_ overrides: [String: String?] = [:]) -> [String: String] {
        var environment = [
            "PATH": getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin",
            "HOME": "/nonexistent",
            "TERM": "xterm",
            "COLUMNS": "80",
            "LINES": "24",
            "NO_COLOR": "1",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "SWIFT_BACKTRACE": "enable=no",
            // No /etc/signup/signup.conf of this machine's may change what a test sees.
            "SIGNUP_CONFIG": "/dev/null",
        ]
        for (name, value) in overrides { environment[name] = value }
        return environment
    }

    /// The child's process id.
    public let pid: pid_t
    /// Everything read from the terminal so far, raw (`\r\n` line endings, escape sequences).
    public private(set) var transcript: [UInt8] = []
    /// Everything read from standard output so far, byte for byte, when it is a pipe
    /// (`pipeStandardOutput`): the same as ``standardOutputBytes``.
    public private(set) var standardOutput: [UInt8] = []

    /// Everything read from standard output so far, byte for byte: the name ``ScriptRun/standardOutputBytes`` has too.
    public var standardOutputBytes: [UInt8] { standardOutput }

    /// Everything read from standard output so far as text (invalid UTF-8 repaired): the
    /// program's result, as ``ScriptRun/standardOutputText`` gives a script's.
    public var standardOutputText: String { String(decoding: standardOutput, as: UTF8.self) }

    private var master: Int32
    private var outputPipe: Int32
    /// A form child's report pipe (``FormChild/reportDescriptor`` in the child); -1 for none.
    private var reportPipe: Int32 = -1
    /// For a form child: whether it said it runs the form; nil for any other program.
    private var formStarted: Bool?
    private var cursor = 0
    private var termination: Termination?

    /// Starts `executable` (a path, or a name looked up in this process's `PATH`) in a new pseudo-terminal.
    ///
    /// With `pipeStandardOutput`, standard output is a pipe (read it with `standardOutput`),
    /// while standard input and standard error stay on the terminal.
    public convenience init(executable: String, arguments: [String] = [], environment: [String: String] = PseudoTerminal.environment(),
                            rows: UInt16 = 24, columns: UInt16 = 80, pipeStandardOutput: Bool = false) throws {
        try self.init(executable: executable, arguments: arguments, environment: environment, rows: rows, columns: columns,
                      pipeStandardOutput: pipeStandardOutput, standardDescriptorsAt: 0)
    }

    /// Starts the child with the terminal as descriptors `first`, `first + 1` and `first + 2`
    /// (the second the output pipe, when there is one); 0 makes them its standard ones, a form
    /// child (``start(environment:rows:columns:pipeStandardOutput:isolation:_:)``) gets
    /// `/dev/null` there until it moves them itself.
    /// With `reportsFormStart`, a pipe is the child's descriptor `first + 3`: a form child says
    /// there that it found its form and runs it (``FormChild``).
    init(executable: String, arguments: [String], environment: [String: String],
         rows: UInt16, columns: UInt16, pipeStandardOutput: Bool, standardDescriptorsAt first: Int32,
         reportsFormStart: Bool = false) throws {
        var master: Int32 = -1
        var slave: Int32 = -1
        var name = [CChar](repeating: 0, count: 4096)
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&master, &slave, &name, nil, &size) == 0 else { throw Self.failure("openpty") }
        var pipeEnds: [Int32] = [-1, -1]
        defer {
            Glibc.close(slave)
            if pipeEnds[1] >= 0 { Glibc.close(pipeEnds[1]) }
        }
        var reportEnds: [Int32] = [-1, -1]
        defer { if reportEnds[1] >= 0 { Glibc.close(reportEnds[1]) } }
        if pipeStandardOutput, pipe(&pipeEnds) != 0 {
            Glibc.close(master)
            throw Self.failure("pipe")
        }
        if reportsFormStart, pipe(&reportEnds) != 0 {
            Glibc.close(master)
            if pipeEnds[0] >= 0 { Glibc.close(pipeEnds[0]) }
            throw Self.failure("pipe")
        }
        for fd in [master, slave] + pipeEnds + reportEnds where fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        // Above the descriptors the child's file actions open: they would close them before their dup2.
        pipeEnds[1] = Self.above(first + 3, pipeEnds[1])
        reportEnds[1] = Self.above(first + 3, reportEnds[1])

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if first > 0 {
            for fd: Int32 in 0...2 { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_RDWR, 0) }
        }
        // Opened by name after setsid (POSIX_SPAWN_SETSID): the terminal becomes the child's controlling one.
        posix_spawn_file_actions_addopen(&actions, first, name, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeStandardOutput ? pipeEnds[1] : first, first + 1)
        posix_spawn_file_actions_adddup2(&actions, first, first + 2)
        if reportEnds[1] >= 0 { posix_spawn_file_actions_adddup2(&actions, reportEnds[1], first + 3) }
        for fd in [master, slave] + pipeEnds + reportEnds where fd > first + 3 { posix_spawn_file_actions_addclose(&actions, fd) }

        let status = Spawn.run(executable, arguments, environment, &actions, keeping: first + (reportsFormStart ? 4 : 3))
        guard case .success(let pid) = status else {
            Glibc.close(master)
            for fd in [pipeEnds[0], reportEnds[0]] where fd >= 0 { Glibc.close(fd) }
            throw Failure(message: "posix_spawn \(executable): \(status)")
        }
        self.pid = pid
        self.master = master
        self.outputPipe = pipeEnds[0]
        self.reportPipe = reportEnds[0]
        if reportsFormStart { formStarted = false }
        for fd in [master, outputPipe, reportPipe] where fd >= 0 { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    }

    deinit {
        if termination == nil {
            Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        }
        for fd in [master, outputPipe, reportPipe] where fd >= 0 { Glibc.close(fd) }
    }

    /// The transcript as text (invalid UTF-8 repaired), optionally with `\r\n` turned into `\n`.
    public func text(normalizingLineEndings: Bool = false) -> String {
        guard normalizingLineEndings else { return String(decoding: transcript, as: UTF8.self) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(transcript.count)
        for (index, byte) in transcript.enumerated()
        where !(byte == 0x0D && index + 1 < transcript.count && transcript[index + 1] == 0x0A) {
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Types `text` (its UTF-8 bytes) at the terminal: "\r" is Enter, "\u{03}" Ctrl-C, "\u{04}" Ctrl-D.
    public func send(_ text: String) throws { try send(bytes: Array(text.utf8)) }

    /// Types `text` one key (character) at a time as a person does, waiting between keys the
    /// gaps of `gapsMilliseconds` in turn (a person or a slow auto-type: 30 to 200 ms), reading
    /// the terminal meanwhile.
    public func type(_ text: String, gapsMilliseconds: [Int]) throws {
        precondition(!gapsMilliseconds.isEmpty, "type needs at least one gap")
        for (index, key) in text.enumerated() {
            if index > 0 {
                let deadline = Self.now() + Double(gapsMilliseconds[index % gapsMilliseconds.count]) / 1000
                while case let remaining = deadline - Self.now(), remaining > 0 { pump(milliseconds: Int32(remaining * 1000) + 1) }
            }
            try send(String(key))
        }
    }

    /// Writes raw bytes to the terminal.
    public func send(bytes: [UInt8]) throws {
        var offset = 0
        let deadline = Self.now() + 5
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(master, $0.baseAddress, $0.count) }
            if n > 0 {
                offset += n
            } else if n < 0, errno == EAGAIN || errno == EINTR {
                guard Self.now() < deadline else { throw Failure(message: "send: terminal full for 5 s") }
                pump(milliseconds: 10)  // let the child drain its input while we drain its output
            } else {
                throw Self.failure("write to the terminal")
            }
        }
    }

    /// Waits until the output after the previous match contains `text`, then moves past it; returns the output before it.
    ///
    /// It blocks the calling thread while it waits: from an `async` test, `try await` it (the
    /// `async` form), which leaves the thread to other tasks meanwhile.
    @discardableResult
    public func expect(_ text: String, timeout: Double = 5) throws -> String {
        let (step, pause) = expecting(text, timeout: timeout)
        return try until(step, pausing: pause)
    }

    /// Waits as ``expect(_:timeout:)`` does without holding a thread: between reads it suspends
    /// (`Task.sleep`), so the other tests of a suite run meanwhile, even on one core.
    @discardableResult
    public func expect(_ text: String, timeout: Double = 5, isolation: isolated (any Actor)? = #isolation) async throws -> String {
        let (step, pause) = expecting(text, timeout: timeout)
        return try await until(step, pausing: pause)
    }

    private func expecting(_ text: String, timeout: Double) -> (step: () throws -> String?, pause: () -> Int32) {
        let needle = Array(text.utf8)
        let deadline = Self.now() + timeout
        let step = { [unowned self] () throws -> String? in
            if let range = Self.find(needle, in: transcript, from: cursor) {
                let before = String(decoding: transcript[cursor..<range.lowerBound], as: UTF8.self)
                cursor = range.upperBound
                return before
            }
            if deadline - Self.now() <= 0 || master < 0 {
                if termination == nil { reap(flags: WNOHANG) }
                try checkFormRan()
                let seen = String(decoding: transcript[cursor...], as: UTF8.self)
                let why = master < 0 ? "the terminal closed" : "timed out after \(timeout) s"
                throw Failure(message: "expected \(text.debugDescription); \(why); saw \(seen.debugDescription)")
            }
            return nil
        }
        return (step, { Int32(min(max(deadline - Self.now(), 0), 0.1) * 1000) + 1 })
    }

    /// Reads until the child has exited and the terminal is closed; returns the output after the last match.
    @discardableResult
    public func readAll(timeout: Double = 10) throws -> String {
        try until(readingAll(timeout: timeout), pausing: { 20 })
    }

    /// Reads as ``readAll(timeout:)`` does, suspending between reads instead of holding a thread.
    @discardableResult
    public func readAll(timeout: Double = 10, isolation: isolated (any Actor)? = #isolation) async throws -> String {
        try await until(readingAll(timeout: timeout), pausing: { 20 })
    }

    private func readingAll(timeout: Double) -> () throws -> String? {
        let deadline = Self.now() + timeout
        var pumped = false
        return { [unowned self] in
            var done = !(master >= 0 || outputPipe >= 0 || termination == nil)
            if !done {
                if termination == nil { reap(flags: WNOHANG) }
                done = master < 0 && outputPipe < 0 && termination != nil
            }
            if !done {
                guard Self.now() < deadline else {
                    throw Failure(message: "readAll: still running after \(timeout) s; saw \(text().debugDescription)")
                }
                // A grandchild may keep the terminal open after the child ended.
                done = pumped && termination != nil && master >= 0 && !hasPendingOutput()
                pumped = true
            }
            guard done else { return nil }
            try checkFormRan()
            let rest = String(decoding: transcript[cursor...], as: UTF8.self)
            cursor = transcript.count
            return rest
        }
    }

    /// Waits for the child to end (reading its output meanwhile so it cannot block on a full
    /// terminal), at most `timeout` seconds, then throws. A form child
    /// (``start(environment:rows:columns:pipeStandardOutput:isolation:_:)``) that ended without
    /// running its form throws too: its test was skipped or went another way in the child.
    @discardableResult
    public func wait(timeout: Double = 10) throws -> Termination {
        try until(waiting(timeout: timeout), pausing: { 20 })
    }

    /// Waits as ``wait(timeout:)`` does, suspending between reads instead of holding a thread.
    @discardableResult
    public func wait(timeout: Double = 10, isolation: isolated (any Actor)? = #isolation) async throws -> Termination {
        try await until(waiting(timeout: timeout), pausing: { 20 })
    }

    private func waiting(timeout: Double) -> () throws -> Termination? {
        let deadline = Self.now() + timeout
        return { [unowned self] in
            if termination == nil { reap(flags: WNOHANG) }
            if let termination {
                pump(milliseconds: 0)
                try checkFormRan()
                return termination
            }
            guard Self.now() < deadline else {
                throw Failure(message: "wait: still running after \(timeout) s; saw \(text().debugDescription)")
            }
            return nil
        }
    }

    /// Closes the terminal, as a closed terminal window or a dropped SSH connection does: the
    /// kernel sends the child's session SIGHUP, and its reads of the terminal end. Nothing can be
    /// sent after it; ``wait(timeout:)`` says how the child ended.
    public func hangUp() {
        guard master >= 0 else { return }
        Glibc.close(master)
        master = -1
    }

    /// Sends `signal` to the child, if it has not been reaped.
    public func kill(_ signal: Int32) {
        guard termination == nil else { return }
        Glibc.kill(pid, signal)
    }

    /// Reads until the terminal has been quiet for `quiet` seconds (at most `timeout`): the
    /// child has drawn everything the keys sent so far asked for.
    public func settle(quiet: Double = 0.5, timeout: Double = 10) {
        until(settling(quiet: quiet, timeout: timeout), pausing: { 50 })
    }

    /// Reads as ``settle(quiet:timeout:)`` does, suspending between reads instead of holding a thread.
    public func settle(quiet: Double = 0.5, timeout: Double = 10, isolation: isolated (any Actor)? = #isolation) async {
        await until(settling(quiet: quiet, timeout: timeout), pausing: { 50 })
    }

    private func settling(quiet: Double, timeout: Double) -> () -> Void? {
        let deadline = Self.now() + timeout
        var lastCount = transcript.count
        var quietSince = Self.now()
        return { [unowned self] in
            guard Self.now() < deadline, master >= 0 else { return () }
            if transcript.count != lastCount {
                lastCount = transcript.count
                quietSince = Self.now()
            } else if Self.now() - quietSince >= quiet {
                return ()
            }
            return nil
        }
    }

    /// Ctrl-Z to a job of the interactive shell running here (prompt `$ `), then `fg`; returns
    /// once the job has drawn `prompt` again.
    public func stopAndContinue(redrawing prompt: String) throws {
        try send(bytes: [0x1A])  // Ctrl-Z
        try expect("Stopped")
        try expect("$ ")
        try send("fg\r")
        try expect(prompt)
    }

    /// Sets the terminal's size; the child gets SIGWINCH.
    public func setWindowSize(rows: UInt16, columns: UInt16) throws {
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        guard ioctl(master, UInt(TIOCSWINSZ), &size) == 0 else { throw Self.failure("ioctl(TIOCSWINSZ)") }
    }

    /// Whether the terminal's echo went off within `timeout` seconds (the child started reading a secret).
    /// On Linux the master reports the slave's mode.
    public func waitForEchoOff(timeout: Double = 5) -> Bool {
        until(echoOff(timeout: timeout), pausing: { 20 })
    }

    /// Waits as ``waitForEchoOff(timeout:)`` does, suspending between reads instead of holding a thread.
    public func waitForEchoOff(timeout: Double = 5, isolation: isolated (any Actor)? = #isolation) async -> Bool {
        await until(echoOff(timeout: timeout), pausing: { 20 })
    }

    private func echoOff(timeout: Double) -> () -> Bool? {
        let deadline = Self.now() + timeout
        return { [unowned self] in
            var mode = termios()
            if tcgetattr(master, &mode) == 0, mode.c_lflag & tcflag_t(ECHO) == 0 { return true }
            return Self.now() < deadline ? nil : false
        }
    }

    // MARK: - Internals

    /// Runs `step` until it has a result, reading the terminal between tries for at most what
    /// `pause` says (in milliseconds): the thread waits in `poll`. What the child wrote is read
    /// before each try, so a deadline is judged on everything written by then (``until(_:pausing:isolation:)``).
    private func until<Result>(_ step: () throws -> Result?, pausing pause: () -> Int32) rethrows -> Result {
        while true {
            pump(milliseconds: 0)
            if let result = try step() { return result }
            pump(milliseconds: pause())
        }
    }

    /// Runs `step` until it has a result, reading what the terminal has between tries and
    /// suspending the task (at most 10 ms at a time) while it has nothing: no thread of Swift's
    /// cooperative pool is held, so another test's `Task.sleep` ends on time.
    ///
    /// The terminal is read before each try, never only after it: a task can resume long after
    /// its sleep ended (beside hundreds of tests on two cores, every thread of the pool is busy
    /// for tens of seconds), and a try that judged its deadline first would fail with what it
    /// read before the sleep, while the child's answer waited unread in the terminal.
    private func until<Result>(
        _ step: () throws -> Result?, pausing pause: () -> Int32, isolation: isolated (any Actor)? = #isolation
    ) async rethrows -> Result {
        while true {
            let ready = pump(milliseconds: 0)
            if let result = try step() { return result }
            if !ready { try? await Task.sleep(for: .milliseconds(Int(min(max(pause(), 1), 10)))) }
        }
    }

    // MARK: - Internals

    /// Reads whatever the terminal and the output pipe have, waiting at most `milliseconds` for
    /// the first byte; returns whether anything was ready.
    @discardableResult
    private func pump(milliseconds: Int32) -> Bool {
        var fds = [master, outputPipe].map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        guard master >= 0 || outputPipe >= 0 else {
            if milliseconds > 0 { usleep(UInt32(milliseconds) * 1000) }
            return false
        }
        guard poll(&fds, 2, milliseconds) > 0 else { return false }
        if fds[0].revents != 0 { drain(&master, into: &transcript) }
        if fds[1].revents != 0 { drain(&outputPipe, into: &standardOutput) }
        return true
    }

    private func hasPendingOutput() -> Bool {
        var fds = [pollfd(fd: master, events: Int16(POLLIN), revents: 0)]
        return poll(&fds, 1, 0) > 0 && fds[0].revents & Int16(POLLIN) != 0
    }

    /// Reads everything available from `fd`; closes it at end of file (EIO on a master whose slave is gone).
    private func drain(_ fd: inout Int32, into bytes: inout [UInt8]) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while fd >= 0 {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                bytes += buffer[0..<n]
            } else if n < 0, errno == EINTR {
                continue
            } else if n < 0, errno == EAGAIN {
                return
            } else {
                Glibc.close(fd)
                fd = -1
            }
        }
    }

    /// For a form child that has ended: throws when it never said it runs its form (its test
    /// was skipped there, or took another path), so that such a test cannot pass on nothing.
    private func checkFormRan() throws {
        guard formStarted == false, termination != nil else { return }
        var report: [UInt8] = []
        drain(&reportPipe, into: &report)
        if !report.isEmpty { formStarted = true }
        if formStarted == false { throw FormChild.notRun(termination: termination!) }
    }

    private func reap(flags: Int32) {
        var status: Int32 = 0
        let result = waitpid(pid, &status, flags)
        guard result == pid else { return }
        termination = Spawn.termination(status)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Range<Int>? {
        guard !needle.isEmpty else { return start..<start }
        guard haystack.count - start >= needle.count else { return nil }
        for index in start...(haystack.count - needle.count) where haystack[index] == needle[0] {
            if haystack[index..<(index + needle.count)].elementsEqual(needle) { return index..<(index + needle.count) }
        }
        return nil
    }

    /// `fd` itself when it is above `limit` (or -1), else a close-on-exec copy above it, `fd` closed.
    private static func above(_ limit: Int32, _ fd: Int32) -> Int32 {
        guard fd >= 0, fd <= limit else { return fd }
        let high = fcntl(fd, F_DUPFD_CLOEXEC, limit + 1)
        Glibc.close(fd)
        return high
    }

    private static func now() -> Double { Spawn.now() }

    private static func failure(_ call: String) -> Failure {
        Failure(message: "\(call): \(String(cString: strerror(errno)))")
    }
}
