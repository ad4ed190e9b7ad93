// libsodium's Argon2id, called only from Sources/AccountStore/PasswordHasher.swift.
//
// libsodium.so.23 is loaded, and sodium_init() run, the first time a password is hashed or checked
// (sodium_loader.c), not at start-up: a run that ends at its first prompt never maps it. Only the
// three functions below are reached from Swift; sodium_loader.c includes libsodium's header for
// their types and constants (Debian libsodium-dev to build, libsodium23 at run time).
#include <stddef.h>

/// Why libsodium cannot be used ("libsodium cannot be loaded (Debian: libsodium23): …", or its
/// sodium_init() failed), or NULL once it can (loading and initialising it the first time);
/// thread-safe. PasswordHasher asks it before it hashes or checks: unloaded, the functions below
/// hash nothing and match nothing.
const char *csodium_failure(void);

/// libsodium's crypto_pwhash with Argon2id (crypto_pwhash_ALG_ARGON2ID13), one lane: the
/// `output_length` bytes (at least 16) of the hash of the `length` bytes of `password` with the
/// 16 bytes of `salt`, `passes` passes and `memory_kib` KiB. Returns 0, or -1 (nothing written
/// that counts) when libsodium is not loaded or refuses the costs.
int csodium_argon2id(unsigned char *output, size_t output_length, const char *password, size_t length,
                     const unsigned char *salt, unsigned long long passes, size_t memory_kib);

/// libsodium's crypto_pwhash_str_verify of the NUL-terminated PHC string `phc` against the
/// `length` bytes of `password`, told apart: 0 when they match, 1 when Argon2 ran and they do not,
/// -1 when nothing ran (libsodium is not loaded, or refused the string).
int csodium_verify(const char *phc, const char *password, size_t length);
