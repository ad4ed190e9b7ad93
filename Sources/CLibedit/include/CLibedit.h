// libedit, called only from Sources/WizardTerminal (EditLine.swift, TerminalSession.swift).
//
// libedit.so.2 is loaded the first time a terminal session draws with escape sequences
// (libedit_loader.c), not at start-up: a run through a pipe, and every command that asks
// nothing, never maps it or the three libraries it needs (libtinfo, libbsd, libmd).
// histedit.h is included for its types and declarations (Debian libedit-dev to build,
// libedit2 at run time); el_init and the other functions Swift calls are defined in
// libedit_loader.c, hidden, and call libedit's own.
#include <stdio.h>
#include <histedit.h>

/// Why libedit cannot be loaded ("libedit cannot be loaded (Debian: libedit2): …"), or NULL
/// once it is (loading it the first time); thread-safe. Ask it before el_init.
const char *clibedit_failure(void);

// el_set, el_get and history are C variadic functions, which Swift cannot call.
// Each use the Terminal module needs is wrapped in libedit_loader.c in a non-variadic function.

/// Prompt callback type (histedit.h documents it only in a comment).
typedef char *(*signup_prompt_fn)(EditLine *);

// Selects the key bindings ("emacs"): arrows, Ctrl-A/E/U, history keys.
int signup_el_set_editor(EditLine *el, const char *mode);

// Chooses the terminal type libedit draws for ("dumb": only \r, \b and spaces, no escape sequences).
int signup_el_set_terminal(EditLine *el, const char *type);

// Turns libedit's own signal handling on or off; its handler does kill(0, sig) to the whole group.
int signup_el_set_signal(EditLine *el, int on);

// Installs the prompt callback; bytes between two `ignore` characters take no column (escape sequences).
int signup_el_set_prompt_esc(EditLine *el, signup_prompt_fn fn, char ignore);

// Replaces libedit's read function, so reads can be masked and interrupted by a signal.
int signup_el_set_getcfn(EditLine *el, el_rfunc_t fn);

// Stores the pointer C callbacks use to find their Swift object.
int signup_el_set_clientdata(EditLine *el, void *data);

// Reads back the pointer stored with signup_el_set_clientdata.
void *signup_el_get_clientdata(EditLine *el);

// Attaches a history object so Up/Down recall earlier answers of this session.
int signup_el_set_history(EditLine *el, History *h);

// Replaces one of libedit's streams (0 input, 1 output, 2 errors).
int signup_el_set_file(EditLine *el, int which, FILE *fp);

// Redraws the prompt and the line, e.g. after the process was stopped and continued.
int signup_el_refresh(EditLine *el);

// Bounds the in-memory history.
int signup_history_set_size(History *h, int size);

// Skips an entry equal to the previous one.
int signup_history_set_unique(History *h, int on);

// Adds one line to the in-memory history; nothing is ever saved to a file.
int signup_history_enter(History *h, const char *line);

// The terminal modes libedit sets while it edits (-d) and restores after each line (-x): carriage
// return and line feed arrive as typed (so CR LF can be told from two Enters), and between lines
// nothing typed is echoed and the kernel edits nothing (type-ahead stays unseen until it is read
// or discarded). el_set(EL_SETTY) is variadic; each call here is one fixed argument list.
int signup_el_setty_session(EditLine *el);

// No suspend key while libedit edits or waits between lines: for a run that ignores SIGTSTP, where
// Ctrl-Z would stop nothing but the terminal would still discard what was typed before it.
int signup_el_setty_no_suspend(EditLine *el);

// Puts text into libedit's input, read before the terminal: an answer to start editing from.
void signup_el_push(EditLine *el, const char *text);

// glibc declares wcwidth only for _XOPEN_SOURCE or _GNU_SOURCE, which Swift's Glibc module does
// not define: the no-escape line editor measures each character's columns with it.
extern int wcwidth(wchar_t c);
static inline int signup_wcwidth(wchar_t c) { return wcwidth(c); }
