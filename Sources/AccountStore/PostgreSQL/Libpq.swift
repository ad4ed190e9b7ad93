import CLibpq
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SignupCore

/// Why a libpq call failed: the one error type that leaves this file.
struct PGFailure: Error, Sendable {
    enum Kind: Equatable, Sendable {
        /// The connection could not be made (server down, login refused, no such database).
        case connect
        /// The connection broke while in use: whatever was sent may or may not have been done.
        case connectionLost
        /// The server answered with an error; the connection still works.
        case server(sqlstate: String)
        /// libpq itself cannot be loaded on this machine: nothing of PostgreSQL can be used.
        case libraryMissing
    }

    let kind: Kind
    /// libpq's or the server's reason on one line, control characters made visible.
    /// Only the server's primary message is kept: its DETAIL can quote a whole row, hash included.
    let reason: String

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        // libpq quotes the statement under an error (`LINE 1: INSERT …` and a `^` line): the
        // person needs the reason, not our SQL.
        let oneLine = Self.withoutServerDetail(message)
            .map { $0.trimmingBlanks() }
            .filter { !$0.isEmpty && !$0.hasPrefix("LINE ") && $0 != "^" }
            .joined(separator: " ")
        reason = VisibleText.of(oneLine.isEmpty ? "no reason given" : oneLine)
    }

    /// The lines of a message libpq wrote (`PQerrorMessage`) without a server error's DETAIL,
    /// HINT, CONTEXT, QUERY, STATEMENT or LOCATION: each can quote a row (`Failing row contains
    /// (…, $argon2id$…)`, `Key (email_key)=(…)`, a trigger's values) and go on for more lines, so
    /// from such a field's line to the next attempt libpq reports (another host) nothing is kept.
    /// Connections are made terse (``PGConnection/init(conninfo:isSet:)``); a connection's own
    /// failure comes before that can be set, and a server may not honour it.
    static func withoutServerDetail(_ message: String) -> [Substring] {
        var kept: [Substring] = []
        var inField = false
        for line in message.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let trimmed = line.trimmingBlanks()
            if ["DETAIL:", "HINT:", "CONTEXT:", "QUERY:", "STATEMENT:", "LOCATION:"].contains(where: trimmed.hasPrefix) {
                inField = true
            } else if ["connection to server ", "could not connect to server"].contains(where: trimmed.hasPrefix) {
                inField = false
            }
            if !inField { kept.append(line) }
        }
        return kept
    }

    /// A failed connection's reason: the server's primary messages without their DETAIL and
    /// HINT (which can quote a row or a setting), and no quoted text but the host, user and
    /// database the location already names (`invalid port number: "…"` quotes what `--db`
    /// held, which may be a password typed in the wrong place).
    init(connectionFailedWith message: String, naming known: [String]) {
        let kept = Self.withoutServerDetail(message)
        let parts = kept.joined(separator: "\n").split(separator: "\"", omittingEmptySubsequences: false)
        let shown = parts.enumerated().map { index, part in
            guard index % 2 == 1 else { return String(part) }
            // A socket folder's socket file (`/run/postgresql/.s.PGSQL.5432`) is named by its folder.
            let isKnown = known.contains(String(part)) || known.contains { host in
                host.hasPrefix("/") && part.hasPrefix(host + "/.s.PGSQL.") && part.dropFirst(host.count + 10).allSatisfy(\.isNumber)
            }
            return !part.isEmpty && isKnown ? "\"\(part)\"" : "(not shown)"
        }
        self.init(.connect, shown.joined())
    }

    var isUniqueViolation: Bool { kind == .server(sqlstate: "23505") }
}

/// One connection to a PostgreSQL server, through libpq. Every libpq call in the program is in this file.
///
/// Synchronous, no event loop: each call waits for the server, bounded by the connection's
/// `connect_timeout`, TCP keepalives and `tcp_user_timeout`, and the session's
/// `statement_timeout` and `lock_timeout` (see ``defaultParameters``).
final class PGConnection {
    private let connection: OpaquePointer

    /// Parameters libpq gets before the caller's connection string, so the string (and the
    /// `PG…` environment variables, which libpq reads only for parameters still unset) win.
    /// `isSet` tells whether an environment variable is set (this process's, by default).
    static func defaultParameters(isSet: (String) -> Bool) -> [(String, String)] {
        var parameters: [(String, String)] = [("client_encoding", "UTF8")]
        if !isSet("PGAPPNAME") { parameters.append(("application_name", "signup")) }
        if !isSet("PGCONNECT_TIMEOUT") { parameters.append(("connect_timeout", "10")) }
        // A server that vanishes without closing the connection (a cable, a crashed host, a
        // failover) is noticed in about 25 s instead of the kernel's two hours.
        parameters += [("keepalives", "1"), ("keepalives_idle", "10"), ("keepalives_interval", "5"), ("keepalives_count", "3")]
        if !isSet("PGTCPUSERTIMEOUT") { parameters.append(("tcp_user_timeout", "25000")) }
        return parameters
    }

    /// Connects with `conninfo` (a URL or a keyword string) expanded over ``defaultParameters``.
    init(conninfo: String, isSet: (String) -> Bool = { getenv($0) != nil }) throws(PGFailure) {
        let parameters = Self.defaultParameters(isSet: isSet) + [("dbname", conninfo)]
        let keywords = parameters.map { strdup($0.0) }
        let values = parameters.map { strdup($0.1) }
        defer {
            keywords.forEach { free($0) }
            values.forEach { free($0) }
        }
        let made: OpaquePointer? = (keywords.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { keywordList in
            (values.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { valueList in
                PQconnectdbParams(keywordList.baseAddress, valueList.baseAddress, 1)
            }
        }
        guard let made else { throw PGFailure(.connect, "libpq could not allocate a connection") }
        guard PQstatus(made) == CONNECTION_OK else {
            // The hosts (every one of a list), user and database are named by the location already.
            let given = (try? PGConnectionString.parameters(conninfo).get()) ?? [:]
            let listed = ["host", "hostaddr"].flatMap { (given[$0] ?? "").split(separator: ",").map(String.init) }
            let current = [PQhost(made), PQuser(made), PQdb(made)].compactMap { $0.map { String(cString: $0) } }
            let failure = PGFailure(connectionFailedWith: String(cString: PQerrorMessage(made)), naming: listed + current)
            PQfinish(made)
            throw failure
        }
        // libpq prints the server's notices (`relation … already exists, skipping`) on standard
        // error by default; they are not the person's business.
        PQsetNoticeProcessor(made, { _, _ in }, nil)
        // From now on libpq's own messages (a connection lost after a FATAL error, an error without
        // a SQLSTATE) hold the server's primary message only, never its DETAIL, HINT or CONTEXT.
        PQsetErrorVerbosity(made, PQERRORS_TERSE)
        PQsetErrorContextVisibility(made, PQSHOW_CONTEXT_NEVER)
        connection = made
    }

    deinit { PQfinish(connection) }

    /// The server process serving this connection (`pg_backend_pid()`).
    var backendPID: Int32 { PQbackendPID(connection) }

    /// Which server this is, for messages: `host:port/database`.
    var serverName: String {
        let host = PQhost(connection).map { String(cString: $0) } ?? "?"
        let port = PQport(connection).map { String(cString: $0) } ?? "?"
        let database = PQdb(connection).map { String(cString: $0) } ?? "?"
        return VisibleText.of("\(host.hasPrefix("/") ? "socket " + host : host):\(port)/\(database)")
    }

    /// How long signup waits for any one answer from the server, in milliseconds, before it
    /// gives the connection up as lost. The server's own `statement_timeout` (30 s) and
    /// `lock_timeout` (10 s) end a slow statement first; this bounds a server that stops
    /// answering altogether (a frozen backend, a stuck disk, a wedged pooler), which the
    /// server's timeouts and TCP keepalives cannot see.
    static let answerDeadline: Int32 = 45_000

    /// Runs one or more statements through the simple query protocol (one `Query` message).
    @discardableResult
    func execute(_ sql: String) throws(PGFailure) -> [[String?]] {
        try executeAll(sql).last ?? []
    }

    /// Runs statements through the simple query protocol (one `Query` message, one round trip)
    /// and returns the rows of each, in order; the first error instead, when one failed (the
    /// server then ran none after it, and undid those before it unless a transaction was open).
    func executeAll(_ sql: String) throws(PGFailure) -> [[[String?]]] {
        guard PQsendQuery(connection, sql) == 1 else { throw connectionFailure() }
        return try collectResults()
    }

    /// Whether no transaction is open on this connection (`PQtransactionStatus` is idle).
    var isIdle: Bool { PQtransactionStatus(connection) == PQTRANS_IDLE }

    /// Runs one statement with text parameters (`$1`, `$2`, …) and returns its rows as text.
    @discardableResult
    func execute(_ sql: String, _ parameters: [String?]) throws(PGFailure) -> [[String?]] {
        let sent = withParameters(parameters) { values in
            PQsendQueryParams(connection, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        }
        guard sent == 1 else { throw connectionFailure() }
        return try collectResults().last ?? []
    }

    /// Every result of what was sent: each one's rows, in order, or the first error.
    ///
    /// One deadline for the whole answer, not one per result: a server that sends a result a
    /// second and never says it is done (never `ReadyForQuery`) is given up on too.
    private func collectResults() throws(PGFailure) -> [[[String?]]] {
        var results: [[[String?]]] = []
        var failure: PGFailure?
        let deadline = Self.answerDeadlineFromNow()
        while let result = try nextResult(before: deadline) {
            defer { PQclear(result) }
            switch PQresultStatus(result) {
            case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
                results.append((0..<PQntuples(result)).map { Self.values(result, row: $0) })
            default:
                if failure == nil { failure = failureOf(result) }
            }
        }
        if let failure { throw failure }
        if PQstatus(connection) != CONNECTION_OK { throw connectionFailure() }
        return results
    }

    /// The monotonic time ``answerDeadline`` from now, in milliseconds.
    private static func answerDeadlineFromNow() -> Int64 {
        monotonicMilliseconds() + Int64(answerDeadline)
    }

    /// `PQgetResult`, waiting in poll(2) until `deadline` (monotonic milliseconds) for it.
    ///
    /// The deadline is on the clock, not a count of silent seconds: a server that trickles a
    /// byte now and then (a notice a second, a message sent byte by byte) is given up on as one
    /// that is silent is, not waited for without end.
    private func nextResult(before deadline: Int64) throws(PGFailure) -> OpaquePointer? {
        while PQisBusy(connection) == 1 {
            let socket = PQsocket(connection)
            guard socket >= 0 else { throw connectionFailure() }
            let left = deadline - Self.monotonicMilliseconds()
            guard left > 0 else {
                throw PGFailure(.connectionLost, "the server did not answer within \(Self.answerDeadline / 1000) s")
            }
            var wanted = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&wanted, 1, Int32(min(left, 1_000)))
            if ready < 0 && errno != EINTR { throw connectionFailure() }
            if ready <= 0 { continue }
            guard PQconsumeInput(connection) == 1 else { throw connectionFailure() }
        }
        return PQgetResult(connection)
    }

    static func monotonicMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000 + Int64(now.tv_nsec) / 1_000_000
    }

    /// Runs one query in single-row mode: `row` sees each row as it arrives, so memory does
    /// not grow with the number of rows. `row` returns false to stop; the query is then cancelled
    /// (the connection ended instead when the server does not take the request in time).
    func stream(_ sql: String, _ parameters: [String?], row: ([String?]) -> Bool) throws(PGFailure) {
        let sent = withParameters(parameters) { values in
            PQsendQueryParams(connection, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        }
        guard sent == 1 else { throw connectionFailure() }
        guard PQsetSingleRowMode(connection) == 1 else { throw connectionFailure() }
        var failure: PGFailure?
        var wanted = true
        // A deadline per row: each row is progress (a million rows may take longer than one deadline).
        while let result = try nextResult(before: Self.answerDeadlineFromNow()) {
            defer { PQclear(result) }
            switch PQresultStatus(result) {
            case PGRES_SINGLE_TUPLE where wanted:
                wanted = row(Self.values(result, row: 0))
                if !wanted && !cancel() {
                    // The server did not take the cancel request in time (its postmaster frozen):
                    // end this connection instead; the server ends the query when its client goes,
                    // and later calls on this connection fail as a lost connection.
                    shutdown(PQsocket(connection), Int32(SHUT_RDWR))
                    return
                }
            case PGRES_SINGLE_TUPLE, PGRES_TUPLES_OK, PGRES_COMMAND_OK:
                break
            default:
                // A cancel we asked for ends the query with an error that is not one.
                if wanted, failure == nil { failure = failureOf(result) }
            }
        }
        if let failure { throw failure }
        if PQstatus(connection) != CONNECTION_OK { throw connectionFailure() }
    }

    /// How long a cancel request may take, in seconds, before the connection is ended instead.
    static let cancelDeadline = 10.0

    /// Asks the server to cancel the running query; false when it did not answer within
    /// ``cancelDeadline``. `PQcancel` opens a second connection to the server and waits for it
    /// with no time limit of its own (a frozen postmaster held `signup list | head` for ever),
    /// so it runs on a thread of its own that is left to finish alone (a
    /// queue of its own: a blocked worker of the shared pool would hold back its other work).
    private func cancel() -> Bool {
        guard let handle = PQgetCancel(connection) else { return false }
        let request = CancelRequest(handle: handle)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue(label: "signup.libpq-cancel").async {
            var buffer = [CChar](repeating: 0, count: 256)
            _ = PQcancel(request.handle, &buffer, Int32(buffer.count))
            PQfreeCancel(request.handle)
            done.signal()
        }
        return done.wait(timeout: .now() + Self.cancelDeadline) == .success
    }

    /// A cancel handle handed to the thread that sends it (libpq's `PGcancel` may be used from any thread).
    private struct CancelRequest: @unchecked Sendable {
        let handle: OpaquePointer
    }

    private func withParameters<T>(_ parameters: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> T) -> T {
        let copies = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { copies.forEach { free($0) } }
        return copies.map { UnsafePointer($0) }.withUnsafeBufferPointer { body($0.baseAddress) }
    }

    private static func values(_ result: OpaquePointer, row: Int32) -> [String?] {
        (0..<PQnfields(result)).map { column in
            PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
        }
    }

    private func failureOf(_ result: OpaquePointer) -> PGFailure {
        if PQstatus(connection) != CONNECTION_OK { return connectionFailure() }
        guard let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))) else {
            // No SQLSTATE: libpq itself failed (the connection broke, out of memory).
            return PGFailure(.connectionLost, String(cString: PQerrorMessage(connection)))
        }
        let primary = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) } ?? "error"
        return PGFailure(.server(sqlstate: String(cString: state)), primary)
    }

    private func connectionFailure() -> PGFailure {
        PGFailure(.connectionLost, String(cString: PQerrorMessage(connection)))
    }
}

/// A connection string's parameters, parsed by libpq without connecting (`PQconninfoParse`).
enum PGConnectionString {
    /// The parameters set in `text`, or libpq's reason why it is not a connection string.
    static func parameters(_ text: String) -> Result<[String: String], PGFailure> {
        var error: UnsafeMutablePointer<CChar>?
        let loaded = signup_libpq_ready() != 0
        guard let options = PQconninfoParse(text, &error) else {
            defer { if let error { PQfreemem(error) } }
            return .failure(PGFailure(loaded ? .connect : .libraryMissing, error.map { String(cString: $0) } ?? "out of memory"))
        }
        defer { PQconninfoFree(options) }
        var found: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { found[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        return .success(found)
    }
}
