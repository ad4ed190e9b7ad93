// libpq, loaded on first use (see include/CLibpq.h): every libpq function the program calls is
// defined here and calls libpq's own, found with dlsym in the library dlopen loaded. The
// definitions are hidden, so they never stand in for libpq's functions inside libpq itself.
//
// A libpq that cannot be loaded is said where every use of PostgreSQL starts: PQconninfoParse
// (classifying the database) fails with the loader's reason, PQconnectdbParams returns NULL.
// Every other function needs a connection or a result, so is only reached once libpq is loaded.
#include "CLibpq.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIBPQ_FUNCTIONS(X) \
    X(PQbackendPID) X(PQcancel) X(PQclear) X(PQconnectdbParams) X(PQconninfoFree) X(PQconninfoParse) \
    X(PQconsumeInput) X(PQdb) X(PQerrorMessage) X(PQfinish) X(PQfreeCancel) X(PQfreemem) X(PQgetCancel) \
    X(PQgetResult) X(PQgetisnull) X(PQgetvalue) X(PQhost) X(PQisBusy) X(PQnfields) X(PQntuples) X(PQport) \
    X(PQresultErrorField) X(PQresultStatus) X(PQsendQuery) X(PQsendQueryParams) X(PQsetNoticeProcessor) \
    X(PQsetErrorContextVisibility) X(PQsetErrorVerbosity) X(PQsetSingleRowMode) X(PQsocket) X(PQstatus) X(PQtransactionStatus) X(PQuser)

static struct {
#define FIELD(name) __typeof__(&name) name;
    LIBPQ_FUNCTIONS(FIELD)
#undef FIELD
} libpq;
static int loaded;
static char failure[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    // libpq's own messages stay English whatever the reader's language: signup hides what they
    // quote between English quotes ("..."); a German libpq quotes with >>...<< and a value of
    // --db (sslmode=, port=) would be shown. libpq binds its catalog to $PGLOCALEDIR on first use.
    setenv("PGLOCALEDIR", "/nonexistent/signup-keeps-libpq-in-english", 1);
    // RTLD_LOCAL: libpq's symbols stay out of the global scope. RTLD_LAZY: the functions libpq and
    // the 20-odd libraries it needs (OpenSSL, Kerberos, LDAP, GnuTLS) call are bound when first
    // called, not all at load: a sign-up calls few of them (1.8 million instructions fewer, of
    // about 12 million to load). The functions signup calls are looked up below, at load.
    void *handle = dlopen("libpq.so.5", RTLD_LAZY | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(failure, sizeof failure, "libpq cannot be loaded: %s", reason ? reason : "no reason given");
        return;
    }
#define RESOLVE(name)                                                                          \
    if ((libpq.name = (__typeof__(&name))dlsym(handle, #name)) == NULL) {                      \
        snprintf(failure, sizeof failure, "libpq cannot be loaded: it has no %s", #name);      \
        return;                                                                                \
    }
    LIBPQ_FUNCTIONS(RESOLVE)
#undef RESOLVE
    loaded = 1;
}

/// Whether libpq is loaded (loading it the first time); thread-safe.
static int ready(void) {
    pthread_once(&once, load);
    return loaded;
}

#define HIDDEN __attribute__((visibility("hidden")))

HIDDEN int signup_libpq_ready(void) {
    return ready();
}

HIDDEN PQconninfoOption *PQconninfoParse(const char *conninfo, char **errmsg) {
    if (ready()) return libpq.PQconninfoParse(conninfo, errmsg);
    // Freed by the caller with PQfreemem, which frees it with free() while libpq is not loaded.
    if (errmsg) *errmsg = strdup(failure);
    return NULL;
}

HIDDEN void PQfreemem(void *ptr) {
    if (ready()) libpq.PQfreemem(ptr);
    else free(ptr);
}

HIDDEN PGconn *PQconnectdbParams(const char *const *keywords, const char *const *values, int expand_dbname) {
    return ready() ? libpq.PQconnectdbParams(keywords, values, expand_dbname) : NULL;
}

// Reached only with a connection, a result or an option list libpq made: libpq is loaded.
HIDDEN void PQconninfoFree(PQconninfoOption *options) { if (ready()) libpq.PQconninfoFree(options); }
HIDDEN ConnStatusType PQstatus(const PGconn *conn) { return ready() ? libpq.PQstatus(conn) : CONNECTION_BAD; }
HIDDEN char *PQerrorMessage(const PGconn *conn) { return ready() ? libpq.PQerrorMessage(conn) : failure; }
HIDDEN void PQfinish(PGconn *conn) { if (ready()) libpq.PQfinish(conn); }
HIDDEN PQnoticeProcessor PQsetNoticeProcessor(PGconn *conn, PQnoticeProcessor proc, void *arg) {
    return ready() ? libpq.PQsetNoticeProcessor(conn, proc, arg) : NULL;
}
HIDDEN PGVerbosity PQsetErrorVerbosity(PGconn *conn, PGVerbosity verbosity) {
    return ready() ? libpq.PQsetErrorVerbosity(conn, verbosity) : PQERRORS_TERSE;
}
HIDDEN PGContextVisibility PQsetErrorContextVisibility(PGconn *conn, PGContextVisibility show_context) {
    return ready() ? libpq.PQsetErrorContextVisibility(conn, show_context) : PQSHOW_CONTEXT_NEVER;
}
HIDDEN PGTransactionStatusType PQtransactionStatus(const PGconn *conn) {
    return ready() ? libpq.PQtransactionStatus(conn) : PQTRANS_UNKNOWN;
}
HIDDEN int PQbackendPID(const PGconn *conn) { return ready() ? libpq.PQbackendPID(conn) : 0; }
HIDDEN char *PQhost(const PGconn *conn) { return ready() ? libpq.PQhost(conn) : NULL; }
HIDDEN char *PQport(const PGconn *conn) { return ready() ? libpq.PQport(conn) : NULL; }
HIDDEN char *PQdb(const PGconn *conn) { return ready() ? libpq.PQdb(conn) : NULL; }
HIDDEN char *PQuser(const PGconn *conn) { return ready() ? libpq.PQuser(conn) : NULL; }
HIDDEN int PQsocket(const PGconn *conn) { return ready() ? libpq.PQsocket(conn) : -1; }
HIDDEN int PQsendQuery(PGconn *conn, const char *query) { return ready() ? libpq.PQsendQuery(conn, query) : 0; }
HIDDEN int PQsendQueryParams(PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
                             const char *const *paramValues, const int *paramLengths, const int *paramFormats,
                             int resultFormat) {
    return ready() ? libpq.PQsendQueryParams(conn, command, nParams, paramTypes, paramValues, paramLengths,
                                             paramFormats, resultFormat)
                   : 0;
}
HIDDEN int PQsetSingleRowMode(PGconn *conn) { return ready() ? libpq.PQsetSingleRowMode(conn) : 0; }
HIDDEN int PQisBusy(PGconn *conn) { return ready() ? libpq.PQisBusy(conn) : 0; }
HIDDEN int PQconsumeInput(PGconn *conn) { return ready() ? libpq.PQconsumeInput(conn) : 0; }
HIDDEN PGresult *PQgetResult(PGconn *conn) { return ready() ? libpq.PQgetResult(conn) : NULL; }
HIDDEN void PQclear(PGresult *res) { if (ready()) libpq.PQclear(res); }
HIDDEN ExecStatusType PQresultStatus(const PGresult *res) { return ready() ? libpq.PQresultStatus(res) : PGRES_FATAL_ERROR; }
HIDDEN int PQntuples(const PGresult *res) { return ready() ? libpq.PQntuples(res) : 0; }
HIDDEN int PQnfields(const PGresult *res) { return ready() ? libpq.PQnfields(res) : 0; }
HIDDEN int PQgetisnull(const PGresult *res, int tup_num, int field_num) {
    return ready() ? libpq.PQgetisnull(res, tup_num, field_num) : 1;
}
HIDDEN char *PQgetvalue(const PGresult *res, int tup_num, int field_num) {
    return ready() ? libpq.PQgetvalue(res, tup_num, field_num) : NULL;
}
HIDDEN char *PQresultErrorField(const PGresult *res, int fieldcode) {
    return ready() ? libpq.PQresultErrorField(res, fieldcode) : NULL;
}
HIDDEN PGcancel *PQgetCancel(PGconn *conn) { return ready() ? libpq.PQgetCancel(conn) : NULL; }
HIDDEN void PQfreeCancel(PGcancel *cancel) { if (ready()) libpq.PQfreeCancel(cancel); }
HIDDEN int PQcancel(PGcancel *cancel, char *errbuf, int errbufsize) {
    return ready() ? libpq.PQcancel(cancel, errbuf, errbufsize) : 0;
}
