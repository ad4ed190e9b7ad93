// zxcvbn-c, called only from Sources/PasswordStrength/Strength+Zxcvbn.swift.
//
// libzxcvbn.so.0 (its dictionary built in) is loaded the first time a password's strength is
// estimated (zxcvbn_loader.c), not at start-up: a run that ends at its first prompt never maps
// it. zxcvbn.h is included for its types (Debian libzxcvbn-dev to build, libzxcvbn0 at run time).
#include <stdlib.h>
#include <zxcvbn.h>

/// Why libzxcvbn cannot be loaded ("libzxcvbn cannot be loaded (Debian: libzxcvbn0): …"), or
/// NULL once it is (loading it the first time); thread-safe. The estimator asks it first.
const char *czxcvbn_failure(void);
