import CSystem

/// What the process does to itself before any secret is read (SPEC 10), as `sudo` and `ssh` do.
enum ProcessHardening {
    /// Sets the core size limit to 0 and makes the process non-dumpable, so that a crash or
    /// SIGQUIT never writes a password to disk and no same-user process can attach to read it.
    static func apply() {
        _ = signup_disable_core_files()
        _ = signup_make_nondumpable()
    }
}
