#include <stdlib.h>
#include <zxcvbn.h>
