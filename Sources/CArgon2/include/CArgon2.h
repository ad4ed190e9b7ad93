// libargon2's Argon2id, called only from Sources/AccountStore/Hashing/PasswordHasher.swift.
//
// libargon2.so.1 is loaded the first time a password is hashed or checked (argon2_loader.c), not
// at start-up: a run that ends at its first prompt never maps it. argon2.h is included for its
// types and constants (Debian libargon2-dev to build, libargon2-1 at run time).
#include <argon2.h>

/// Why libargon2 cannot be loaded ("libargon2 cannot be loaded (Debian: libargon2-1): …"), or
/// NULL once it is (loading it the first time); thread-safe. PasswordHasher asks it before it
/// hashes or checks: unloaded, the functions below hash nothing and match nothing.
const char *cargon2_failure(void);
