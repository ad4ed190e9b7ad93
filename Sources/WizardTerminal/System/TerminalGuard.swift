import Glibc
import Synchronization

/// Puts the terminal back the way it was on every way out: normal exit, signals, stop and continue, crashes.
///
/// Nothing is installed by itself: a program calls `install()` once, before it changes a terminal
/// mode (a `TerminalSession`, `withEchoOff`), and may call `uninstall()` when it is done.
/// The terminal it puts back is the one in use: standard input's from `install()`, and while a
/// `TerminalSession` is open, that session's input descriptor (`/dev/tty` included) with the mode
/// it found there; lines a signal ends go to that session's output.
///
/// `install()` saves the mode of standard input when it is a terminal, then:
/// - every signal whose default action ends the process (SIGTERM, SIGHUP, SIGQUIT, SIGUSR1,
///   SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGSTKFLT, SIGPWR, SIGSYS, the
///   real-time signals…) and that nobody else handles or ignores restores it, ends the line a
///   prompt left open, resets the signal to its default and re-raises it, so the process dies
///   by the signal and its parent sees that.
/// - SIGINT during a `TerminalSession` read (its wait for quiet input before the prompt
///   included) ends that read with `.interrupted`; at any other
///   time it does the same as above, after writing the report set with
///   ``prepareInterruptReport(conversation:result:)`` ("Nothing was saved.", a JSON result).
/// - SIGILL, SIGTRAP, SIGABRT, SIGFPE, SIGSEGV, SIGBUS restore it and end the process by the
///   signal's default action (the core size limit is 0: no core). Swift's crash reporter, which
///   at a terminal offers an interactive debugger and holds the terminal 30 s, runs only when
///   a developer asked for it with `SWIFT_BACKTRACE`.
/// - SIGTSTP (Ctrl-Z) restores it and stops; on continue it re-applies the mode that was
///   active (a password prompt stays masked) and the session redraws its prompt.
public enum TerminalGuard {
    /// Saves the terminal mode of standard input and installs the handlers; later calls do nothing until `uninstall()`.
    ///
    /// When SIGTSTP is ignored (``ProcessSignals/ignoreJobControl()``), the terminal's suspend key
    /// is also turned off until `uninstall()` or the process's end, whichever comes first: a
    /// Ctrl-Z would stop nothing, but the terminal would discard everything typed before it.
    public static func install() {
        guard !GuardState.installed.exchange(true, ordering: .sequentiallyConsistent) else { return }
        let state = GuardState.prepare()  // lazy statics initialised before any handler can run
        GuardState.changed.store(0, ordering: .sequentiallyConsistent)
        if let mode = try? Sys.terminalMode(0) {
            let token = GuardState.guardTerminal(0, mode: mode, output: 2).current
            GuardState.installToken.store(token, ordering: .sequentiallyConsistent)
            // A run that ignores SIGTSTP (job control off, as over SSH) gives the terminal no
            // suspend key while it is installed: the terminal would still discard everything
            // typed before a Ctrl-Z (a line being typed, keys typed ahead), for a signal that
            // stops nothing. The key comes back with `uninstall()`, at exit, and with the saved
            // mode on every signal that ends the process.
            if SignalSafe.isIgnored(SIGTSTP) { GuardState.takeSuspendKey(mode) }
        }
        if let pipe = try? Sys.makePipe() {
            GuardState.wakeRead.store(pipe.read, ordering: .sequentiallyConsistent)
            GuardState.wakeWrite.store(pipe.write, ordering: .sequentiallyConsistent)
        }
        // SA_RESTART keeps other code's system calls from failing with EINTR; the session waits
        // in poll(2), which a handler always interrupts, and also watches the wake-up pipe.
        let restart = SA_RESTART
        let crashes = [SIGILL, SIGTRAP, SIGABRT, SIGFPE, SIGSEGV, SIGBUS]
        let chain = SignalSafe.environmentHas("SWIFT_BACKTRACE")
        // Default action: stop, continue or nothing. SIGKILL and SIGSTOP cannot be caught.
        let harmless = [SIGCHLD, SIGCONT, SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU, SIGURG, SIGWINCH, SIGKILL]
        for sig in 1..<Int32(GuardState.signalSlots) where !crashes.contains(sig) && !harmless.contains(sig) && sig != SIGINT {
            // Leave alone a signal another part of the program ignores (SIGPIPE) or handles;
            // glibc's own real-time signals refuse to be changed.
            // SIGQUIT is the exception: Swift's crash reporter takes it in a dynamically linked
            // build, and a Ctrl-\ would then offer a debugger and hold the terminal for 30 s
            // instead of restoring it. It is taken whatever handler it has, unless ignored or a
            // developer asked for the reporter with SWIFT_BACKTRACE.
            let reporterOwned = sig == SIGQUIT && !chain && !SignalSafe.isIgnored(sig)
            guard SignalSafe.hasDefaultAction(sig) || reporterOwned else { continue }
            GuardState.setHandler(sig, onFatalSignal, flags: restart)
        }
        // A SIGINT or SIGTSTP the parent ignores stays ignored: a non-interactive shell starts
        // background jobs with SIGINT ignored, so a Ctrl-C meant for another program (or
        // `trap '' INT`) must not cancel this one.
        let handlesInterrupt = SignalSafe.hasDefaultAction(SIGINT)
        let handlesStop = SignalSafe.hasDefaultAction(SIGTSTP)
        if handlesInterrupt { GuardState.setHandler(SIGINT, onInterrupt, flags: restart) }
        if handlesStop { GuardState.setHandler(SIGTSTP, onStop, flags: restart) }
        GuardState.setHandler(SIGCONT, onContinue, flags: restart)
        GuardState.setHandler(SIGWINCH, onResize, flags: restart)
        GuardState.chainCrashes.store(chain, ordering: .sequentiallyConsistent)
        for sig in crashes {
            SignalSafe.setInfoHandler(sig, onCrash, flags: restart | Int32(truncatingIfNeeded: SA_ONSTACK),
                                      previous: state.previous + Int(sig))
            GuardState.markChanged(sig)
        }
        // A parent may have left signals blocked (a test runner, a service manager): then Ctrl-C
        // would wait for ever and a SIGTERM would not restore anything. What is handled here is
        // let through (and blocked again by `uninstall()`).
        var letThrough = [SIGTERM, SIGHUP, SIGQUIT, SIGCONT, SIGWINCH]
        if handlesInterrupt { letThrough.append(SIGINT) }
        if handlesStop { letThrough.append(SIGTSTP) }
        var wereBlocked: UInt64 = 0
        for sig in letThrough where Sys.isBlocked(sig) { wereBlocked |= GuardState.bit(sig) }
        GuardState.reblock.store(wereBlocked, ordering: .sequentiallyConsistent)
        for sig in letThrough { SignalSafe.unblock(sig) }
    }

    /// Puts back every signal action `install()` replaced and the signals it unblocked, and closes its
    /// wake-up pipe; does nothing when not installed. Call it when no `TerminalSession` is reading.
    ///
    /// A signal that arrives afterwards is handled as it was before `install()`; the terminal is no longer
    /// restored by it. `install()` may be called again.
    public static func uninstall() {
        guard GuardState.installed.load(ordering: .sequentiallyConsistent) else { return }
        let changed = GuardState.changed.exchange(0, ordering: .sequentiallyConsistent)
        for sig in 1..<Int32(GuardState.signalSlots) where changed & GuardState.bit(sig) != 0 {
            SignalSafe.reinstall(sig, GuardState.shared.previous + Int(sig))
        }
        let reblock = GuardState.reblock.exchange(0, ordering: .sequentiallyConsistent)
        for sig in 1..<Int32(GuardState.signalSlots) where reblock & GuardState.bit(sig) != 0 { Sys.block(sig) }
        Sys.close(GuardState.wakeWrite.exchange(-1, ordering: .sequentiallyConsistent))
        Sys.close(GuardState.wakeRead.exchange(-1, ordering: .sequentiallyConsistent))
        // The terminal `install()` saved is no longer guarded (a session still open keeps its own).
        let token = GuardState.installToken.exchange(-1, ordering: .sequentiallyConsistent)
        if token >= 0 { _ = GuardState.guarded.compareExchange(expected: token, desired: -1, ordering: .sequentiallyConsistent) }
        GuardState.giveBackSuspendKey()
        GuardState.installed.store(false, ordering: .sequentiallyConsistent)
    }

    /// Whether the handlers are installed now.
    public static var isInstalled: Bool { GuardState.installed.load(ordering: .sequentiallyConsistent) }

    /// Sets what a SIGINT that ends the process outside a read writes first, once `install()` ran.
    ///
    /// `conversation` goes to the open session's output (standard error when none), `result` to
    /// standard output (both may be empty). A script, or a person waiting while the password is
    /// hashed, still hears that nothing was saved, and `--json` still gets `{"status":"cancelled"}`.
    /// Each text is cut to 1 KiB. It does not install anything itself.
    public static func prepareInterruptReport(conversation: String, result: String) {
        GuardState.shared.interruptConversation.set(conversation)
        GuardState.shared.interruptResult.set(result)
    }

    /// Ends the process in `seconds` (at least one) unless ``disarmDeadline()`` comes first: the
    /// terminal is restored, the open line ended, `conversation` written and the process exits
    /// with `status`. For a wait bounded from outside (an idle person, a session's time); arm it
    /// only around a read, never while something is written. The corresponding C function is `alarm`.
    public static func armDeadline(seconds: Int, conversation: String, status: Int32) {
        GuardState.shared.deadlineConversation.set(conversation)
        GuardState.deadlineStatus.store(status, ordering: .sequentiallyConsistent)
        // The timer is this program's own: a SIGALRM the parent ignored or blocked still ends the wait.
        GuardState.setHandler(SIGALRM, onFatalSignal, flags: SA_RESTART)
        SignalSafe.unblock(SIGALRM)
        Sys.setAlarm(seconds: max(1, seconds))
    }

    /// Sets what runs when a signal ends the process while a deadline is armed: the deadline
    /// itself (`SIGALRM`), or a hang-up or termination in the middle of the bounded wait. nil: nothing.
    ///
    /// For a record of why the wait ended (a program's audit log). `ending` is called with the
    /// signal's number inside the signal handler, after the terminal is restored and before the
    /// goodbye is written; the process was waiting for input and holds none of its own locks,
    /// and a second alarm already armed ends the process 2 s later wherever `ending` blocks: by
    /// the hang-up or termination that was ending it, or with the deadline's status when the
    /// deadline was it. Keep it to writing text prepared before the wait.
    public static func setDeadlineEnding(_ ending: (@convention(c) (Int32) -> Void)?) {
        GuardState.deadlineEnding.store(ending.map { UInt(bitPattern: unsafeBitCast($0, to: Int.self)) } ?? 0, ordering: .sequentiallyConsistent)
    }

    /// Cancels the deadline ``armDeadline(seconds:conversation:status:)`` set.
    public static func disarmDeadline() {
        Sys.setAlarm(seconds: 0)
        GuardState.deadlineStatus.store(0, ordering: .sequentiallyConsistent)
    }

    /// Names a process group that must not outlive this process (a helper command it waits on,
    /// started in a group of its own), or none with nil: a signal that ends the process through
    /// the guard kills that group (SIGKILL) first, even one that ignores the signal. The group's
    /// owner clears it once it has waited for its child.
    public static func setChildGroup(_ group: pid_t?) {
        GuardState.childGroup.store(max(group ?? 0, 0), ordering: .sequentiallyConsistent)
    }

    /// Says whether a prompt is waiting on an unfinished line (a script's prompt, which
    /// `TerminalSession` does not read): a signal that ends the process ends that line first.
    public static func setPromptOpen(_ open: Bool) {
        GuardState.promptOpen.store(open, ordering: .sequentiallyConsistent)
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
        dieBySignal(sig)
    }

    /// The signal held back since ``holdSignals()``, if one arrived; asking does not release it.
    ///
    /// A long job that holds signals throughout (an import of many batches) polls it, ends at a
    /// point where nothing is half-written, says what it did, and then lets the signal end the
    /// process with ``releaseSignals()``.
    public static var heldSignal: Int32? {
        let sig = GuardState.heldSignal.load(ordering: .sequentiallyConsistent)
        return sig == 0 ? nil : sig
    }

    /// Puts back the saved mode of the guarded terminal (see the type's summary); safe to call at any time, any number of times.
    public static func restore() {
        guard let (fd, mode) = GuardState.guardedTerminal() else { return }
        SignalSafe.setMode(fd, mode)
    }
}

/// The little state signal handlers share with the session: atomics and memory that is never freed.
enum GuardState {
    /// Termios storage reached through pointers, so handlers never touch Swift-managed memory.
    struct Storage: @unchecked Sendable {
        /// Saved modes as a stack, one slot per nested guard (install, a session, `withEchoOff` inside
        /// it…): a new one is written above the one in use, so a handler never reads a mode being
        /// written and an inner guard never overwrites an outer one (``GuardState/guarded`` says which slot).
        let saved = UnsafeMutablePointer<termios>.allocate(capacity: GuardState.savedSlots)
        let active = UnsafeMutablePointer<termios>.allocate(capacity: 1)
        let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: GuardState.signalSlots)
        let interruptConversation = FixedText()
        let interruptResult = FixedText()
        let deadlineConversation = FixedText()
        init() {
            saved.initialize(repeating: termios(), count: GuardState.savedSlots)
            active.initialize(to: termios())
            previous.initialize(repeating: sigaction(), count: GuardState.signalSlots)
        }
    }

    /// Text a handler can write: bytes in memory that is never freed, and their count.
    final class FixedText: @unchecked Sendable {
        static let capacity = 1024
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: FixedText.capacity)
        let count = Atomic<Int>(0)

        func set(_ text: String) {
            count.store(0, ordering: .sequentiallyConsistent)
            let utf8 = Array(text.utf8.prefix(Self.capacity))
            utf8.withUnsafeBufferPointer { bytes.update(from: $0.baseAddress!, count: utf8.count) }
            count.store(utf8.count, ordering: .sequentiallyConsistent)
        }

        /// Writes the text to `fd`; async-signal-safe.
        func write(to fd: Int32) {
            SignalSafe.write(fd, bytes, count.load(ordering: .sequentiallyConsistent))
        }
    }

    /// Signal numbers run from 1 to 64 on Linux.
    static let signalSlots = 65

    static let shared = Storage()
    static let installed = Atomic<Bool>(false)
    /// How deep guards may nest; a deeper one leaves the outer terminal guarded.
    static let savedSlots = 8
    /// The guarded terminal as `descriptor * savedSlots + slot` of ``Storage/saved``; -1 when none.
    static let guarded = Atomic<Int>(-1)
    /// Where a handler ends a prompt's open line and writes the interrupt conversation.
    static let messageOutput = Atomic<Int32>(2)
    /// The value of ``guarded`` that `install()` set, so `uninstall()` clears only its own.
    static let installToken = Atomic<Int>(-1)
    /// Signals whose action `install()` replaced (bit `sig - 1`); their old actions are in ``Storage/previous``.
    static let changed = Atomic<UInt64>(0)
    /// Signals that were blocked before `install()` let them through.
    static let reblock = Atomic<UInt64>(0)
    static let reading = Atomic<Bool>(false)
    /// A read is about to begin: its wait for quiet input runs, no prompt is shown yet (see ``beginWaiting()``).
    static let waiting = Atomic<Bool>(false)
    static let holding = Atomic<Bool>(false)
    /// The exit status a SIGALRM ends the process with once a deadline is armed; 0: none (it dies by the signal).
    static let deadlineStatus = Atomic<Int32>(0)
    /// The signal ending the process while its grace alarm runs (``dieBySignal``): it, not the
    /// deadline's status, is what the process ends by when the grace runs out.
    static let dyingSignal = Atomic<Int32>(0)
    /// The process group ``TerminalGuard/setChildGroup(_:)`` named; 0 for none.
    static let childGroup = Atomic<Int32>(0)
    /// ``TerminalGuard/setDeadlineEnding(_:)``'s function as its address; 0: none.
    static let deadlineEnding = Atomic<UInt>(0)
    static let heldSignal = Atomic<Int32>(0)
    static let interruptPending = Atomic<Bool>(false)
    static let resumed = Atomic<Bool>(false)
    static let resized = Atomic<Bool>(false)
    static let wakeRead = Atomic<Int32>(-1)
    static let wakeWrite = Atomic<Int32>(-1)
    static let promptOpen = Atomic<Bool>(false)
    static let chainCrashes = Atomic<Bool>(false)

    /// Initialises every lazy static now: a handler must never be the first to touch one.
    static func prepare() -> Storage {
        _ = (guarded.load(ordering: .relaxed), messageOutput.load(ordering: .relaxed), reading.load(ordering: .relaxed))
        _ = waiting.load(ordering: .relaxed)
        _ = (installToken.load(ordering: .relaxed), changed.load(ordering: .relaxed), reblock.load(ordering: .relaxed))
        _ = (holding.load(ordering: .relaxed), heldSignal.load(ordering: .relaxed))
        _ = (interruptPending.load(ordering: .relaxed), resumed.load(ordering: .relaxed))
        _ = (resized.load(ordering: .relaxed), wakeRead.load(ordering: .relaxed), wakeWrite.load(ordering: .relaxed))
        _ = (promptOpen.load(ordering: .relaxed), chainCrashes.load(ordering: .relaxed), deadlineEnding.load(ordering: .relaxed))
        _ = (childGroup.load(ordering: .relaxed), dyingSignal.load(ordering: .relaxed), deadlineStatus.load(ordering: .relaxed))
        _ = (suspendKey.load(ordering: .relaxed), givesBackAtExit.load(ordering: .relaxed))
        return shared
    }

    /// The suspend key standard input's terminal had before `install()` turned it off; -1: none taken.
    static let suspendKey = Atomic<Int32>(-1)
    /// Whether the exit handler that gives the key back is registered (once a process).
    static let givesBackAtExit = Atomic<Bool>(false)

    /// Turns off the suspend key of `mode` (standard input's) on the terminal, keeping the key to give back.
    static func takeSuspendKey(_ mode: termios) {
        let key = withUnsafeBytes(of: mode.c_cc) { Int32($0[Int(VSUSP)]) }
        guard key != 0 else { return }  // _POSIX_VDISABLE: none to take
        var keyless = mode
        withUnsafeMutableBytes(of: &keyless.c_cc) { $0[Int(VSUSP)] = 0 }
        guard (try? Sys.setTerminalMode(0, keyless)) != nil else { return }
        suspendKey.store(key, ordering: .sequentiallyConsistent)
        if !givesBackAtExit.exchange(true, ordering: .sequentiallyConsistent) { atexit { GuardState.giveBackSuspendKey() } }
    }

    /// Gives standard input's terminal back the suspend key ``takeSuspendKey(_:)`` took, leaving
    /// the rest of its mode as it is now.
    static func giveBackSuspendKey() {
        let key = suspendKey.exchange(-1, ordering: .sequentiallyConsistent)
        guard key > 0, var mode = try? Sys.terminalMode(0) else { return }
        withUnsafeMutableBytes(of: &mode.c_cc) { $0[Int(VSUSP)] = UInt8(truncatingIfNeeded: key) }
        try? Sys.setTerminalMode(0, mode)
    }

    /// The bit of `sig` in ``changed`` and ``reblock``.
    static func bit(_ sig: Int32) -> UInt64 { 1 << UInt64(sig - 1) }

    /// Records that `sig`'s action was replaced, its old action being in ``Storage/previous``.
    static func markChanged(_ sig: Int32) {
        _ = changed.bitwiseOr(bit(sig), ordering: .sequentiallyConsistent)
    }

    /// Installs `handler` for `sig`, keeping the action it replaces for `uninstall()`.
    static func setHandler(_ sig: Int32, _ handler: @convention(c) (Int32) -> Void, flags: Int32) {
        SignalSafe.setHandler(sig, handler, flags: flags, previous: shared.previous + Int(sig))
        markChanged(sig)
    }

    /// Makes `fd` (whose mode to put back is `mode`) the guarded terminal and `output` (nil: unchanged) where
    /// handlers write; returns what was guarded before, for ``unguard(_:)``, and the new value.
    static func guardTerminal(_ fd: Int32, mode: termios, output: Int32? = nil) -> (previous: (Int, Int32), current: Int) {
        let before = guarded.load(ordering: .sequentiallyConsistent)
        let slot = before >= 0 ? before % savedSlots + 1 : 0
        let previousOutput = messageOutput.load(ordering: .sequentiallyConsistent)
        guard slot < savedSlots else { return ((before, previousOutput), before) }
        shared.saved[slot] = mode
        let token = Int(fd) * savedSlots + slot
        if let output { messageOutput.store(output, ordering: .sequentiallyConsistent) }
        guarded.store(token, ordering: .sequentiallyConsistent)
        return ((before, previousOutput), token)
    }

    /// Puts back what ``guardTerminal(_:mode:output:)`` replaced.
    static func unguard(_ previous: (Int, Int32)) {
        guarded.store(previous.0, ordering: .sequentiallyConsistent)
        messageOutput.store(previous.1, ordering: .sequentiallyConsistent)
    }

    /// The guarded terminal's descriptor and saved mode; async-signal-safe.
    static func guardedTerminal() -> (Int32, UnsafeMutablePointer<termios>)? {
        let token = guarded.load(ordering: .sequentiallyConsistent)
        guard token >= 0 else { return nil }
        return (Int32(token / savedSlots), shared.saved + token % savedSlots)
    }

    /// Marks the start of a read's wait before its prompt: from now on SIGINT ends the read
    /// instead of the process, as at the prompt, but a signal that ends the process writes no
    /// line end (no prompt is open).
    static func beginWaiting() {
        _ = interruptPending.exchange(false, ordering: .sequentiallyConsistent)
        waiting.store(true, ordering: .sequentiallyConsistent)
    }

    /// Marks the start of a read: from now on SIGINT ends the read instead of the process. After
    /// ``beginWaiting()`` a SIGINT that came during the wait is kept for the read, with no gap
    /// in between where it would end the process.
    static func beginReading() {
        if !waiting.load(ordering: .sequentiallyConsistent) {
            _ = interruptPending.exchange(false, ordering: .sequentiallyConsistent)
        }
        reading.store(true, ordering: .sequentiallyConsistent)
        waiting.store(false, ordering: .sequentiallyConsistent)
    }

    /// Marks the end of a read (or of its wait): SIGINT ends the process again.
    static func endReading() {
        reading.store(false, ordering: .sequentiallyConsistent)
        waiting.store(false, ordering: .sequentiallyConsistent)
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

    /// Puts back the mode saved at install and throws away type-ahead, which would otherwise
    /// reach the shell (a password typed too late, echoed there or run as a command).
    static func restoreSaved() {
        guard let (fd, mode) = guardedTerminal() else { return }
        SignalSafe.discardInput(fd)
        SignalSafe.setMode(fd, mode)
    }

    /// Ends a prompt's line, so the shell's "Terminated" does not land after "Email: ".
    static func endOpenLine() {
        if reading.load(ordering: .relaxed) || promptOpen.load(ordering: .relaxed) {
            SignalSafe.write(messageOutput.load(ordering: .relaxed), "\n")
            promptOpen.store(false, ordering: .relaxed)
        }
    }
}

/// Restores the terminal, ends the open line, says what a SIGINT means, then dies by `sig`.
private func dieBySignal(_ sig: Int32) {
    let group = GuardState.childGroup.exchange(0, ordering: .sequentiallyConsistent)
    if group > 0 { SignalSafe.killGroup(group) }
    let ending = GuardState.deadlineStatus.load(ordering: .sequentiallyConsistent) != 0
        ? GuardState.deadlineEnding.load(ordering: .sequentiallyConsistent) : 0
    if (sig == SIGALRM && GuardState.deadlineStatus.load(ordering: .sequentiallyConsistent) != 0) || ending != 0 {
        // A deadline must end the process even when the terminal takes no output (a client that
        // pressed Ctrl-S, or stopped reading): the goodbye below may block in write or tcsetattr,
        // so two seconds from now a second SIGALRM exits with the deadline's status wherever the
        // process is blocked. An exit, not death by the signal: a shell around the forced command
        // would report "Alarm clock" to the same stopped terminal and block there in turn.
        GuardState.dyingSignal.store(sig, ordering: .sequentiallyConsistent)
        SignalSafe.setHandler(SIGALRM, onDeadlineGrace, flags: 0)
        SignalSafe.unblock(SIGALRM)
        Sys.setAlarm(seconds: 2)
    }
    GuardState.restoreSaved()
    if ending != 0 { unsafeBitCast(Int(bitPattern: ending), to: (@convention(c) (Int32) -> Void).self)(sig) }
    GuardState.endOpenLine()
    if sig == SIGINT {
        GuardState.shared.interruptConversation.write(to: GuardState.messageOutput.load(ordering: .relaxed))
        GuardState.shared.interruptResult.write(to: 1)
    }
    let deadlineStatus = GuardState.deadlineStatus.load(ordering: .sequentiallyConsistent)
    if sig == SIGALRM && deadlineStatus != 0 {
        GuardState.shared.deadlineConversation.write(to: GuardState.messageOutput.load(ordering: .relaxed))
        SignalSafe.exitNow(deadlineStatus)
    }
    SignalSafe.setHandler(sig, nil, flags: 0)
    SignalSafe.raiseSignal(sig)  // blocked until the handler returns, then kills the process
    SignalSafe.unblock(sig)
}

// The handlers below call only tcgetattr, tcsetattr, sigaction, pthread_sigmask, raise and write, and the
// deadline's ending function when one is set (under its grace alarm).

/// The deadline's goodbye, or the ending's record, did not get through in time: end at once,
/// by the hang-up or termination that was ending the process (what its parent must see: a
/// dropped session is not a time limit), or with the deadline's status when the deadline was it.
private func onDeadlineGrace(_ sig: Int32) {
    let dying = GuardState.dyingSignal.load(ordering: .sequentiallyConsistent)
    if dying != 0 && dying != SIGALRM {
        SignalSafe.setHandler(dying, nil, flags: 0)
        SignalSafe.raiseSignal(dying)
        SignalSafe.unblock(dying)  // blocked while its own handler runs: delivered here, and fatal
    }
    SignalSafe.exitNow(GuardState.deadlineStatus.load(ordering: .sequentiallyConsistent))
}

private func onFatalSignal(_ sig: Int32) {
    if GuardState.hold(sig) { return }
    dieBySignal(sig)
}

private func onInterrupt(_ sig: Int32) {
    let savedErrno = SignalSafe.savedErrno
    if GuardState.reading.load(ordering: .sequentiallyConsistent) || GuardState.waiting.load(ordering: .sequentiallyConsistent) {
        GuardState.interruptPending.store(true, ordering: .sequentiallyConsistent)
        GuardState.wake()
    } else if !GuardState.hold(sig) {
        dieBySignal(sig)
    }
    SignalSafe.savedErrno = savedErrno
}

private func onStop(_ sig: Int32) {
    let savedErrno = SignalSafe.savedErrno
    let state = GuardState.shared
    let terminal = GuardState.guardedTerminal()
    var haveMode = false
    if let (fd, saved) = terminal, SignalSafe.getMode(fd, state.active) {
        haveMode = true
        SignalSafe.setMode(fd, saved)
    }
    SignalSafe.setHandler(SIGTSTP, nil, flags: 0)
    SignalSafe.raiseSignal(SIGTSTP)
    SignalSafe.unblock(SIGTSTP)  // the process stops here until SIGCONT
    SignalSafe.setHandler(SIGTSTP, onStop, flags: SA_RESTART)
    if haveMode, let (fd, _) = terminal { SignalSafe.setMode(fd, state.active) }
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
    GuardState.endOpenLine()
    if GuardState.chainCrashes.load(ordering: .relaxed) {
        SignalSafe.reinstall(sig, GuardState.shared.previous + Int(sig))
    } else {
        SignalSafe.setHandler(sig, nil, flags: 0)
    }
    // A fault raised by the CPU (si_code > 0) happens again when this handler returns, now with
    // the previous handler in place and the original context.
    if sig != SIGTRAP, let info, info.pointee.si_code > 0 { return }
    // A sent signal (and SIGTRAP, whose instruction does not run again) is handed to the previous
    // handler (or the default action) now; Swift's crash reporter returns expecting a second
    // fault, so then die by default.
    SignalSafe.raiseSignal(sig)
    SignalSafe.unblock(sig)
    SignalSafe.setHandler(sig, nil, flags: 0)
    SignalSafe.raiseSignal(sig)
}
