import Foundation
import Testing

/// signup.conf: the files an administrator writes once, what each command takes from them, what
/// is refused (naming the file and line), and `signup config`'s origins. The system file
/// (/etc/signup/signup.conf) is tested by Tests/integration/config.sh under a mount namespace:
/// these tests never touch /etc, and the sandbox pins SIGNUP_CONFIG=/dev/null for every other test.
@Suite struct ConfigTests {
    /// A sandbox whose user file ($XDG_CONFIG_HOME/signup/signup.conf) holds `text`.
    @discardableResult
    static func userFile(_ box: Sandbox, _ text: String) -> String {
        let folder = box.folder.appendingPathComponent("xdg/signup")
        try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("signup.conf").path
        try! Data(text.utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        return path
    }

    /// The environment that reads the sandbox's user file (and the machine's system file, which tests never write).
    static func reading(_ box: Sandbox, _ extra: [String: String] = [:]) -> [String: String] {
        ["SIGNUP_CONFIG": "", "XDG_CONFIG_HOME": box.folder.appendingPathComponent("xdg").path].merging(extra) { $1 }
    }

    /// The stored hash of the only account, read by python's sqlite3.
    static func storedHash(_ path: String) -> String {
        tool(["python3", "-c", "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT password_hash FROM account').fetchone()[0])", path])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func createVerifyListAndPasswdHonourTheFileWithNoFlags() {
        let box = Sandbox()
        let database = box.folder.appendingPathComponent("from-config.sqlite").path
        Self.userFile(box, "# the administrator's settings\n\ndatabase = \(database)\nargon2.memory = 8192\nargon2.passes = 3\nargon2.parallelism = 2\n")
        let environment = Self.reading(box)
        // The fast path (no parser) and the parser's path both take the file.
        let created = box.run(["--email", "a@example.com", "--password-file", box.file("pw", Data((goodPassword + "\n").utf8))], environment: environment)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(Self.storedHash(database).hasPrefix("$argon2id$v=19$m=8192,t=3,p=2$"))
        #expect(!FileManager.default.fileExists(atPath: box.db))
        let listed = box.run(["list", "--json"], environment: environment)
        #expect(listed.status == 0 && listed.stdout.contains("a@example.com"), "\(listed.stderr)")
        #expect(box.run(["verify", "a@example.com"], input: Data((goodPassword + "\n").utf8), environment: environment).status == 0)
        #expect(box.run(["list", "--count-old-hashes"], environment: environment).stdout == "0\n")
        let changed = box.run(["passwd", "a@example.com"], input: Data("Basalt-Meadow-73\nBasalt-Meadow-73\n".utf8), environment: environment,
                              secrets: ["Basalt-Meadow-73"])
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(Self.storedHash(database).hasPrefix("$argon2id$v=19$m=8192,t=3,p=2$"))
        #expect(box.run(["disable", "a@example.com"], environment: environment).status == 0)
        #expect(box.run(["enable", "a@example.com"], environment: environment).status == 0)
        #expect(box.run(["delete", "a@example.com", "--yes"], environment: environment).status == 0)
        #expect(!box.run(["list", "--json"], environment: environment).stdout.contains("a@example.com"))
        let imported = box.run(["import", box.file("rows.csv", Data("email,password\nb@example.com,Harbor-Tulip-Kite-93\n".utf8))],
                               environment: environment, secrets: ["Harbor-Tulip-Kite-93"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(Self.storedHash(database).hasPrefix("$argon2id$v=19$m=8192,t=3,p=2$"))
    }

    @Test func theCommandLineBeatsTheEnvironmentBeatsAFile() {
        let box = Sandbox()
        Self.userFile(box, "database = user.sqlite\npolicy = nist\n")
        func shown(_ arguments: [String], _ extra: [String: String] = [:]) -> [String: Any] {
            let run = box.run(["config", "--json"] + arguments, environment: Self.reading(box, extra))
            #expect(run.status == 0, "\(run.stderr)")
            return run.json["settings"] as? [String: Any] ?? [:]
        }
        func database(_ settings: [String: Any]) -> (String, [String: Any]) {
            let entry = settings["database"] as? [String: Any] ?? [:]
            return (entry["value"] as? String ?? "", entry["origin"] as? [String: Any] ?? [:])
        }
        let file = box.folder.appendingPathComponent("xdg/signup/signup.conf").path
        // The user file's path is relative to its folder.
        var (value, origin) = database(shown([]))
        #expect(value == box.folder.appendingPathComponent("xdg/signup/user.sqlite").path)
        #expect(origin["kind"] as? String == "file" && origin["file"] as? String == file && origin["line"] as? Int == 1)
        (value, origin) = database(shown([], ["SIGNUP_DB": "/srv/env.sqlite"]))
        #expect(value == "/srv/env.sqlite" && origin["kind"] as? String == "environment" && origin["variable"] as? String == "SIGNUP_DB")
        (value, origin) = database(shown(["--db", "/srv/cli.sqlite"], ["SIGNUP_DB": "/srv/env.sqlite"]))
        #expect(value == "/srv/cli.sqlite" && origin["kind"] as? String == "command line" && origin["option"] as? String == "--db")
        // An explicit file replaces the user's: SIGNUP_CONFIG, and --config over it.
        let explicit = box.file("explicit.conf", Data("database = /srv/explicit.sqlite\n".utf8))
        let other = box.file("other.conf", Data("database = /srv/other.sqlite\n".utf8))
        (value, _) = database(shown([], ["SIGNUP_CONFIG": explicit]))
        #expect(value == "/srv/explicit.sqlite")
        #expect((shown([], ["SIGNUP_CONFIG": explicit])["policy"] as? [String: Any])?["value"] as? String == "standard")
        (value, _) = database(shown(["--config", other], ["SIGNUP_CONFIG": explicit]))
        #expect(value == "/srv/other.sqlite")
        // The policy: --policy over the file's.
        #expect((shown([])["policy"] as? [String: Any])?["value"] as? String == "nist")
        #expect((shown(["--policy", "strict"])["policy"] as? [String: Any])?["value"] as? String == "strict")
        // --config /dev/null: no file, the defaults.
        (_, origin) = database(shown(["--config", "/dev/null"]))
        #expect(origin["kind"] as? String == "default")
    }

    @Test func configShowsEveryKeyWithItsOriginAndNoPassword() {
        let box = Sandbox()
        let file = Self.userFile(box, "argon2.memory = 47104\nargon2.passes = 1\npublic.per-client = 2\nsyslog.facility = auth\n"
                                 + "public.prove-address = no\nmail.command = /usr/lib/sendmail  -t\t-i -f signup@example.org\n")
        let run = box.run(["config"], environment: Self.reading(box, ["SIGNUP_DB": "postgresql://alice:S3cretPW@db.example/accounts"]),
                          secrets: ["S3cretPW"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(lines.contains("# \(file): read"))
        #expect(lines.contains("environment SIGNUP_DB database = PostgreSQL (host=db.example, dbname=accounts, user=alice)"))
        #expect(lines.contains("default policy = standard"))
        #expect(lines.contains("\(file):1 argon2.memory = 47104"))
        #expect(lines.contains("\(file):2 argon2.passes = 1"))
        #expect(lines.contains("policy argon2.parallelism = 1"))
        #expect(lines.contains("default public.answer-seconds = 60"))
        #expect(lines.contains("\(file):3 public.per-client = 2"))
        #expect(lines.contains("\(file):4 syslog.facility = auth"))
        #expect(lines.contains("\(file):5 public.prove-address = no"))
        #expect(lines.contains("\(file):6 mail.command = /usr/lib/sendmail -t -i -f signup@example.org"))
        #expect(lines.contains { $0.hasPrefix("default mail.from = signup@") })
        let json = box.run(["config", "--json"], environment: Self.reading(box))
        let settings = json.json["settings"] as? [String: Any] ?? [:]
        #expect(settings.keys.sorted() == ["argon2.memory", "argon2.parallelism", "argon2.passes", "database", "mail.command", "mail.from",
                                           "policy", "policy-file", "public.account-window", "public.answer-seconds", "public.codes-per-account",
                                           "public.limit-window", "public.mails-per-account", "public.overall",
                                           "public.per-client", "public.prove-address", "public.session-seconds", "syslog.facility"])
        // The bounds per account, with their defaults.
        #expect(lines.contains("default public.account-window = 86400"))
        #expect(lines.contains("default public.mails-per-account = 5"))
        #expect(lines.contains("default public.codes-per-account = 10"))
        #expect(settings["policy-file"] is NSNull)
        #expect((settings["argon2.memory"] as? [String: Any])?["value"] as? Int == 47104)
        #expect(((settings["syslog.facility"] as? [String: Any])?["origin"] as? [String: Any])?["line"] as? Int == 4)
        let files = json.json["files"] as? [[String: Any]] ?? []
        #expect(files.first?["role"] as? String == "user" && files.first?["read"] as? Bool == true)
        #expect(files.last?["role"] as? String == "system" && files.last?["path"] as? String == "/etc/signup/signup.conf")
    }

    @Test func aPasswordInTheFilesDatabaseIsNeverShown() {
        let box = Sandbox()
        let file = Self.userFile(box, "database = postgresql://alice:S3cretPW@db.example/accounts\n")
        let run = box.run(["config"], environment: Self.reading(box), secrets: ["S3cretPW"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\(file):1  database = PostgreSQL (host=db.example, dbname=accounts, user=alice)"), "\(run.stdout)")
        let json = box.run(["config", "--json"], environment: Self.reading(box), secrets: ["S3cretPW"])
        #expect(json.status == 0 && !json.stdout.contains("S3cretPW"))
    }

    @Test func aGermanReaderIsToldInGerman() {
        let box = Sandbox()
        let file = Self.userFile(box, "argon2.passes = viele\n")
        let run = box.run(["list"], environment: Self.reading(box, ["LANGUAGE": "de", "LANG": "C.UTF-8"]))
        #expect(run.status == 64)
        #expect(run.stderr == "error: \(file), Zeile 1: argon2.passes nimmt eine ganze Zahl von 1 bis 64\n", "\(run.stderr)")
    }

    @Test(arguments: [
        ("database = a.sqlite\ndatabse = b.sqlite\n", "line 2: unknown key databse"),
        ("# fine\nargon2.memory\n", "line 2: a line without \"=\""),
        ("argon2.passes = 2\n\nargon2.passes = 3\n", "line 3: argon2.passes is set twice (first on line 1)"),
        ("argon2.memory = 19 MiB\n", "line 1: argon2.memory takes a whole number from 7168 to 1048576"),
        ("argon2.parallelism = 0\n", "line 1: argon2.parallelism takes a whole number from 1 to 64"),
        ("policy = lax\n", "line 1: policy takes one of: standard, strict, nist"),
        ("syslog.facility = local0\n", "line 1: syslog.facility takes one of: authpriv, auth"),
        ("public.prove-address = maybe\n", "line 1: public.prove-address takes one of: yes, no"),
        ("mail.command = sendmail -t -i\n", "line 1: mail.command must start with the program's absolute path"),
        ("mail.from = nobody\n", "line 1: mail.from takes an email address"),
        ("public.overall =\n", "line 1: public.overall has no value"),
        ("public.codes-per-account = 0\n", "line 1: public.codes-per-account takes a whole number from 1 to 1000000000"),
        ("public.account-window = 1 day\n", "line 1: public.account-window takes a whole number from 1 to 1000000000"),
        ("policy = strict\npolicy-file = p.json\n", "line 2: policy and policy-file (line 1) name two policies"),
        ("\n\nid = caf\u{E9}\n", "line 3: unknown key id"),
    ])
    func aMalformedFileIsRefusedNamingItsLine(text: String, message: String) {
        let box = Sandbox()
        let file = Self.userFile(box, text)
        for arguments in [["--email", "a@example.com"], ["list"], ["config"], ["verify", "a@example.com"]] {
            let run = box.run(arguments, input: Data((goodPassword + "\n" + goodPassword + "\n").utf8), environment: Self.reading(box))
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
            #expect(run.stderr.hasPrefix("error: \(file), \(message)") && run.stderr.split(separator: "\n").count == 1, "\(arguments): \(run.stderr)")
            #expect(run.stdout.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: box.folder.appendingPathComponent(".local").path), "something was written")
    }

    /// A policy file that signup.conf names and that cannot be used: the message names the key and
    /// its line once, never `--policy-file`, which was not given (it said "policy-file cannot be
    /// used: the --policy-file file cannot be used").
    @Test(arguments: [
        ("{\"minLength\": 8, ", "the policy-file file cannot be used: it is not valid JSON"),
        ("{\"minLength\": 1e30}", "the policy-file file cannot be used: \"minLength\" is out of range"),
        ("{\"blocklistFile\": \"missing.txt\"}", "the blocklistFile of the policy-file file cannot be opened: No such file or directory"),
    ])
    func aPolicyFileThatCannotBeUsedIsNamedByItsKey(policy: String, message: String) {
        let box = Sandbox()
        let policyFile = box.file("p.json", Data(policy.utf8))
        let file = Self.userFile(box, "policy-file = \(policyFile)\n")
        // Also when the command line chooses another policy: a value a higher level overrides is checked too.
        for arguments in [["--email", "a@example.com"], ["config"], ["--email", "a@example.com", "--policy", "strict"], ["config", "--policy", "nist"]] {
            let run = box.run(arguments, input: Data((goodPassword + "\n" + goodPassword + "\n").utf8), environment: Self.reading(box))
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
            #expect(run.stderr.hasPrefix("error: \(file), line 1: \(message)") && !run.stderr.contains("--policy-file"), "\(arguments): \(run.stderr)")
        }
    }

    @Test func bytesThatAreNoTextAndAHugeFileAreRefused() {
        let box = Sandbox()
        let file = Self.userFile(box, "")
        for (bytes, message) in [
            (Data("policy = strict\ndatabase = /a\u{0}b\n".utf8), "line 2: the line holds a NUL byte"),
            (Data("policy = strict\n".utf8) + Data([0x64, 0x61, 0xFF, 0x0A]), "line 2: the line is not UTF-8"),
            (Data(repeating: UInt8(ascii: "#"), count: 64 * 1024 + 1), "is larger than 64 KiB"),
        ] {
            try! bytes.write(to: URL(fileURLWithPath: file))
            let run = box.run(["list"], environment: Self.reading(box))
            #expect(run.status == 64)
            #expect(run.stderr.hasPrefix("error: \(file)") && run.stderr.contains(message), "\(run.stderr)")
        }
    }

    @Test func aFileOthersCanWriteIsRefusedAndNothingIsWritten() {
        let box = Sandbox()
        let file = Self.userFile(box, "database = mine.sqlite\n")
        let folder = box.folder.appendingPathComponent("xdg/signup").path
        let input = Data(("a@example.com\n" + goodPassword + "\n" + goodPassword + "\n").utf8)
        chmod(file, 0o620)
        var run = box.run([], input: input, environment: Self.reading(box))
        #expect(run.status == 64)
        #expect(run.stderr == "error: \(file) cannot be used: other users can write it (mode 0620)\n", "\(run.stderr)")
        chmod(file, 0o600)
        chmod(folder, 0o775)
        run = box.run(["list"], environment: Self.reading(box))
        #expect(run.status == 64 && run.stderr.contains("the folder \(folder) can be written by other users (mode 0775)"), "\(run.stderr)")
        chmod(folder, 0o755)
        if getuid() == 0 {
            // Owned by another user, who can change it whatever its mode.
            chown(file, 65534, 65534)
            run = box.run(["config"], environment: Self.reading(box))
            #expect(run.status == 64 && run.stderr.contains("it belongs to user nobody (65534), who can change it"), "\(run.stderr)")
            chown(file, 0, 0)
        }
        // A symbolic link is never followed, as at the database path.
        let link = box.folder.appendingPathComponent("link.conf").path
        symlink(file, link)
        run = box.run(["list", "--config", link])
        #expect(run.status == 64 && run.stderr.contains("symbolic link"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: box.folder.appendingPathComponent("xdg/signup/mine.sqlite").path))
        // A missing explicit file is an error that does not repeat the path (it may be a secret typed in the wrong place).
        run = box.run(["list", "--config", "Secret-Word-58"], secrets: ["Secret-Word-58"])
        #expect(run.status == 64 && run.stderr == "error: the --config file cannot be opened: No such file or directory\n", "\(run.stderr)")
        run = box.run(["list"], environment: ["SIGNUP_CONFIG": box.folder.appendingPathComponent("none.conf").path])
        #expect(run.status == 64 && run.stderr == "error: the SIGNUP_CONFIG file cannot be opened: No such file or directory\n", "\(run.stderr)")
    }

    /// The owner of a folder the file is looked up in can remove it, or put another in its place:
    /// the file is refused even though root owns it, in its own folder or higher up the path.
    @Test(.enabled(if: getuid() == 0, "needs root to give a folder to nobody"))
    func aFileInAFolderAnotherUserOwnsIsRefused() {
        let box = Sandbox()
        let file = Self.userFile(box, "database = mine.sqlite\n")
        let folder = box.folder.appendingPathComponent("xdg/signup").path
        let above = box.folder.appendingPathComponent("xdg").path
        for owned in [folder, above] {
            chown(owned, 65534, 65534)
            let run = box.run(["config"], environment: Self.reading(box))
            #expect(run.status == 64, "\(run.stderr)")
            #expect(run.stderr == "error: \(file) cannot be used: its folder \(owned) belongs to user nobody (65534), who could remove or replace the file\n",
                    "\(run.stderr)")
            chown(owned, 0, 0)
        }
        // Back with root: the same file is read.
        let run = box.run(["config"], environment: Self.reading(box))
        #expect(run.status == 0 && run.stdout.contains("mine.sqlite"), "\(run.stderr)")
    }

    @Test func theFileLimitsAPublicSignup() {
        let box = Sandbox()
        Self.userFile(box, "database = public.sqlite\npublic.per-client = 1\npublic.prove-address = no\n")
        let environment = Self.reading(box, ["SSH_CLIENT": "192.0.2.7 50000 22"])
        let first = box.run(["--public", "--no-interactive"], input: Data(("a@example.com\n" + goodPassword + "\n" + goodPassword + "\n").utf8),
                            environment: environment)
        #expect(first.status == 0, "\(first.stderr)")
        let second = box.run(["--public", "--no-interactive"], input: Data(("b@example.com\n" + goodPassword + "\n" + goodPassword + "\n").utf8),
                             environment: environment)
        #expect(second.status == 75, "\(second.stderr)")
        // The command line still wins.
        let third = box.run(["--public", "--no-interactive", "--limit-per-client", "5"],
                            input: Data(("c@example.com\n" + goodPassword + "\n" + goodPassword + "\n").utf8), environment: environment)
        #expect(third.status == 0, "\(third.stderr)")
    }
}
