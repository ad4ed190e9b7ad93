// libidn2, IDNA2008 and Unicode's UTS #46. Only Sources/SignupCore/IDNA.swift calls it.
//
// Its functions are reached through the three below, defined in idn2_loader.c, which loads
// libidn2.so.0 the first time one of them is called: a run whose addresses are plain ASCII, and
// every run up to its first prompt, never loads it. libidn2's header is included for its flags and
// error codes (Debian libidn2-dev to build, libidn2-0 at run time).
#include <idn2.h>

/// Whether libidn2 is loaded (loading it the first time); thread-safe.
int signup_idn2_ready(void);

/// Why libidn2 could not be loaded ("libidn2 cannot be loaded: …"), or NULL once it is.
const char *signup_idn2_failure(void);

/// UTS #46 ToASCII then ToUnicode of `domain` (NUL-terminated UTF-8), nontransitional: on IDN2_OK,
/// `*unicode` holds the domain's Unicode form, to be freed with free(). Returns libidn2's error
/// code, or IDN2_MALLOC when libidn2 is not loaded (signup_idn2_failure says why).
int signup_idn2_unicode_form(const char *domain, char **unicode);

/// UTS #46 ToASCII of `domain` (NUL-terminated UTF-8), nontransitional: on IDN2_OK, `*ascii`
/// holds the domain's ASCII form (`xn--` labels), the form a mail header carries, to be freed
/// with free(). Returns as signup_idn2_unicode_form does.
int signup_idn2_ascii_form(const char *domain, char **ascii);
