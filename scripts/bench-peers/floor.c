/* The C floor: print the first prompt, read one line, exit (66 at end of input, as signup). */
#include <stdio.h>
int main(void) {
    char line[1024];
    fputs("Create your account (Ctrl-C to cancel)\nEmail: ", stderr);
    return fgets(line, sizeof line, stdin) ? 0 : 66;
}
