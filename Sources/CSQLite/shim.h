#include <sqlite3.h>

// sqlite3_db_config takes variable arguments, which Swift cannot call: one fixed-argument
// wrapper for the one setting the store makes. Double-quoted strings are identifiers only,
// never string literals, in statements and in a file's schema alike.
static inline int csqlite_disable_double_quoted_strings(sqlite3 *db) {
    int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (int *)0);
    if (rc != SQLITE_OK) return rc;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, (int *)0);
}

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, a macro Swift does not import.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

// Extended result codes are macros of other macros, which Swift does not import: the ones the store names.
static const int CSQLITE_CONSTRAINT_UNIQUE = SQLITE_CONSTRAINT_UNIQUE;
static const int CSQLITE_CONSTRAINT_FOREIGNKEY = SQLITE_CONSTRAINT_FOREIGNKEY;
static const int CSQLITE_CANTOPEN_SYMLINK = SQLITE_CANTOPEN_SYMLINK;
