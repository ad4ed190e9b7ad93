// SQLite's C API, called only from Sources/AccountStore/SQLite/SQLite.swift.
//
// libsqlite3.so.0 is loaded the first time the store opens a database (sqlite_loader.c), not
// at start-up: a run that ends at its first prompt never maps it. Each function below is
// SQLite's own, reached through the loader; sqlite3.h is included for its types and constants
// (Debian libsqlite3-dev to build, libsqlite3-0 at run time).
#include <sqlite3.h>

/// Why libsqlite3 cannot be loaded ("libsqlite3 cannot be loaded (Debian: libsqlite3-0): …"),
/// or NULL once it is (loading it the first time); thread-safe. Every use of the store starts
/// with `sqlite3_open_v2`, which SQLite.swift calls only after asking this.
const char *csqlite_failure(void);

// sqlite3_db_config takes variable arguments, which Swift cannot call: one fixed-argument
// wrapper for the one setting the store makes. Double-quoted strings are identifiers only,
// never string literals, in statements and in a file's schema alike.
int csqlite_disable_double_quoted_strings(sqlite3 *db);

// What every row of a statement calls (`list` a million times): libsqlite3's own functions, set
// once it is loaded, called straight from Swift through these inline functions, so a row costs
// one indirect call each, as through the PLT, not two. Only valid with a statement: it is loaded.
struct csqlite_row_functions {
    int (*step)(sqlite3_stmt *);
    sqlite3_int64 (*column_int64)(sqlite3_stmt *, int);
    const unsigned char *(*column_text)(sqlite3_stmt *, int);
    int (*column_bytes)(sqlite3_stmt *, int);
    int (*column_type)(sqlite3_stmt *, int);
};
extern struct csqlite_row_functions csqlite_row;
static inline int csqlite_step(sqlite3_stmt *s) { return csqlite_row.step(s); }
static inline sqlite3_int64 csqlite_column_int64(sqlite3_stmt *s, int column) { return csqlite_row.column_int64(s, column); }
static inline const unsigned char *csqlite_column_text(sqlite3_stmt *s, int column) { return csqlite_row.column_text(s, column); }
static inline int csqlite_column_bytes(sqlite3_stmt *s, int column) { return csqlite_row.column_bytes(s, column); }
static inline int csqlite_column_type(sqlite3_stmt *s, int column) { return csqlite_row.column_type(s, column); }

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, a macro Swift does not import.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

// Extended result codes are macros of other macros, which Swift does not import: the ones the store names.
static const int CSQLITE_CONSTRAINT_UNIQUE = SQLITE_CONSTRAINT_UNIQUE;
static const int CSQLITE_CONSTRAINT_FOREIGNKEY = SQLITE_CONSTRAINT_FOREIGNKEY;
static const int CSQLITE_CANTOPEN_SYMLINK = SQLITE_CANTOPEN_SYMLINK;
