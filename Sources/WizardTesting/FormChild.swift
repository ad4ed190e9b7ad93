import Glibc
import Synchronization
import Testing

extension PseudoTerminal {
    /// Runs `form` in a child process at a new pseudo-terminal and returns the terminal to drive;
    /// call it from a `@Test` function.
    ///
    /// The child is this test binary started again for the calling test alone (as a death test
    /// is): it runs the test up to this call, then `form` with the terminal as its standard
    /// input, output and error and as its controlling terminal, so Ctrl-C (`"\u{03}"`) is SIGINT,
    /// Ctrl-Z stops it and the window size is the terminal's. It exits when `form` returns (0)
    /// or with the status `form` exits with (`Form.runOrExit`'s). What runs before the call in
    /// the test runs twice; the n-th call of a test runs the n-th form. A parameterized test
    /// gets an error: every case of the test would run in the child. `form` runs in a task of its
    /// own (with the test's task-local values), so a Ctrl-C that cancels a check or a submit
    /// cancels that task, not the test, and the child's screen holds only the conversation.
    ///
    /// ```swift
    /// let terminal = try await PseudoTerminal.start { _ = await signUpForm.runOrExit(submit: save) }
    /// try terminal.expect("Username: ")
    /// ```
    public static func start(
        environment: [String: String] = PseudoTerminal.environment(), rows: UInt16 = 24, columns: UInt16 = 80,
        pipeStandardOutput: Bool = false, isolation: isolated (any Actor)? = #isolation, _ form: () async -> Void
    ) async throws -> PseudoTerminal {
        let child = try FormChild.next()
        if child.isThisProcess { await child.run(form) }
        return try PseudoTerminal(
            executable: FormChild.executable, arguments: child.arguments, environment: child.environment(environment),
            rows: rows, columns: columns, pipeStandardOutput: pipeStandardOutput, standardDescriptorsAt: 3, reportsFormStart: true)
    }
}

/// A form run through pipes, as a script runs it: what it wrote and how it ended.
public struct ScriptRun: Sendable {
    /// How the child ended: `.exited(66)` for input that ended early, with `Form.runOrExit`.
    public let termination: PseudoTerminal.Termination
    /// Everything written to standard output (the program's result), as text: the same as
    /// ``standardOutputText``.
    public let standardOutput: String
    /// Everything written to standard error (the conversation, the errors).
    public let standardError: String
    /// Everything written to standard output, byte for byte, as ``PseudoTerminal/standardOutput`` holds it.
    public let standardOutputBytes: [UInt8]

    /// Everything written to standard output as text (invalid UTF-8 repaired): the name
    /// ``PseudoTerminal/standardOutputText`` has too, so a test reads either run's result alike.
    public var standardOutputText: String { standardOutput }

    /// The exit status, or 128 plus the signal that ended the child, as a shell says it.
    public var status: Int32 {
        switch termination {
        case .exited(let code): code
        case .signaled(let signal): 128 + signal
        }
    }

    /// Runs `form` in a child process (as ``PseudoTerminal/start(environment:rows:columns:pipeStandardOutput:isolation:_:)``
    /// does) with `input` on a pipe as standard input, and waits at most `timeout` seconds (20 by
    /// default) for it to end, then kills it and throws; call it from a `@Test` function. It
    /// throws too when the child ended without running `form` (its test was skipped there, for
    /// a condition on an environment the child does not have): never a pass on nothing.
    ///
    /// ```swift
    /// let run = try await ScriptRun("bob\n") { _ = await signUpForm.runOrExit(submit: save) }
    /// #expect(run.status == 66)
    /// ```
    public init(
        _ input: String, environment: [String: String] = PseudoTerminal.environment(), timeout: Double = 20,
        isolation: isolated (any Actor)? = #isolation, _ form: () async -> Void
    ) async throws {
        let child = try FormChild.next()
        if child.isThisProcess { await child.run(form) }
        self = try await Self.spawn(input, child.arguments, child.environment(environment), timeout: timeout)
    }

    private init(termination: PseudoTerminal.Termination, standardOutput: [UInt8], standardError: [UInt8]) {
        self.termination = termination
        self.standardOutputBytes = standardOutput
        self.standardOutput = String(decoding: standardOutput, as: UTF8.self)
        self.standardError = String(decoding: standardError, as: UTF8.self)
    }

    /// Starts the child and feeds and reads its pipes until it is done. It never blocks a thread
    /// of the cooperative pool: each pipe is polled without waiting, and the task sleeps between tries.
    private static func spawn(
        _ input: String, _ arguments: [String], _ environment: [String: String], timeout: Double,
        isolation: isolated (any Actor)? = #isolation
    ) async throws -> ScriptRun {
        // Each pipe's child end goes to descriptor 3, 4 or 5; the parent's ends are close-on-exec.
        var ends: [[Int32]] = []
        defer { for pair in ends { for fd in pair where fd >= 0 { Glibc.close(fd) } } }
        for _ in 0..<4 {  // standard input, output, error, and the child's report (FormChild)
            var pair: [Int32] = [-1, -1]
            guard pipe(&pair) == 0 else { throw PseudoTerminal.Failure(message: "pipe: \(String(cString: strerror(errno)))") }
            ends.append(pair.map { fd in
                let high = fcntl(fd, F_DUPFD_CLOEXEC, 10)  // above 0...6, which the file actions open
                Glibc.close(fd)
                return high
            })
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in 0...2 { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_RDWR, 0) }
        posix_spawn_file_actions_adddup2(&actions, ends[0][0], 3)
        posix_spawn_file_actions_adddup2(&actions, ends[1][1], 4)
        posix_spawn_file_actions_adddup2(&actions, ends[2][1], 5)
        posix_spawn_file_actions_adddup2(&actions, ends[3][1], FormChild.reportDescriptor)
        guard case .success(let pid) = Spawn.run(FormChild.executable, arguments, environment, &actions, keeping: FormChild.reportDescriptor + 1) else {
            throw PseudoTerminal.Failure(message: "posix_spawn \(FormChild.executable) failed")
        }
        for index in 0..<4 {  // the child's ends, closed here so end of file comes when it is done
            let child = index == 0 ? 0 : 1
            Glibc.close(ends[index][child])
            ends[index][child] = -1
        }
        var toWrite = Array(input.utf8)[...]
        var output: [[UInt8]] = [[], [], []]
        let deadline = Spawn.now() + timeout
        var overdueReads = 0
        while ends[0][1] >= 0 || ends[1][0] >= 0 || ends[2][0] >= 0 || ends[3][0] >= 0 {
            if ends[0][1] >= 0, toWrite.isEmpty {
                Glibc.close(ends[0][1])
                ends[0][1] = -1
            }
            var fds = [pollfd(fd: ends[0][1], events: Int16(POLLOUT), revents: 0),
                       pollfd(fd: ends[1][0], events: Int16(POLLIN), revents: 0),
                       pollfd(fd: ends[2][0], events: Int16(POLLIN), revents: 0),
                       pollfd(fd: ends[3][0], events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 4, 0) > 0
            // The deadline is judged when the pipes have nothing more, never by the clock alone:
            // this task can resume a minute after its sleep ended (every thread of the pool busy
            // with other tests), and by then the child may have written everything and ended.
            // Past the deadline, a child that never stops writing gets 256 more reads.
            if Spawn.now() >= deadline { overdueReads += 1 }
            if overdueReads > 0, !ready || overdueReads > 256 {
                kill(pid, SIGKILL)
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0, errno == EINTR {}
                throw PseudoTerminal.Failure(message: "the form still ran after \(timeout) s; it wrote \(String(decoding: output[1], as: UTF8.self).debugDescription)")
            }
            guard ready else {
                try? await Task.sleep(for: .milliseconds(10))
                continue
            }
            if fds[0].revents & Int16(POLLOUT) != 0 {
                let written = toWrite.withUnsafeBytes { Glibc.write(ends[0][1], $0.baseAddress, min($0.count, 4096)) }
                if written > 0 { toWrite = toWrite.dropFirst(written) }
            }
            if fds[0].revents & Int16(POLLERR | POLLHUP) != 0 {  // the child stopped reading: the rest is not wanted
                toWrite = []
            }
            for index in 1...3 where fds[index].revents != 0 {
                var buffer = [UInt8](repeating: 0, count: 65_536)
                let got = buffer.withUnsafeMutableBytes { Glibc.read(ends[index][0], $0.baseAddress, $0.count) }
                if got > 0 {
                    output[index - 1] += buffer[0..<got]
                } else if got == 0 || errno != EINTR {
                    Glibc.close(ends[index][0])
                    ends[index][0] = -1
                }
            }
        }
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped < 0 && errno != EINTR) { break }
            if reaped == 0 { try? await Task.sleep(for: .milliseconds(5)) }
        }
        let termination = Spawn.termination(status)
        // The report holds a byte once the child found its form: none, and nothing ran.
        guard !output[2].isEmpty else { throw FormChild.notRun(termination: termination) }
        return ScriptRun(termination: termination, standardOutput: output[0], standardError: output[1])
    }
}

/// The test binary started again to run one form: which start of which test it is.
struct FormChild {
    /// Set in the child's environment to ``marker``: the start that is to run its form there.
    static let variable = "WIZARD_TESTING_FORM"
    /// The starts made so far by each test in this process: the n-th start of a test runs its n-th form.
    private static let starts = Mutex<[String: Int]>([:])

    /// `n test-id`: the n-th start of that test.
    let marker: String
    /// The arguments that make the test binary run that test alone.
    let arguments: [String]

    /// The child's descriptor where it says it found its form and runs it (one byte, then closed):
    /// a child whose test was skipped there, or took another path, never writes it.
    static let reportDescriptor: Int32 = 6
    /// Set in the child's environment when ``reportDescriptor`` is open for the report.
    static let reportVariable = "WIZARD_TESTING_REPORT"

    /// The child's environment: `environment` and what tells the child which form to run.
    func environment(_ environment: [String: String]) -> [String: String] {
        var environment = environment
        environment[Self.variable] = marker
        environment[Self.reportVariable] = "\(Self.reportDescriptor)"
        return environment
    }

    /// Why a child that ended without running its form is an error, not a pass.
    static func notRun(termination: PseudoTerminal.Termination) -> PseudoTerminal.Failure {
        PseudoTerminal.Failure(message: """
            the child ended (\(termination)) without running its form: the test did not reach this call in the child process. \
            A test enabled or skipped by a condition (.enabled(if:), .disabled(if:)) decided it from what the \
            child sees: the environment given to the child (PseudoTerminal.environment() and your overrides, \
            not this process's), or another state of the machine. Pass what the condition reads in the \
            environment, or decide it in the test's body.
            """)
    }

    /// Whether this process is the child started for this start.
    var isThisProcess: Bool { getenv(Self.variable).map { String(cString: $0) } == marker }

    /// The test binary: the executable of this process.
    static let executable: String = {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        return count > 0 ? String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
    }()

    /// The next start of the current test.
    static func next() throws -> FormChild {
        guard let test = Test.current else {
            throw PseudoTerminal.Failure(message: "a form runs in a child only from a @Test function (Test.current is nil)")
        }
        guard !test.isParameterized else {
            throw PseudoTerminal.Failure(message: "a parameterized test cannot run a form in a child: each of its cases would run there")
        }
        let id = "\(test.id)"
        let count = starts.withLock { starts in
            defer { starts[id, default: 0] += 1 }
            return starts[id, default: 0]
        }
        // The test's id, with its file and line, as a pattern that matches it alone.
        let pattern = String(id.flatMap { "\\^$.|?*+()[]{}".contains($0) ? ["\\", $0] : [$0] })
        return FormChild(marker: "\(count) \(id)", arguments: ["--testing-library", "swift-testing", "--filter", pattern])
    }

    /// In the child: the descriptors the parent put at 3, 4 and 5 become standard input, output
    /// and error, `form` runs, and the process exits (0 when `form` returns).
    ///
    /// `form` runs in a task of its own, on the caller's actor, not in the test's task: Ctrl-C
    /// during a check or a submit cancels the task the form runs in, and the testing library
    /// takes a cancellation of a test's task from another task (the runner's watcher) for a
    /// misuse of its test cancellation, and prints that issue on the form's screen.
    func run(_ form: () async -> Void, isolation: isolated (any Actor)? = #isolation) async -> Never {
        fflush(nil)  // nothing the test runner buffered goes to the form's output
        for fd: Int32 in 0...2 { dup2(fd + 3, fd) }
        for fd: Int32 in 3...5 { close(fd) }
        if getenv(Self.reportVariable).map({ String(cString: $0) }) == "\(Self.reportDescriptor)" {
            var found: UInt8 = 1
            _ = write(Self.reportDescriptor, &found, 1)  // the parent knows the form runs
            close(Self.reportDescriptor)
        }
        await withoutActuallyEscaping(form) { form in
            let held = Held(form: form)
            // Awaited here, so `form` never outlives this call; the process exits right after.
            await Task {
                _ = isolation
                await held.form()
            }.value
        }
        exit(0)
    }

    /// The form, handed to its own task, which this process awaits before it exits.
    private struct Held: @unchecked Sendable {
        let form: () async -> Void
    }
}
