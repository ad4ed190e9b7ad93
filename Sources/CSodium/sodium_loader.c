// libsodium, loaded on first use (see include/CSodium.h): the functions there call libsodium's own,
// found with dlsym. sodium_init() runs once, right after the load: it picks the Argon2 code for this
// CPU (AVX-512F, AVX2, SSSE3 or portable).
#include "CSodium.h"
#include "CLoader.h"
#include <errno.h>
#include <sodium/core.h>
#include <sodium/crypto_pwhash.h>
#include <stdint.h>
#include <stdio.h>

#define SODIUM_FUNCTIONS(X) X(sodium_init) X(crypto_pwhash) X(crypto_pwhash_str_verify)

static void initialise(void);

SIGNUP_LAZY_LIBRARY(SODIUM_FUNCTIONS, "libsodium.so.23", "libsodium", "libsodium23", initialise())

static void initialise(void) {
    if (CALL(sodium_init)() < 0) {
        signup_lazy_loaded = 0;
        snprintf(failure_text, sizeof failure_text, "libsodium cannot be used: its sodium_init() failed");
    }
}

const char *csodium_failure(void) { return ready() ? NULL : failure_text; }

int csodium_argon2id(unsigned char *output, size_t output_length, const char *password, size_t length,
                     const unsigned char *salt, unsigned long long passes, size_t memory_kib) {
    if (!ready() || memory_kib > SIZE_MAX / 1024) return -1;
    return CALL(crypto_pwhash)(output, output_length, password, length, salt, passes, memory_kib * 1024,
                               crypto_pwhash_ALG_ARGON2ID13);
}

int csodium_verify(const char *phc, const char *password, size_t length) {
    if (!ready()) return -1;
    // crypto_pwhash_str_verify says -1 both for a mismatch (errno EINVAL) and for a string it cannot decode.
    errno = 0;
    if (CALL(crypto_pwhash_str_verify)(phc, password, length) == 0) return 0;
    return errno == EINVAL ? 1 : -1;
}
