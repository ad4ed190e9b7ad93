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

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

/// Drops from the process's resident set the pages of its files mapped read-only (its code and
/// constants, and those of the libraries it loaded) that it never wrote: the kernel keeps them in
/// the page cache, and a later access maps them again without reading the disk. A mapping with
/// any private copy of a page (the relocated constants, RELRO) is left alone, since dropping it
/// would throw its changes away. Called before a hash, whose memory then adds to what is left, not
/// to what start-up touched. Returns the KiB dropped (what /proc/self/smaps counted), or -1.
/// The number in `base` (10 or 16) at `text`, blanks first skipped; `end` is where it stops.
static inline unsigned long signup_parse_number(const char *text, const char **end, int base) {
    while (*text == ' ') text++;
    unsigned long value = 0;
    for (;; text++) {
        int digit = *text >= '0' && *text <= '9' ? *text - '0'
                  : base == 16 && *text >= 'a' && *text <= 'f' ? *text - 'a' + 10 : -1;
        if (digit < 0) break;
        value = value * (unsigned long)base + (unsigned long)digit;
    }
    *end = text;
    return value;
}

static inline long signup_release_clean_file_pages(void) {
    FILE *smaps = fopen("/proc/self/smaps", "re");
    if (smaps == NULL) return -1;
    char line[4096];
    unsigned long start = 0, end = 0;
    long rss = 0, released = 0;
    int candidate = 0;
    // Read by hand, not with sscanf: three tries of a format on each of some 2,000 lines cost a
    // sign-up 4.5 million instructions. A mapping's header: `LOW-HIGH PERMS OFFSET DEV INODE [PATH]`.
    while (fgets(line, sizeof line, smaps) != NULL) {
        const char *cursor = line, *after;
        unsigned long low = signup_parse_number(cursor, &after, 16);
        if (after != cursor && *after == '-') {
            cursor = after + 1;
            unsigned long high = signup_parse_number(cursor, &after, 16);
            if (after == cursor || *after != ' ' || strlen(after + 1) < 4) { candidate = 0; continue; }
            const char *perms = after + 1;
            cursor = after + 1;
            for (int field = 0; field < 4; field++) {  // past the permissions, offset, device and inode
                while (*cursor != ' ' && *cursor != '\n' && *cursor != 0) cursor++;
                while (*cursor == ' ') cursor++;
            }
            // A file's mapping (its path starts with /), private, not writable.
            start = low, end = high, rss = 0;
            candidate = *cursor == '/' && perms[1] != 'w' && perms[3] == 'p';
        } else if (candidate && strncmp(line, "Rss:", 4) == 0) {
            rss = (long)signup_parse_number(line + 4, &after, 10);
        } else if (candidate && strncmp(line, "Anonymous:", 10) == 0) {
            // The last field of the two read: a page written once has a private copy, then keep it all.
            long value = (long)signup_parse_number(line + 10, &after, 10);
            if (value == 0 && rss > 0 && madvise((void *)start, end - start, MADV_DONTNEED) == 0) released += rss;
            candidate = 0;
        }
    }
    fclose(smaps);
    return released;
}
