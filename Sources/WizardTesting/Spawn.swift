import Glibc

/// `posix_spawn` as every child of this library is started: safe from the multithreaded test
/// runner (never `fork`), in a new session (`POSIX_SPAWN_SETSID`, so a terminal it opens by name
/// becomes its controlling one), every signal at its default and none blocked.
enum Spawn {
    /// Why a child could not be started: `strerror` of the error `posix_spawn` returned.
    struct Refused: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts `executable` (a path, or a name looked up in this process's `PATH`) with `actions`,
    /// then every descriptor from `keeping` up closed: a descriptor another thread of the test
    /// runner opened without close-on-exec at that moment (a `Pipe`) is never inherited, so a
    /// child counts on the descriptors it was given alone (a test under `ulimit -n 6` did not).
    static func run(_ executable: String, _ arguments: [String], _ environment: [String: String],
                    _ actions: inout posix_spawn_file_actions_t, keeping: Int32) -> Result<pid_t, Refused> {
        if let closeFrom = closeFrom { _ = closeFrom(&actions, keeping) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        let setSessionID: Int32 = 0x80  // POSIX_SPAWN_SETSID, which Swift's Glibc does not import
        posix_spawnattr_setflags(&attributes, Int16(setSessionID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawn = executable.contains("/") ? posix_spawn : posix_spawnp
        let status = spawn(&pid, executable, &actions, &attributes, argv, envp)
        return status == 0 ? .success(pid) : .failure(Refused(description: String(cString: strerror(status))))
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc
    /// module does not import; nil before 2.34, where children inherit what they inherit.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    /// Seconds of the monotonic clock: for deadlines.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// How a child that `waitpid` reported with `status` ended.
    static func termination(_ status: Int32) -> PseudoTerminal.Termination {
        let signal = status & 0x7F
        return signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
    }
}
