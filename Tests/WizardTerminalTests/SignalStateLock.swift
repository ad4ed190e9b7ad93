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
        try await function()
    }
}

extension Trait where Self == SignalStateLock {
    /// One at a time with every other test that changes the process's signal state.
    static var signalStateLock: Self { SignalStateLock() }
}
