import Glibc
import Synchronization

/// Puts the terminal back the way it was on every way out: normal exit, signals, stop and continue, crashes.
///
/// `install()` saves the mode of standard input, then:
/// - SIGTERM, SIGHUP, SIGQUIT restore it, reset the signal to its default and re-raise it,
///   so the process dies by the signal and its parent sees that.
/// - SIGINT during a `TerminalSession` read ends that read with `.interrupted`;
///   at any other time it restores the terminal and re-raises (exit status 130 in a shell).
/// - SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS restore it and hand the signal to the
///   handler that was there before (Swift's crash report), which then runs.
/// - SIGTSTP (Ctrl-Z) restores it and stops; on continue it re-applies the mode that was
///   active (a password prompt stays masked) and the session redraws its prompt.
public enum TerminalGuard {
    /// Saves the terminal mode of standard input and installs the handlers; later calls do nothing.
    public static func install() {
        guard !GuardState.installed.exchange(true, ordering: .sequentiallyConsistent) else { return }
        let state = GuardState.prepare()  // lazy statics initialised before any handler can run
        if SignalSafe.getMode(0, state.saved) {
            GuardState.hasSaved.store(true, ordering: .sequentiallyConsistent)
        }
        if let pipe = try? Sys.makePipe() {
            GuardState.wakeRead.store(pipe.read, ordering: .sequentiallyConsistent)
            GuardState.wakeWrite.store(pipe.write, ordering: .sequentiallyConsistent)
        }
        // SA_RESTART keeps other code's system calls from failing with EINTR; the session waits
        // in poll(2), which a handler always interrupts, and also watches the wake-up pipe.
        let restart = SA_RESTART
        for sig in [SIGTERM, SIGHUP, SIGQUIT] {
            SignalSafe.setHandler(sig, onFatalSignal, flags: restart)
        }
        SignalSafe.setHandler(SIGINT, onInterrupt, flags: restart)
        SignalSafe.setHandler(SIGTSTP, onStop, flags: restart)
        SignalSafe.setHandler(SIGCONT, onContinue, flags: restart)
        SignalSafe.setHandler(SIGWINCH, onResize, flags: restart)
        for sig in [SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS] {
            SignalSafe.setInfoHandler(sig, onCrash, flags: restart | Int32(truncatingIfNeeded: SA_ONSTACK),
                                      previous: state.previous + Int(sig))
        }
    }

    /// Holds SIGINT, SIGTERM, SIGHUP and SIGQUIT back while an account is written, so that the
    /// exit code tells the truth: a signal that arrives now is acted on by ``releaseSignals()``,
    /// or never, when the write succeeded and the program goes on to report it.
    public static func holdSignals() {
        GuardState.holding.store(true, ordering: .sequentiallyConsistent)
    }

    /// Stops holding signals; one that arrived meanwhile now ends the process as it would have.
    public static func releaseSignals() {
        GuardState.holding.store(false, ordering: .sequentiallyConsistent)
        let sig = GuardState.heldSignal.exchange(0, ordering: .sequentiallyConsistent)
        guard sig != 0 else { return }
        GuardState.restoreSaved()
        SignalSafe.setHandler(sig, nil, flags: 0)
        SignalSafe.raiseSignal(sig)
    }

    /// Puts back the terminal mode saved by `install()`; safe to call at any time, any number of times.
    public static func restore() {
        guard GuardState.hasSaved.load(ordering: .sequentiallyConsistent) else { return }
        SignalSafe.setMode(0, GuardState.shared.saved)
    }
}

/// The little state signal handlers share with the session: atomics and memory that is never freed.
enum GuardState {
    /// Termios storage reached through pointers, so handlers never touch Swift-managed memory.
    struct Storage: @unchecked Sendable {
        let saved = UnsafeMutablePointer<termios>.allocate(capacity: 1)
        let active = UnsafeMutablePointer<termios>.allocate(capacity: 1)
        let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
        init() {
            saved.initialize(to: termios())
            active.initialize(to: termios())
            previous.initialize(repeating: sigaction(), count: 65)
        }
    }

    static let shared = Storage()
    static let installed = Atomic<Bool>(false)
    static let hasSaved = Atomic<Bool>(false)
    static let reading = Atomic<Bool>(false)
    static let holding = Atomic<Bool>(false)
    static let heldSignal = Atomic<Int32>(0)
    static let interruptPending = Atomic<Bool>(false)
    static let resumed = Atomic<Bool>(false)
    static let resized = Atomic<Bool>(false)
    static let wakeRead = Atomic<Int32>(-1)
    static let wakeWrite = Atomic<Int32>(-1)

    /// Initialises every lazy static now: a handler must never be the first to touch one.
    static func prepare() -> Storage {
        _ = (hasSaved.load(ordering: .relaxed), reading.load(ordering: .relaxed))
        _ = (holding.load(ordering: .relaxed), heldSignal.load(ordering: .relaxed))
        _ = (interruptPending.load(ordering: .relaxed), resumed.load(ordering: .relaxed))
        _ = (resized.load(ordering: .relaxed), wakeRead.load(ordering: .relaxed), wakeWrite.load(ordering: .relaxed))
        return shared
    }

    /// Marks the start of a read: from now on SIGINT ends the read instead of the process.
    static func beginReading() {
        _ = interruptPending.exchange(false, ordering: .sequentiallyConsistent)
        reading.store(true, ordering: .sequentiallyConsistent)
    }

    /// Marks the end of a read: SIGINT ends the process again.
    static func endReading() {
        reading.store(false, ordering: .sequentiallyConsistent)
    }

    /// Whether a SIGINT arrived during this read (and forgets it).
    static func takeInterrupt() -> Bool { interruptPending.exchange(false, ordering: .sequentiallyConsistent) }

    /// Whether the process was continued after a stop since the last call.
    static func takeResumed() -> Bool { resumed.exchange(false, ordering: .sequentiallyConsistent) }

    /// Whether the window size changed since the last call.
    static func takeResized() -> Bool { resized.exchange(false, ordering: .sequentiallyConsistent) }

    /// Wakes a session waiting in poll(2) on another thread.
    static func wake() { SignalSafe.poke(wakeWrite.load(ordering: .relaxed)) }

    /// Records `sig` for ``TerminalGuard/releaseSignals()`` when signals are held; false otherwise.
    static func hold(_ sig: Int32) -> Bool {
        guard holding.load(ordering: .sequentiallyConsistent) else { return false }
        _ = heldSignal.compareExchange(expected: 0, desired: sig, ordering: .sequentiallyConsistent)
        return true
    }

    static func restoreSaved() {
        if hasSaved.load(ordering: .relaxed) { SignalSafe.setMode(0, shared.saved) }
    }
}

// The handlers below call only tcgetattr, tcsetattr, sigaction, pthread_sigmask, raise and write.

private func onFatalSignal(_ sig: Int32) {
    if GuardState.hold(sig) { return }
    GuardState.restoreSaved()
    SignalSafe.setHandler(sig, nil, flags: 0)
    SignalSafe.raiseSignal(sig)  // blocked until this handler returns, then kills the process
}

private func onInterrupt(_ sig: Int32) {
    let savedErrno = SignalSafe.savedErrno
    if GuardState.reading.load(ordering: .sequentiallyConsistent) {
        GuardState.interruptPending.store(true, ordering: .sequentiallyConsistent)
        GuardState.wake()
    } else if !GuardState.hold(sig) {
        GuardState.restoreSaved()
        SignalSafe.setHandler(sig, nil, flags: 0)
        SignalSafe.raiseSignal(sig)
    }
    SignalSafe.savedErrno = savedErrno
}

private func onStop(_ sig: Int32) {
    let savedErrno = SignalSafe.savedErrno
    let state = GuardState.shared
    let haveMode = GuardState.hasSaved.load(ordering: .relaxed) && SignalSafe.getMode(0, state.active)
    if haveMode { SignalSafe.setMode(0, state.saved) }
    SignalSafe.setHandler(SIGTSTP, nil, flags: 0)
    SignalSafe.raiseSignal(SIGTSTP)
    SignalSafe.unblock(SIGTSTP)  // the process stops here until SIGCONT
    SignalSafe.setHandler(SIGTSTP, onStop, flags: SA_RESTART)
    if haveMode { SignalSafe.setMode(0, state.active) }
    GuardState.resumed.store(true, ordering: .sequentiallyConsistent)
    GuardState.wake()
    SignalSafe.savedErrno = savedErrno
}

private func onContinue(_ sig: Int32) {
    let savedErrno = SignalSafe.savedErrno
    GuardState.resumed.store(true, ordering: .sequentiallyConsistent)
    GuardState.wake()
    SignalSafe.savedErrno = savedErrno
}

private func onResize(_ sig: Int32) {
    let savedErrno = SignalSafe.savedErrno
    GuardState.resized.store(true, ordering: .sequentiallyConsistent)
    GuardState.wake()
    SignalSafe.savedErrno = savedErrno
}

private func onCrash(_ sig: Int32, _ info: UnsafeMutablePointer<siginfo_t>?, _ context: UnsafeMutableRawPointer?) {
    GuardState.restoreSaved()
    SignalSafe.reinstall(sig, GuardState.shared.previous + Int(sig))
    // A fault raised by the CPU (si_code > 0) happens again when this handler returns, now with
    // the previous handler in place and the original context.
    if sig != SIGTRAP, let info, info.pointee.si_code > 0 { return }
    // A sent signal (and SIGTRAP, whose instruction does not run again) is handed to the previous
    // handler now; Swift's crash reporter returns expecting a second fault, so then die by default.
    SignalSafe.raiseSignal(sig)
    SignalSafe.unblock(sig)
    SignalSafe.setHandler(sig, nil, flags: 0)
    SignalSafe.raiseSignal(sig)
}
