// libargon2, loaded on first use (see include/CArgon2.h): the four functions PasswordHasher
// calls are defined here, hidden, and call libargon2's own, found with dlsym.
#include "CArgon2.h"
#include "CLoader.h"

#define ARGON2_FUNCTIONS(X) X(argon2_encodedlen) X(argon2_error_message) X(argon2id_hash_encoded) X(argon2id_verify)

SIGNUP_LAZY_LIBRARY(ARGON2_FUNCTIONS, "libargon2.so.1", "libargon2", "libargon2-1", (void)0)

const char *cargon2_failure(void) { return ready() ? NULL : failure_text; }

HIDDEN size_t argon2_encodedlen(uint32_t t_cost, uint32_t m_cost, uint32_t parallelism, uint32_t saltlen,
                                uint32_t hashlen, argon2_type type) {
    return ready() ? CALL(argon2_encodedlen)(t_cost, m_cost, parallelism, saltlen, hashlen, type) : 0;
}
HIDDEN const char *argon2_error_message(int error_code) {
    return ready() ? CALL(argon2_error_message)(error_code) : failure_text;
}
HIDDEN int argon2id_hash_encoded(const uint32_t t_cost, const uint32_t m_cost, const uint32_t parallelism,
                                 const void *pwd, const size_t pwdlen, const void *salt, const size_t saltlen,
                                 const size_t hashlen, char *encoded, const size_t encodedlen) {
    if (!ready()) return ARGON2_MEMORY_ALLOCATION_ERROR;
    return CALL(argon2id_hash_encoded)(t_cost, m_cost, parallelism, pwd, pwdlen, salt, saltlen, hashlen, encoded, encodedlen);
}
HIDDEN int argon2id_verify(const char *encoded, const void *pwd, const size_t pwdlen) {
    return ready() ? CALL(argon2id_verify)(encoded, pwd, pwdlen) : ARGON2_MEMORY_ALLOCATION_ERROR;
}
