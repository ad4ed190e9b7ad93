#include <sys/prctl.h>
#include <sys/resource.h>

// prctl is a C variadic function, which Swift cannot call: one non-variadic wrapper per use.

/// Makes the process non-dumpable: no core file, no ptrace or /proc/PID/mem by the same user.
static inline int signup_make_nondumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

/// Whether the process is dumpable (1) or not (0); -1 on error.
static inline int signup_is_dumpable(void) { return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); }

/// Sets the core file size limit, soft and hard, to 0.
static inline int signup_disable_core_files(void) {
    struct rlimit none = { 0, 0 };
    return setrlimit(RLIMIT_CORE, &none);
}

#include <unistd.h>

/// The process's environment array (`environ`): a C global Swift 6 cannot read safely.
/// Its strings point into the block the kernel shows in /proc/PID/environ.
static inline char **signup_environment(void) { return __environ; }
