// What the loaders of libsqlite3 (Sources/CSQLite), libargon2 (Sources/CArgon2), libsodium
// (Sources/CSodium) and libzxcvbn (Sources/CZxcvbn) share: a library loaded with dlopen on first use, its functions found with
// dlsym. Nothing before the first prompt maps them (StartupTests).
#include <stddef.h>

/// Loads `soname` (RTLD_NOW | RTLD_LOCAL: its symbols stay out of the global scope) and stores
/// the address of each of the `count` functions `names` lists in `slots`, in order. Returns 1;
/// or 0 with `failure` (`size` bytes) saying "LIBRARY cannot be loaded (Debian: PACKAGE): why".
int signup_load_library(const char *soname, const char *library, const char *package,
                        const char *const names[], void *slots[], size_t count, char *failure, size_t size);

#ifndef __swift__
#include <pthread.h>

/// Defines, in a loader's C file, the state of one library loaded on first use: FUNCTIONS(X) lists
/// its functions as X(name); `static int ready(void)` loads it the first time (thread-safe) and
/// says whether it is loaded; `static const char *failure_text` is why not; CALL(name) is the
/// library's own function; `on_load` runs once, right after a load that succeeded, before any
/// caller of ready() goes on. Swift never sees this part of the header.
#define SIGNUP_LAZY_LIBRARY(FUNCTIONS, soname, library, package, on_load)                          \
    enum {                                                                                          \
        FUNCTIONS(SIGNUP_LAZY_INDEX) signup_lazy_count                                              \
    };                                                                                              \
    static const char *const signup_lazy_names[] = {FUNCTIONS(SIGNUP_LAZY_NAME)};                  \
    static void *signup_lazy_slots[signup_lazy_count];                                              \
    static int signup_lazy_loaded;                                                                  \
    static char failure_text[512];                                                                  \
    static pthread_once_t signup_lazy_once = PTHREAD_ONCE_INIT;                                     \
    static void signup_lazy_load(void) {                                                            \
        signup_lazy_loaded = signup_load_library(soname, library, package, signup_lazy_names,       \
                                                 signup_lazy_slots, signup_lazy_count, failure_text, \
                                                 sizeof failure_text);                              \
        if (signup_lazy_loaded) on_load;                                                            \
    }                                                                                               \
    static int ready(void) {                                                                        \
        pthread_once(&signup_lazy_once, signup_lazy_load);                                          \
        return signup_lazy_loaded;                                                                  \
    }
#define SIGNUP_LAZY_INDEX(name) signup_lazy_index_##name,
#define SIGNUP_LAZY_NAME(name) #name,
#define CALL(name) ((__typeof__(&name))signup_lazy_slots[signup_lazy_index_##name])
/// The loader's definitions stand in for the library's own functions in this binary only.
#define HIDDEN __attribute__((visibility("hidden")))
#endif
