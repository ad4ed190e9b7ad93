// libpq, PostgreSQL's client library. Only Sources/AccountStore/Libpq.swift calls it.
#include <libpq-fe.h>
