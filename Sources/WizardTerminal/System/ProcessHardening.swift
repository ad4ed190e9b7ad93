import CSystem

/// What a process does to itself before any secret is read, as `sudo` and `ssh` do: non-dumpable, no core file.
///
/// `TerminalRunner.run` applies it before a form with a secret field is asked, and
/// `TerminalSession.readSecret` before it reads; call it yourself before reading a secret
/// another way. It cannot be undone for the rest of the process.
public enum ProcessHardening {
    /// Sets the core size limit to 0 and makes the process non-dumpable, so that a crash or
    /// SIGQUIT never writes a password to disk and no same-user process can attach to read it.
    public static func apply() {
        _ = signup_disable_core_files()
        _ = signup_make_nondumpable()
    }
}
