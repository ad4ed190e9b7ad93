#include "CLoader.h"
#include <dlfcn.h>
#include <stdio.h>

int signup_load_library(const char *soname, const char *library, const char *package,
                        const char *const names[], void *slots[], size_t count, char *failure, size_t size) {
    void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(failure, size, "%s cannot be loaded (Debian: %s): %s", library, package, reason ? reason : "no reason given");
        return 0;
    }
    for (size_t i = 0; i < count; i++) {
        if ((slots[i] = dlsym(handle, names[i])) == NULL) {
            snprintf(failure, size, "%s cannot be loaded (Debian: %s): %s has no %s", library, package, soname, names[i]);
            return 0;
        }
    }
    return 1;
}
