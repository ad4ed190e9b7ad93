import Glibc
import Testing

/// Tests that change the process's signal actions or the signal guard (install, uninstall) run
/// one at a time across every suite and test target of the test process: Swift Testing runs
/// suites in parallel, and another target's test installing the guard meanwhile changed what
/// `TerminalGuardTests` saw. An `flock` on one file is that lock (ExampleTests takes it too).
struct SignalStateLock: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil else { return try await function() }
        let fd = open("/tmp/signup-tests-signal-state.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        defer { if fd >= 0 { close(fd) } }
        if fd >= 0 { _ = flock(fd, LOCK_EX) }
        ignoreBrokenPipesBeforeTheGuard()
        try await function()
    }
}

extension Trait where Self == SignalStateLock {
    /// One at a time with every other test that changes the process's signal state.
    static var signalStateLock: Self { SignalStateLock() }
}

/// The guard takes every signal whose default action ends the process, SIGPIPE too, unless the
/// process already ignores it. Installed in the test process, it made a broken pipe written by
/// another target's test meanwhile (a child that exited before reading all its input) end the
/// whole test process by SIGPIPE. The test process ignores SIGPIPE first, as its other targets
/// do (CLITests' `ignoreBrokenPipes`), so the guard leaves it alone.
func ignoreBrokenPipesBeforeTheGuard() {
    signal(SIGPIPE, SIG_IGN)
}
