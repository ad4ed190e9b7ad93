// libidn2, loaded on first use (see include/CIdn2.h) with dlopen, its functions found with dlsym.
// RTLD_LOCAL: its symbols stay out of the global scope.
#include "CIdn2.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    __typeof__(&idn2_lookup_u8) lookup_u8;
    __typeof__(&idn2_to_unicode_8z8z) to_unicode_8z8z;
    __typeof__(&idn2_free) free;
} idn2;
static int loaded;
static char failure[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *handle = dlopen("libidn2.so.0", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(failure, sizeof failure, "libidn2 cannot be loaded (Debian: libidn2-0): %s", reason ? reason : "no reason given");
        return;
    }
#define RESOLVE(field, name)                                                                   \
    if ((idn2.field = (__typeof__(idn2.field))dlsym(handle, #name)) == NULL) {                 \
        snprintf(failure, sizeof failure, "libidn2 cannot be loaded: it has no %s", #name);    \
        return;                                                                                \
    }
    RESOLVE(lookup_u8, idn2_lookup_u8)
    RESOLVE(to_unicode_8z8z, idn2_to_unicode_8z8z)
    RESOLVE(free, idn2_free)
#undef RESOLVE
    loaded = 1;
}

int signup_idn2_ready(void) {
    pthread_once(&once, load);
    return loaded;
}

const char *signup_idn2_failure(void) {
    return signup_idn2_ready() ? NULL : failure;
}

int signup_idn2_unicode_form(const char *domain, char **unicode) {
    *unicode = NULL;
    if (!signup_idn2_ready()) return IDN2_MALLOC;
    uint8_t *ascii = NULL;
    // UTS #46 mapping (case, width, compatibility), IDNA2008's validity, and every xn-- label
    // decoded and checked as if it had been typed in Unicode.
    int rc = idn2.lookup_u8((const uint8_t *)domain, &ascii, IDN2_NONTRANSITIONAL);
    if (rc != IDN2_OK) return rc;
    char *decoded = NULL;
    rc = idn2.to_unicode_8z8z((const char *)ascii, &decoded, 0);
    idn2.free(ascii);
    if (rc != IDN2_OK) return rc;
    // Handed over with the C library's allocator, so the caller frees it without libidn2.
    *unicode = strdup(decoded);
    idn2.free(decoded);
    return *unicode ? IDN2_OK : IDN2_MALLOC;
}

int signup_idn2_ascii_form(const char *domain, char **ascii) {
    *ascii = NULL;
    if (!signup_idn2_ready()) return IDN2_MALLOC;
    uint8_t *encoded = NULL;
    int rc = idn2.lookup_u8((const uint8_t *)domain, &encoded, IDN2_NONTRANSITIONAL);
    if (rc != IDN2_OK) return rc;
    *ascii = strdup((const char *)encoded);
    idn2.free(encoded);
    return *ascii ? IDN2_OK : IDN2_MALLOC;
}
