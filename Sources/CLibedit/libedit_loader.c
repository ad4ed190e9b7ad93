// libedit, loaded on first use (see include/CLibedit.h): the functions WizardTerminal calls are
// defined here, hidden, and call libedit's own, found with dlsym; the variadic ones are called
// with one fixed argument list each.
#include "CLibedit.h"
#include "CLoader.h"

#define LIBEDIT_FUNCTIONS(X) \
    X(el_init) X(el_end) X(el_gets) X(el_line) X(el_push) X(el_resize) X(el_set) X(el_get) \
    X(history) X(history_init) X(history_end)

SIGNUP_LAZY_LIBRARY(LIBEDIT_FUNCTIONS, "libedit.so.2", "libedit", "libedit2", (void)0)

const char *clibedit_failure(void) { return ready() ? NULL : failure_text; }

// Unloaded: no editor (WizardTerminal asks clibedit_failure before el_init, and without an
// editor uses its own line editor), so nothing below is reached with a null slot.
HIDDEN EditLine *el_init(const char *program, FILE *input, FILE *output, FILE *errors) {
    return ready() ? CALL(el_init)(program, input, output, errors) : NULL;
}
HIDDEN History *history_init(void) { return ready() ? CALL(history_init)() : NULL; }
HIDDEN void el_end(EditLine *el) { CALL(el_end)(el); }
HIDDEN const char *el_gets(EditLine *el, int *count) { return CALL(el_gets)(el, count); }
HIDDEN const LineInfo *el_line(EditLine *el) { return CALL(el_line)(el); }
HIDDEN void el_resize(EditLine *el) { CALL(el_resize)(el); }
HIDDEN void history_end(History *h) { CALL(history_end)(h); }

int signup_el_set_editor(EditLine *el, const char *mode) { return CALL(el_set)(el, EL_EDITOR, mode); }
int signup_el_set_terminal(EditLine *el, const char *type) { return CALL(el_set)(el, EL_TERMINAL, type); }
int signup_el_set_signal(EditLine *el, int on) { return CALL(el_set)(el, EL_SIGNAL, on); }
int signup_el_set_prompt_esc(EditLine *el, signup_prompt_fn fn, char ignore) {
    return CALL(el_set)(el, EL_PROMPT_ESC, fn, ignore);
}
int signup_el_set_getcfn(EditLine *el, el_rfunc_t fn) { return CALL(el_set)(el, EL_GETCFN, fn); }
int signup_el_set_clientdata(EditLine *el, void *data) { return CALL(el_set)(el, EL_CLIENTDATA, data); }
void *signup_el_get_clientdata(EditLine *el) {
    void *data = NULL;
    if (CALL(el_get)(el, EL_CLIENTDATA, &data) != 0) return NULL;
    return data;
}
int signup_el_set_history(EditLine *el, History *h) { return CALL(el_set)(el, EL_HIST, CALL(history), h); }
int signup_el_set_file(EditLine *el, int which, FILE *fp) { return CALL(el_set)(el, EL_SETFP, which, fp); }
int signup_el_refresh(EditLine *el) { return CALL(el_set)(el, EL_REFRESH); }
int signup_history_set_size(History *h, int size) {
    HistEvent ev;
    return CALL(history)(h, &ev, H_SETSIZE, size);
}
int signup_history_set_unique(History *h, int on) {
    HistEvent ev;
    return CALL(history)(h, &ev, H_SETUNIQUE, on);
}
int signup_history_enter(History *h, const char *line) {
    HistEvent ev;
    return CALL(history)(h, &ev, H_ENTER, line);
}
int signup_el_setty_session(EditLine *el) {
    int edit = CALL(el_set)(el, EL_SETTY, "-d", "-icrnl", "-inlcr", "-igncr", NULL);
    int rest = CALL(el_set)(el, EL_SETTY, "-x", "-icrnl", "-inlcr", "-igncr", "-echo", "-echonl", "-icanon", "-iexten", NULL);
    return edit | rest;
}
int signup_el_setty_no_suspend(EditLine *el) {
    // "susp=" sets the key to none in the modes libedit keeps; "-susp" keeps it so when libedit
    // takes in keys changed while the terminal was cooked.
    return CALL(el_set)(el, EL_SETTY, "-d", "-susp", "susp=", NULL) | CALL(el_set)(el, EL_SETTY, "-x", "-susp", "susp=", NULL);
}
void signup_el_push(EditLine *el, const char *text) { CALL(el_push)(el, text); }
