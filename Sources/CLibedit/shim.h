#include <stdio.h>
#include <histedit.h>

// el_set, el_get and history are C variadic functions, which Swift cannot call.
// Each use the Terminal module needs is wrapped below in a non-variadic function.

/// Prompt callback type (histedit.h documents it only in a comment).
typedef char *(*signup_prompt_fn)(EditLine *);

// Selects the key bindings ("emacs"): arrows, Ctrl-A/E/U, history keys.
static inline int signup_el_set_editor(EditLine *el, const char *mode) {
    return el_set(el, EL_EDITOR, mode);
}

// Chooses the terminal type libedit draws for ("dumb": only \r, \b and spaces, no escape sequences).
static inline int signup_el_set_terminal(EditLine *el, const char *type) {
    return el_set(el, EL_TERMINAL, type);
}

// Turns libedit's own signal handling on or off; its handler does kill(0, sig) to the whole group.
static inline int signup_el_set_signal(EditLine *el, int on) {
    return el_set(el, EL_SIGNAL, on);
}

// Installs the prompt callback; bytes between two `ignore` characters take no column (escape sequences).
static inline int signup_el_set_prompt_esc(EditLine *el, signup_prompt_fn fn, char ignore) {
    return el_set(el, EL_PROMPT_ESC, fn, ignore);
}

// Replaces libedit's read function, so reads can be masked and interrupted by a signal.
static inline int signup_el_set_getcfn(EditLine *el, el_rfunc_t fn) {
    return el_set(el, EL_GETCFN, fn);
}

// Stores the pointer C callbacks use to find their Swift object.
static inline int signup_el_set_clientdata(EditLine *el, void *data) {
    return el_set(el, EL_CLIENTDATA, data);
}

// Reads back the pointer stored with signup_el_set_clientdata.
static inline void *signup_el_get_clientdata(EditLine *el) {
    void *data = NULL;
    if (el_get(el, EL_CLIENTDATA, &data) != 0) return NULL;
    return data;
}

// Attaches a history object so Up/Down recall earlier answers of this session.
static inline int signup_el_set_history(EditLine *el, History *h) {
    return el_set(el, EL_HIST, history, h);
}

// Replaces one of libedit's streams (0 input, 1 output, 2 errors).
static inline int signup_el_set_file(EditLine *el, int which, FILE *fp) {
    return el_set(el, EL_SETFP, which, fp);
}

// Redraws the prompt and the line, e.g. after the process was stopped and continued.
static inline int signup_el_refresh(EditLine *el) {
    return el_set(el, EL_REFRESH);
}

// Bounds the in-memory history.
static inline int signup_history_set_size(History *h, int size) {
    HistEvent ev;
    return history(h, &ev, H_SETSIZE, size);
}

// Skips an entry equal to the previous one.
static inline int signup_history_set_unique(History *h, int on) {
    HistEvent ev;
    return history(h, &ev, H_SETUNIQUE, on);
}

// Adds one line to the in-memory history; nothing is ever saved to a file.
static inline int signup_history_enter(History *h, const char *line) {
    HistEvent ev;
    return history(h, &ev, H_ENTER, line);
}

// The terminal modes libedit sets while it edits (-d) and restores after each line (-x): carriage
// return and line feed arrive as typed (so CR LF can be told from two Enters), and between lines
// nothing typed is echoed and the kernel edits nothing (type-ahead stays unseen until it is read
// or discarded). el_set(EL_SETTY) is variadic; each call here is one fixed argument list.
static inline int signup_el_setty_session(EditLine *el) {
    int edit = el_set(el, EL_SETTY, "-d", "-icrnl", "-inlcr", "-igncr", NULL);
    int rest = el_set(el, EL_SETTY, "-x", "-icrnl", "-inlcr", "-igncr", "-echo", "-echonl", "-icanon", "-iexten", NULL);
    return edit | rest;
}

// Puts text into libedit's input, read before the terminal: an answer to start editing from.
static inline void signup_el_push(EditLine *el, const char *text) {
    el_push(el, text);
}

// glibc declares wcwidth only for _XOPEN_SOURCE or _GNU_SOURCE, which Swift's Glibc module does
// not define: the no-escape line editor measures each character's columns with it.
extern int wcwidth(wchar_t c);
static inline int signup_wcwidth(wchar_t c) { return wcwidth(c); }
