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

#include <libintl.h>
#include <locale.h>

// GNU gettext as glibc has it (no other library): the only door to the message catalogs.

/// Applies the environment's message locale (`LC_ALL`, `LC_MESSAGES`, `LANG`); NULL when it is not installed.
static inline const char *signup_set_message_locale(void) { return setlocale(LC_MESSAGES, ""); }

/// Binds text domain `domain` to the catalogs under `folder` (`folder/LANG/LC_MESSAGES/domain.mo`), read as UTF-8.
static inline int signup_bind_catalog(const char *domain, const char *folder) {
    if (bindtextdomain(domain, folder) == NULL) return -1;
    return bind_textdomain_codeset(domain, "UTF-8") == NULL ? -1 : 0;
}

/// The catalog's text for `msgid` in `domain`, or `msgid` itself (the same pointer) when it has none.
static inline const char *signup_catalog_text(const char *domain, const char *msgid) { return dgettext(domain, msgid); }

#include <syslog.h>

// syslog.h for its facilities and levels (LOG_AUTHPRIV, LOG_INFO…) only: the audit log sends its
// lines itself (Sources/SignupCommand/Environment/LoggerSocket.swift), since syslog(3) blocks
// for as long as the logger does not read.
