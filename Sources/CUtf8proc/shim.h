// utf8proc allocates its results with malloc: free() releases them (2.8 has no utf8proc_free).
#include <stdlib.h>
#include <utf8proc.h>
