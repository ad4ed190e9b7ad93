// libsqlite3, loaded on first use (see include/CSQLite.h): every SQLite function the store calls
// is defined here, hidden, and calls SQLite's own, found with dlsym in the library dlopen loaded.
//
// SQLite.swift asks csqlite_failure() before it opens anything, and every other function needs a
// connection or a statement, so is only reached once libsqlite3 is loaded; the few that may be
// called without one (an error's text, closing a failed open, a NULL mutex) stay safe unloaded.
#include "CSQLite.h"
#include "CLoader.h"

#define SQLITE_FUNCTIONS(X) \
    X(sqlite3_backup_finish) X(sqlite3_backup_init) X(sqlite3_backup_step) X(sqlite3_bind_int64) X(sqlite3_bind_null) X(sqlite3_bind_text) X(sqlite3_busy_timeout) X(sqlite3_changes) \
    X(sqlite3_clear_bindings) X(sqlite3_close) X(sqlite3_close_v2) X(sqlite3_column_bytes) X(sqlite3_column_int64) \
    X(sqlite3_column_text) X(sqlite3_column_type) X(sqlite3_db_config) X(sqlite3_db_mutex) X(sqlite3_errmsg) \
    X(sqlite3_errstr) X(sqlite3_extended_errcode) X(sqlite3_file_control) X(sqlite3_finalize) \
    X(sqlite3_get_autocommit) X(sqlite3_last_insert_rowid) X(sqlite3_mutex_enter) X(sqlite3_mutex_leave) \
    X(sqlite3_open_v2) X(sqlite3_prepare_v2) X(sqlite3_reset) X(sqlite3_step)

struct csqlite_row_functions csqlite_row;
static void fill_row_functions(void);

SIGNUP_LAZY_LIBRARY(SQLITE_FUNCTIONS, "libsqlite3.so.0", "libsqlite3", "libsqlite3-0", fill_row_functions())

static void fill_row_functions(void) {
    csqlite_row = (struct csqlite_row_functions){CALL(sqlite3_step), CALL(sqlite3_column_int64), CALL(sqlite3_column_text),
                                                 CALL(sqlite3_column_bytes), CALL(sqlite3_column_type)};
}

const char *csqlite_failure(void) { return ready() ? NULL : failure_text; }

int csqlite_disable_double_quoted_strings(sqlite3 *db) {
    int rc = CALL(sqlite3_db_config)(db, SQLITE_DBCONFIG_DQS_DML, 0, (int *)0);
    if (rc != SQLITE_OK) return rc;
    return CALL(sqlite3_db_config)(db, SQLITE_DBCONFIG_DQS_DDL, 0, (int *)0);
}

// May be reached before libsqlite3 is loaded, or when it cannot be.
HIDDEN int sqlite3_open_v2(const char *filename, sqlite3 **db, int flags, const char *vfs) {
    if (ready()) return CALL(sqlite3_open_v2)(filename, db, flags, vfs);
    *db = NULL;
    return SQLITE_CANTOPEN;
}
HIDDEN const char *sqlite3_errstr(int code) { return ready() ? CALL(sqlite3_errstr)(code) : failure_text; }
HIDDEN const char *sqlite3_errmsg(sqlite3 *db) { return ready() ? CALL(sqlite3_errmsg)(db) : failure_text; }
HIDDEN int sqlite3_close(sqlite3 *db) { return db == NULL ? SQLITE_OK : CALL(sqlite3_close)(db); }
HIDDEN void sqlite3_mutex_enter(sqlite3_mutex *mutex) { if (mutex) CALL(sqlite3_mutex_enter)(mutex); }
HIDDEN void sqlite3_mutex_leave(sqlite3_mutex *mutex) { if (mutex) CALL(sqlite3_mutex_leave)(mutex); }

// Reached only with a connection or a statement libsqlite3 made: it is loaded, no check on the
// way. What every row calls (step, column_*) is not here: CSQLite.h calls it straight (csqlite_row).
HIDDEN int sqlite3_close_v2(sqlite3 *db) { return CALL(sqlite3_close_v2)(db); }
HIDDEN int sqlite3_busy_timeout(sqlite3 *db, int ms) { return CALL(sqlite3_busy_timeout)(db, ms); }
HIDDEN int sqlite3_changes(sqlite3 *db) { return CALL(sqlite3_changes)(db); }
HIDDEN sqlite3_mutex *sqlite3_db_mutex(sqlite3 *db) { return CALL(sqlite3_db_mutex)(db); }
HIDDEN int sqlite3_extended_errcode(sqlite3 *db) { return CALL(sqlite3_extended_errcode)(db); }
HIDDEN int sqlite3_file_control(sqlite3 *db, const char *name, int op, void *arg) {
    return CALL(sqlite3_file_control)(db, name, op, arg);
}
HIDDEN int sqlite3_get_autocommit(sqlite3 *db) { return CALL(sqlite3_get_autocommit)(db); }
HIDDEN sqlite3_int64 sqlite3_last_insert_rowid(sqlite3 *db) { return CALL(sqlite3_last_insert_rowid)(db); }
HIDDEN int sqlite3_prepare_v2(sqlite3 *db, const char *sql, int bytes, sqlite3_stmt **statement, const char **tail) {
    return CALL(sqlite3_prepare_v2)(db, sql, bytes, statement, tail);
}
HIDDEN int sqlite3_bind_int64(sqlite3_stmt *s, int i, sqlite3_int64 value) { return CALL(sqlite3_bind_int64)(s, i, value); }
HIDDEN int sqlite3_bind_null(sqlite3_stmt *s, int i) { return CALL(sqlite3_bind_null)(s, i); }
HIDDEN int sqlite3_bind_text(sqlite3_stmt *s, int i, const char *text, int bytes, void (*destructor)(void *)) {
    return CALL(sqlite3_bind_text)(s, i, text, bytes, destructor);
}
HIDDEN int sqlite3_clear_bindings(sqlite3_stmt *s) { return CALL(sqlite3_clear_bindings)(s); }
HIDDEN int sqlite3_finalize(sqlite3_stmt *s) { return s == NULL ? SQLITE_OK : CALL(sqlite3_finalize)(s); }
HIDDEN int sqlite3_reset(sqlite3_stmt *s) { return CALL(sqlite3_reset)(s); }
HIDDEN sqlite3_backup *sqlite3_backup_init(sqlite3 *to, const char *toName, sqlite3 *from, const char *fromName) {
    return CALL(sqlite3_backup_init)(to, toName, from, fromName);
}
HIDDEN int sqlite3_backup_step(sqlite3_backup *b, int pages) { return CALL(sqlite3_backup_step)(b, pages); }
HIDDEN int sqlite3_backup_finish(sqlite3_backup *b) { return CALL(sqlite3_backup_finish)(b); }
