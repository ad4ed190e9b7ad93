import Foundation
import Testing

/// What runs before the first prompt: only what the run needs. PostgreSQL's client
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

    /// libidn2 (and the libunistring it brings) waits for the first domain that is not plain
    /// ASCII: never before the first prompt, never for an ASCII address, and loaded for `bücher.de`.
    @Test func libidn2IsLoadedOnlyForAnInternationalDomain() {
        let box = Sandbox()
        for (arguments, input) in [(["--db", box.db], nil), (["--db", box.db], answers), (["list", "--db", box.db], nil)] as [([String], String?)] {
            let (run, libraries) = loadedLibraries(arguments, input: input.map(lines), in: box)
            #expect(!libraries.isEmpty, "LD_DEBUG=files said nothing: \(run.stderr.prefix(300))")
            #expect(!libraries.contains("libidn2.so.0") && !libraries.contains("libunistring.so.2"), "\(arguments) \(input ?? "")")
        }
        let (run, libraries) = loadedLibraries(["--db", box.db], input: lines("a@bücher.de\n\(goodPassword)\n\(goodPassword)\n"), in: box)
        #expect(run.status == 0, "\(run.stderr.suffix(300))")
        #expect(libraries.contains("libidn2.so.0"))
    }

    /// SQLite, zxcvbn and Argon2 are loaded when first used, never before the first prompt: a
    /// session that goes no further maps none of them, a whole sign-up SQLite, zxcvbn and libsodium
    /// (never libargon2: its costs have one lane), and `list` SQLite alone.
    @Test func sqliteZxcvbnAndArgon2WaitForTheirFirstUse() {
        let box = Sandbox()
        let lazy = ["libsqlite3.so.0", "libzxcvbn.so.0", "libsodium.so.23", "libargon2.so.1"]
        let atPrompt = loadedLibraries(["--db", box.db], in: box)
        #expect(!atPrompt.libraries.isEmpty, "LD_DEBUG=files said nothing: \(atPrompt.run.stderr.prefix(300))")
        #expect(atPrompt.run.status == 66, "\(atPrompt.run.stderr.suffix(300))")
        #expect(atPrompt.libraries.isDisjoint(with: lazy), "\(atPrompt.libraries.intersection(lazy)) before the first prompt")
        let signUp = loadedLibraries(["--db", box.db], input: lines(answers), in: box)
        #expect(signUp.run.status == 0, "\(signUp.run.stderr.suffix(300))")
        #expect(signUp.libraries.isSuperset(of: lazy.dropLast()) && !signUp.libraries.contains("libargon2.so.1"), "\(signUp.libraries)")
        let list = loadedLibraries(["list", "--db", box.db], in: box)
        #expect(list.libraries.contains("libsqlite3.so.0") && list.libraries.isDisjoint(with: lazy.dropFirst()))
    }

    /// libedit (and libtinfo, libbsd and libmd, which it needs) is loaded only by a terminal
    /// session that draws: a script's sign-up, `list` and `verify` never map it.
    @Test func noRunThroughAPipeLoadsLibedit() {
        let box = Sandbox()
        let interactive = ["libedit.so.2", "libtinfo.so.6", "libbsd.so.0"]
        let runs = [
            loadedLibraries(["--db", box.db], in: box),
            loadedLibraries(["--db", box.db], input: lines(answers), in: box),
            loadedLibraries(["list", "--db", box.db], in: box),
            loadedLibraries(["verify", "--db", box.db, "alice@example.com"], input: lines("\(goodPassword)\n"), in: box),
        ]
        #expect(runs.map(\.run.status) == [66, 0, 0, 0], "\(runs.map { $0.run.stderr.suffix(200) })")
        for (index, run) in runs.enumerated() {
            #expect(!run.libraries.isEmpty, "LD_DEBUG=files said nothing: \(run.run.stderr.prefix(300))")
            #expect(run.libraries.isDisjoint(with: interactive), "run \(index): \(run.libraries.intersection(interactive))")
        }
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

/// `signup` with no argument, or with only the default command's everyday options (`--db PATH`,
/// `--json`...), skips the argument parser: its reflection was three quarters of a start-up's
/// instructions. What it reads must mean exactly what the parser would make of it.
@Suite struct DefaultCommandTests {
    @Test(arguments: [answers, "", "alice@example.com\n"])
    func noArgumentIsCreateWithItsDefaults(input: String) {
        let bare = Sandbox(), named = Sandbox()
        let withoutArguments = bare.run([], input: lines(input), environment: ["SIGNUP_DB": bare.db])
        // `--policy=standard` names the default, and its `=` leaves the line to the parser.
        let create = named.run(["create", "--policy=standard"], input: lines(input), environment: ["SIGNUP_DB": named.db])
        #expect(create.status == (input == answers ? 0 : 66))
        #expect(withoutArguments.status == create.status)
        #expect(withoutArguments.stdout == create.stdout)
        #expect(withoutArguments.stderr == create.stderr)
        #expect(bare.accounts().count == named.accounts().count)
    }

    /// Each line run twice: as written (read without the parser) and with `--db=PATH` (the
    /// parser's alone, as any `=` is). Same status, same output, same accounts.
    @Test(arguments: [
        (["--db", "DB"], answers),
        (["create", "--db", "DB", "--json"], answers),
        (["--dry-run", "--quiet", "--db", "DB"], answers),
        (["--db", "DB", "--plain", "--no-interactive", "--policy", "strict"], answers),
        (["--db", "DB", "--policy", "nonesuch"], answers),
        (["--db", "DB", "--policy", "nist", "--policy-file", "POLICY"], answers),
        (["--db", "DB", "--email", "alice@example.com", "--password-file", "PASSWORD", "--json"], ""),
        (["--db", "DB", "--email", "not an address", "--password-file", "PASSWORD"], ""),
        (["--db", "DB", "--password-file", "PASSWORD"], "alice@example.com\n"),
        (["--db", "DB", "--json"], "alice@example.com\n"),
        (["--config", "CONFIG"], answers),
        (["--config", "CONFIG", "--db", "DB", "--json"], answers),
        (["--db", "DB", "--config", "BADCONFIG"], answers),
    ])
    func everydayOptionsMeanWhatTheParserMakesOfThem(arguments: [String], input: String) {
        let everyday = Sandbox(), parsed = Sandbox()
        func run(in box: Sandbox, joined: Bool) -> Run {
            let password = box.file("password", Data("\(goodPassword)\n".utf8))
            let policy = box.file("policy.json", Data(#"{"minimumLength": 12}"#.utf8))
            // The configuration's database is the sandbox's, named relative to the file's folder.
            let config = box.file("signup.conf", Data("database = accounts.sqlite\nargon2.memory = 8192\n".utf8))
            let bad = box.file("bad.conf", Data("argon2.memory = lots\n".utf8))
            var words: [String] = []
            var index = arguments.startIndex
            while index < arguments.endIndex {
                if joined && arguments[index] == "--db" {
                    words.append("--db=" + box.db)
                    index += 2
                    continue
                }
                words.append(["DB": box.db, "PASSWORD": password, "POLICY": policy, "CONFIG": config, "BADCONFIG": bad][arguments[index]] ?? arguments[index])
                index += 1
            }
            let run = box.run(words, input: lines(input))
            // The sandboxes' folders differ; what is said about them must not.
            return Run(status: run.status, stdout: run.stdout.replacingOccurrences(of: box.folder.path, with: "BOX"),
                       stderr: run.stderr.replacingOccurrences(of: box.folder.path, with: "BOX"),
                       stdoutBytes: run.stdoutBytes, stderrBytes: run.stderrBytes)
        }
        let fast = run(in: everyday, joined: false), slow = run(in: parsed, joined: true)
        #expect(fast.status == slow.status, "\(fast.stderr) | \(slow.stderr)")
        #expect(fast.stdout == slow.stdout)
        #expect(fast.stderr == slow.stderr)
        #expect(everyday.accounts().count == parsed.accounts().count)
    }

    /// In German, the system's own reason (glibc's, from libc-l10n) is German on both paths: the
    /// line read without the parser applied the message locale only after it had read the
    /// policy file, and said `No such file or directory` where the parser's said it in German.
    @Test func theSystemsReasonsAreInTheReadersLanguageOnBothPaths() {
        let box = Sandbox()
        let german = ["LANGUAGE": "de", "LC_ALL": "C.UTF-8"]
        let missing = box.folder.appendingPathComponent("no-such-policy.json").path
        let everyday = box.run(["--db", box.db, "--policy-file", missing], input: lines(answers), environment: german)
        let parsed = box.run(["--db=" + box.db, "--policy-file", missing], input: lines(answers), environment: german)
        #expect(everyday.status == 64)
        #expect(everyday.stderr == parsed.stderr)
        #expect(everyday.stderr.contains("Datei oder Verzeichnis nicht gefunden"), "\(everyday.stderr)")
    }

    /// A `--db` the store refuses is a usage error like any other: `error: ` and the reader's
    /// language for signup's own words (the store's reason is English yet), no parser usage
    /// line. `--db= PATH` is PATH, as the parser reads it (the bytes were read again from
    /// `argv` by a second reader that took the empty `--db=`).
    @Test func aDatabaseOptionTheStoreRefusesIsAnOrdinaryUsageError() {
        let box = Sandbox()
        let empty = box.run(["--db", ""], input: lines(answers), environment: ["LANGUAGE": "de", "LC_ALL": "C.UTF-8"])
        #expect(empty.status == 64)
        #expect(empty.stderr == "error: --db oder SIGNUP_DB: the database path is empty\n", "\(empty.stderr)")
        #expect(box.run(["--db=", box.db, "--quiet"], input: lines(answers)).status == 0)
        #expect(box.accounts().count == 1)
    }

    /// No command takes more than 64 words; the parser's time grows with the square of their
    /// number (20,000 words took 16 s of CPU before the first prompt).
    @Test func aCommandLineOfThousandsOfWordsIsRefusedAtOnce() {
        let box = Sandbox()
        let many = box.run(Array(repeating: "--json", count: 20_000), input: lines(answers))
        #expect(many.status == 64)
        #expect(many.stderr == "error: too many arguments: no command of signup's takes more than 64\n")
        let most = box.run(["--db", box.db] + Array(repeating: "--json", count: 62), input: lines(answers))
        #expect(most.status == 0, "64 words are still read: \(most.stderr)")
    }

    /// Lines the everyday reading leaves to the parser, which refuses or reads them as before.
    @Test func whatIsNotEverydayIsTheParsers() {
        let box = Sandbox()
        let missing = box.run(["--db"], input: lines(answers))
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("Missing value for --db"), "\(missing.stderr)")
        let optionAsValue = box.run(["--db", "--json"], input: lines(answers))
        #expect(optionAsValue.status == 64)
        #expect(optionAsValue.stderr.contains("Missing value for --db"), "\(optionAsValue.stderr)")
        let late = box.run(["--db", box.db, "create"], input: lines(answers))
        #expect(late.status == 64, "create is a command only as the first word")
        #expect(late.stderr.contains("Unexpected argument"), "\(late.stderr)")
        // Given twice, the parser keeps the last.
        let first = box.folder.appendingPathComponent("first.sqlite").path
        #expect(box.run(["--db", first, "--db", box.db, "--quiet"], input: lines(answers)).status == 0)
        #expect(box.accounts().count == 1)
        #expect(!FileManager.default.fileExists(atPath: first))
        #expect(box.run(["--public", "--db", box.db, "--idle-timeout", "0"], input: lines(answers)).status == 64)
    }
}

/// A library loaded on first use that cannot be loaded (here a file of that name that is not a
/// library, first on `LD_LIBRARY_PATH`) is a storage failure (74) that names it, and nothing is stored.
@Suite struct MissingLibraryTests {
    /// An environment whose loader finds `library` broken.
    func breaking(_ library: String, in box: Sandbox) throws -> [String: String] {
        let folder = box.folder.appendingPathComponent("broken-lib")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("not a library".utf8).write(to: folder.appendingPathComponent(library))
        return ["LD_LIBRARY_PATH": folder.path]
    }

    @Test(arguments: [("libsqlite3.so.0", "libsqlite3-0"), ("libsodium.so.23", "libsodium23"), ("libzxcvbn.so.0", "libzxcvbn0")])
    func aSignUpWithoutItIsAStorageFailureThatNamesIt(library: String, package: String) throws {
        let box = Sandbox()
        let environment = try breaking(library, in: box)
        let name = String(library.prefix { $0 != "." })
        for arguments in [["--db", box.db], ["create", "--no-interactive", "--db", box.db]] {
            let run = box.run(arguments, input: lines(answers), environment: environment, secrets: [goodPassword])
            #expect(run.status == 74, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("\(name) cannot be loaded (Debian: \(package))"), "\(run.stderr)")
        }
        // Nothing stored: the first sign-up with every library is the first account.
        #expect(box.run(["--db", box.db, "--json"], input: lines(answers), secrets: [goodPassword]).status == 0)
        #expect(box.accounts().count == 1)
    }

    @Test func verifyWithoutLibsodiumIsAStorageFailureThatNamesIt() throws {
        let box = Sandbox()
        #expect(box.run(["--db", box.db], input: lines(answers), secrets: [goodPassword]).status == 0)
        let run = box.run(["verify", "--db", box.db, "alice@example.com"], input: lines("\(goodPassword)\n"),
                          environment: try breaking("libsodium.so.23", in: box), secrets: [goodPassword])
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr.contains("libsodium cannot be loaded (Debian: libsodium23)"), "\(run.stderr)")
    }

    /// Costs with more than one lane are hashed by libargon2 (libsodium hashes with one): without
    /// it, such a sign-up is the same storage failure, naming libargon2.
    @Test func aSignUpWithLanesWithoutLibargon2IsAStorageFailureThatNamesIt() throws {
        let box = Sandbox()
        var environment = try breaking("libargon2.so.1", in: box)
        let config = box.folder.appendingPathComponent("lanes.conf")
        try Data("argon2.parallelism = 4\n".utf8).write(to: config)
        environment["SIGNUP_CONFIG"] = config.path
        let run = box.run(["--db", box.db], input: lines(answers), environment: environment, secrets: [goodPassword])
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr.contains("libargon2 cannot be loaded (Debian: libargon2-1)"), "\(run.stderr)")
        #expect(box.run(["--db", box.db, "--json"], input: lines(answers), secrets: [goodPassword]).status == 0)
        #expect(box.accounts().count == 1)
    }
}
