import Foundation
import Testing

/// What runs before the first prompt (issue 11): only what the run needs. PostgreSQL's client
/// library and the two dozen libraries it brings (TLS, Kerberos, LDAP) are loaded when a
/// PostgreSQL database is named, never for SQLite: they were most of the start-up time.
/// The dynamic loader says what it loads (`LD_DEBUG=files`, on standard error); nothing is timed.
@Suite struct StartupTests {
    /// The libraries the dynamic loader loaded during one run, by file name.
    func loadedLibraries(_ arguments: [String], input: Data? = nil, in box: Sandbox) -> (run: Run, libraries: Set<String>) {
        let run = box.run(arguments, input: input, environment: ["LD_DEBUG": "files"])
        // `   1234:	file=libpq.so.5 [0];  needed by ./signup [0]` (or `dynamically loaded by`).
        let names = run.stderr.split(separator: "\n").compactMap { line -> String? in
            guard let start = line.range(of: "file=")?.upperBound else { return nil }
            return String(line[start...].prefix { $0 != " " && $0 != "[" })
        }
        return (run, Set(names))
    }

    @Test(arguments: [
        ["--db", "DB"],  // the wizard, input ended at the first prompt
        ["create", "--no-interactive", "--db", "DB"],  // a whole sign-up into SQLite
        ["list", "--db", "DB"],
        ["verify", "--db", "DB"],
    ])
    func anSQLiteRunNeverLoadsPostgreSQLsLibraries(arguments: [String]) {
        let box = Sandbox()
        let (run, libraries) = loadedLibraries(arguments.map { $0 == "DB" ? box.db : $0 }, input: arguments.first == "create" ? lines(answers) : nil, in: box)
        #expect(!libraries.isEmpty, "LD_DEBUG=files said nothing: \(run.stderr.prefix(300))")
        for library in ["libpq.so.5", "libssl.so.3", "libgssapi_krb5.so.2", "libldap-2.5.so.0"] {
            #expect(!libraries.contains(library), "\(arguments) loaded \(library)")
        }
        if arguments.first == "create" { #expect(run.status == 0, "\(run.stderr.suffix(300))") }
    }

    /// Its sibling: a PostgreSQL database loads libpq when it is used (here a server that is not
    /// there: the reason is libpq's own, so libpq was loaded and asked).
    @Test func aPostgreSQLDatabaseLoadsLibpqWhenNamed() {
        let box = Sandbox()
        let socketFolder = box.folder.appendingPathComponent("no-server").path
        let (run, libraries) = loadedLibraries(["list", "--db", "host=\(socketFolder) port=1 dbname=accounts"], in: box)
        #expect(libraries.contains("libpq.so.5"))
        #expect(run.status == 74)
        #expect(run.stderr.contains("cannot connect to PostgreSQL"))
        #expect(run.stderr.contains(".s.PGSQL.1"), "libpq's reason names the socket it tried")
    }
}

/// `signup` with no argument skips the argument parser (its reflection is a quarter of the
/// start-up); it must stay exactly `signup create` with every option at its default.
@Suite struct DefaultCommandTests {
    @Test(arguments: [answers, "", "alice@example.com\n"])
    func noArgumentIsCreateWithItsDefaults(input: String) {
        let bare = Sandbox(), named = Sandbox()
        let withoutArguments = bare.run([], input: lines(input), environment: ["SIGNUP_DB": bare.db])
        let create = named.run(["create"], input: lines(input), environment: ["SIGNUP_DB": named.db])
        #expect(create.status == (input == answers ? 0 : 66))
        #expect(withoutArguments.status == create.status)
        #expect(withoutArguments.stdout == create.stdout)
        #expect(withoutArguments.stderr == create.stderr)
        #expect(bare.accounts().count == named.accounts().count)
    }
}
