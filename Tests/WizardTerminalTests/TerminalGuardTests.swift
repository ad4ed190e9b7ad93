import Glibc
import SignupCore
import Testing
import WizardTerminal

/// What `sigaction` reports for `sig`: the handler's address and the flags.
private func disposition(_ sig: Int32) -> (handler: UInt, flags: Int32) {
    var action = sigaction()
    _ = sigaction(sig, nil, &action)
    let handler = withUnsafeBytes(of: &action.__sigaction_handler) { $0.load(as: UInt.self) }
    // glibc adds SA_RESTORER (its return trampoline) to every action it installs; it is not the program's.
    let restorer: Int32 = 0x0400_0000
    return (handler, action.sa_flags & ~restorer)
}

private func isBlocked(_ sig: Int32) -> Bool {
    var current = sigset_t()
    pthread_sigmask(SIG_BLOCK, nil, &current)
    return sigismember(&current, sig) == 1
}

/// A handler a host program had before the guard: a C function that does nothing.
private let hostHandler: @convention(c) (Int32) -> Void = { _ in }

/// The guard changes the whole process: these tests run one at a time.
@Suite(.serialized, .signalStateLock) struct TerminalGuardTests {
    static let watched: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGCONT, SIGWINCH, SIGUSR1, SIGSEGV, SIGABRT]

    @Test func installThenUninstallLeavesEverySignalsActionAsItWas() {
        let before = Self.watched.map(disposition)
        TerminalGuard.install()
        #expect(TerminalGuard.isInstalled)
        #expect(disposition(SIGINT).handler != before[0].handler, "install() did not handle SIGINT")
        TerminalGuard.uninstall()
        #expect(!TerminalGuard.isInstalled)
        for (sig, old) in zip(Self.watched, before) {
            let now = disposition(sig)
            #expect(now.handler == old.handler && now.flags == old.flags, "signal \(sig): \(now) after, \(old) before")
        }
    }

    /// A host's own SIGINT handler, an ignored SIGTERM and a blocked SIGHUP come back as they were.
    @Test func aHostsHandlerIgnoredSignalAndBlockedSignalComeBack() {
        var host = sigaction()
        host.__sigaction_handler.sa_handler = hostHandler
        var old = sigaction()
        sigaction(SIGINT, &host, &old)
        signal(SIGTERM, SIG_IGN)
        var hup = sigset_t()
        sigemptyset(&hup)
        sigaddset(&hup, SIGHUP)
        pthread_sigmask(SIG_BLOCK, &hup, nil)
        defer {
            sigaction(SIGINT, &old, nil)
            signal(SIGTERM, SIG_DFL)
            pthread_sigmask(SIG_UNBLOCK, &hup, nil)
        }
        let intBefore = disposition(SIGINT), termBefore = disposition(SIGTERM)
        TerminalGuard.install()
        #expect(!isBlocked(SIGHUP), "install() lets SIGHUP through so that it restores the terminal")
        TerminalGuard.uninstall()
        #expect(disposition(SIGINT) == intBefore)
        #expect(disposition(SIGTERM) == termBefore)
        #expect(isBlocked(SIGHUP), "uninstall() did not block SIGHUP again")
    }

    @Test func installAgainAfterUninstallWorks() {
        let before = disposition(SIGTERM)
        TerminalGuard.install()
        TerminalGuard.uninstall()
        TerminalGuard.install()
        #expect(disposition(SIGTERM).handler != before.handler)
        TerminalGuard.uninstall()
        #expect(disposition(SIGTERM) == before)
    }

    /// A program that runs a wizard at a terminal without installing the guard still gets its
    /// terminal restored by a signal (echo was once left off by Ctrl-C): the
    /// runner installs it, and removes only what it installed.
    @Test func aRunnerAtATerminalInstallsTheGuardItNeedsAndRemovesItAfter() throws {
        var master: Int32 = -1, slave: Int32 = -1
        try #require(openpty(&master, &slave, nil, nil, nil) == 0)
        defer { close(master); close(slave) }
        let before = Self.watched.map(disposition)
        var options = RunnerOptions(programName: "test", environment: ["TERM": "xterm"])
        options.input = slave
        options.output = slave
        let runner = try TerminalRunner(options)
        #expect(runner.mode == .interactive)
        #expect(TerminalGuard.isInstalled, "a runner at a terminal left signals unhandled")
        runner.close()
        #expect(!TerminalGuard.isInstalled)
        #expect(Self.watched.map(disposition).map(\.handler) == before.map(\.handler))

        TerminalGuard.install()  // the program's own: the runner leaves it in place
        let second = try TerminalRunner(options)
        second.close()
        #expect(TerminalGuard.isInstalled)
        TerminalGuard.uninstall()
    }
}
