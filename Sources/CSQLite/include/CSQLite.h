// SQLite's C API, called only from Sources/AccountStore/SQLite.swift.
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

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, a macro Swift does not import.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

// Extended result codes are macros of other macros, which Swift does not import: the ones the store names.
static const int CSQLITE_CONSTRAINT_UNIQUE = SQLITE_CONSTRAINT_UNIQUE;
static const int CSQLITE_CONSTRAINT_FOREIGNKEY = SQLITE_CONSTRAINT_FOREIGNKEY;
static const int CSQLITE_CANTOPEN_SYMLINK = SQLITE_CANTOPEN_SYMLINK;
