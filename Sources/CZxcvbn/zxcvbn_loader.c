// libzxcvbn, loaded on first use (see include/CZxcvbn.h): the two functions the estimator calls
// are defined here, hidden, and call zxcvbn-c's own, found with dlsym.
#include "CZxcvbn.h"
#include "CLoader.h"

#define ZXCVBN_FUNCTIONS(X) X(ZxcvbnMatch) X(ZxcvbnFreeInfo)

SIGNUP_LAZY_LIBRARY(ZXCVBN_FUNCTIONS, "libzxcvbn.so.0", "libzxcvbn", "libzxcvbn0", (void)0)

const char *czxcvbn_failure(void) { return ready() ? NULL : failure_text; }

// Unloaded: no bits, no match list (the estimator has asked czxcvbn_failure before).
HIDDEN double ZxcvbnMatch(const char *Passwd, const char *UserDict[], ZxcMatch_t **Info) {
    if (ready()) return CALL(ZxcvbnMatch)(Passwd, UserDict, Info);
    if (Info) *Info = NULL;
    return 0;
}
HIDDEN void ZxcvbnFreeInfo(ZxcMatch_t *Info) { if (Info) CALL(ZxcvbnFreeInfo)(Info); }
