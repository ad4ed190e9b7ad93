// libFuzzer's entry for programs that have their own main (SwiftPM renames an
// executable's main and points the linker's `main` at it, so libFuzzer's own main is
// never linked). Provided by the runtime that `-sanitize=fuzzer` links.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
