import Glibc

/// Signal dispositions a program of forms chooses for its whole run: set here, because this
/// library is the only code that changes signal dispositions and terminal modes.
public enum ProcessSignals {
    /// Ignores SIGPIPE, so that a write to a pipe whose reader went away fails with `EPIPE`
    /// instead of killing the process. Call before ``TerminalGuard/install()``.
    public static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Ends the process as SIGPIPE would (141 in a shell, nothing printed), as Unix filters do
    /// when their reader went away.
    public static func endAsBrokenPipe() -> Never {
        signal(SIGPIPE, SIG_DFL)
        raise(SIGPIPE)
        _exit(128 + SIGPIPE)
    }

    /// Stops job control for the run: Ctrl-Z (and SIGTSTP, SIGTTIN, SIGTTOU from anyone) does
    /// nothing, for a program whose user must not suspend it (a forced command over SSH). Call
    /// before ``TerminalGuard/install()``, which leaves an ignored signal ignored. While SIGTSTP is
    /// ignored, the guard (and a terminal session) turns the terminal's suspend key off, and gives
    /// it back: the terminal would otherwise discard the keys typed before a Ctrl-Z, for a signal
    /// that does nothing.
    public static func ignoreJobControl() {
        signal(SIGTSTP, SIG_IGN)
        signal(SIGTTIN, SIG_IGN)
        signal(SIGTTOU, SIG_IGN)
    }
}
