// libpq, PostgreSQL's client library. Only Sources/AccountStore/PostgreSQL/Libpq.swift calls it.
//
// Its functions are declared here as libpq declares them, but defined in libpq_loader.c, which
// loads libpq.so.5 the first time one of them is called: a run that never names a PostgreSQL
// database never loads libpq and the two dozen libraries it brings (TLS, Kerberos, LDAP), which
// cost about 4 ms of start-up and 5 MiB of memory (BENCHMARKS.md).
#include <postgresql/libpq-fe.h>

// Whether libpq is loaded, loading it the first time: 1, or 0 when it cannot be (the reason is
// then what PQconninfoParse says).
int signup_libpq_ready(void);
