import Foundation
import Testing

/// What a person installing `signup` relies on: `--version`, `--help`, and the shell
/// completions generated from the parser.
@Suite struct ShippingTests {
    @Test func versionPrintsOneVersionLineAndExitsZero() {
        let run = Sandbox().run(["--version"])
        #expect(run.status == 0)
        #expect(run.stdout.range(of: #"^[0-9]+\.[0-9]+\.[0-9]+\n$"#, options: .regularExpression) != nil)
        #expect(run.stderr == "")
    }

    @Test(arguments: [["--help"], ["-h"], ["help"]])
    func helpShowsTheDefaultCommandsOptionsAndTheExitCodes(arguments: [String]) {
        let run = Sandbox().run(arguments)
        #expect(run.status == 0)
        // The default command's options, with their help, not only the subcommands.
        for option in ["--email <address>", "--password-file <path>", "--password-fd <n>", "--db <path>",
                       "--policy <name>", "--policy-file <path>", "--json", "--quiet", "--dry-run", "--version"] {
            #expect(run.stdout.contains(option), "\(option) missing from signup \(arguments[0])")
        }
        #expect(run.stdout.contains("USAGE: signup [create] "))
        #expect(run.stdout.contains("list") && run.stdout.contains("verify"))
        let flat = run.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flat.contains("Exit codes: 0 created (or would be, with --dry-run), 1 declined, 64 usage, 65 invalid or taken, "
            + "66 input ended early or no terminal could be used, 74 storage failure or standard output failed, 75 a limit of --public was reached, 130 cancelled."))
        #expect(flat.contains("Environment: SIGNUP_DB is the database when --db is not given;"))
        // A few examples, each a command line that works as shown.
        #expect(run.stdout.contains("Examples:\n  signup "))
        #expect(run.stdout.contains("\n  signup --email a@example.com --password-file pw.txt --json\n"))
        #expect(run.stdout.contains("\n  signup verify a@example.com < pw.txt\n"))
        // --db names the whole fallback order: the environment, the configuration, then the default.
        #expect(flat.contains("$SIGNUP_DB, else signup.conf's database, else $XDG_DATA_HOME/signup/accounts.sqlite, else ~/.local/share/signup/accounts.sqlite"))
    }

    /// A first word that names no command (a typo, a command of a later version) gets a message
    /// that lists the commands there are, the ones `--help` lists, and never repeats the word:
    /// it may be a password typed in the wrong place.
    @Test(arguments: ["lsit", "Hunter2-Secret-77", "frobnicate"])
    func anUnknownFirstWordListsTheCommandsWithoutRepeatingIt(word: String) throws {
        let box = Sandbox()
        let run = box.run([word, "--db", box.db], input: Data("a@example.com\n".utf8), secrets: [word])
        #expect(run.status == 64)
        #expect(run.stdout == "")
        let line = try #require(run.stderr.split(separator: "\n").first { $0.hasPrefix("Commands: ") }, "\(run.stderr)")
        let listed = line.dropFirst("Commands: ".count).prefix { $0 != "(" }
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        // The commands of `signup --help`'s SUBCOMMANDS section, in its order.
        let help = box.run(["--help"]).stdout.components(separatedBy: "SUBCOMMANDS:\n").last?.components(separatedBy: "\n\n").first ?? ""
        let helped = help.split(separator: "\n").compactMap { $0.hasPrefix("  ") && !$0.hasPrefix("   ") ? $0.split(separator: " ").first.map(String.init) : nil }
        #expect(listed == helped, "\(run.stderr)")
        #expect(["create", "list", "verify"].allSatisfy(listed.contains))
        #expect(!FileManager.default.fileExists(atPath: box.db))
        // `signup help WORD` says the same.
        let helpWord = box.run(["help", word], secrets: [word])
        #expect(helpWord.status == 64)
        #expect(helpWord.stderr.contains("\n" + line + "\n"), "\(helpWord.stderr)")
    }

    /// Help, the version and a completion script that standard output does not take are not a
    /// success (they exited 0 after a failed write), as for every other result.
    @Test(arguments: [["--help"], ["--version"], ["list", "--help"], ["help", "create"], ["--generate-completion-script", "bash"]])
    func textThatCannotBeWrittenIsExit74(arguments: [String]) {
        let box = Sandbox()
        let full = box.run(arguments, via: #"exec "$0" "$@" > /dev/full"#)
        #expect(full.status == 74)
        #expect(full.stderr.contains("cannot write to standard output: No space left on device"), "\(full.stderr)")
        let closed = box.run(arguments, via: #"exec "$0" "$@" >&-"#)
        #expect(closed.status == 74)
        // A reader that went away is not an error: it ends quietly as SIGPIPE would, as `list` does.
        let piped = box.run(arguments, via: #"( sleep 0.5; "$0" "$@"; echo "status $?" >&2 ) | true"#)  // true has gone
        #expect(piped.stderr == "status 141\n", "\(piped.stderr)")
        #expect(box.run(arguments).status == 0)
    }

    @Test(arguments: ["list", "verify"])
    func everyDatabaseOptionNamesTheFallbackPath(command: String) {
        let run = Sandbox().run([command, "--help"])
        #expect(run.status == 0)
        let flat = run.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flat.contains("else ~/.local/share/signup/accounts.sqlite"))
    }

    /// Drives the generated bash completion as bash does (COMP_WORDS, COMP_CWORD) in a
    /// folder holding two files, and returns the candidates offered for `line`.
    func bashCompletions(_ line: String, in box: Sandbox) -> [String] {
        let script = box.run(["--generate-completion-script", "bash"])
        let completion = box.file("signup.bash", Data(script.stdout.utf8))
        _ = box.file("accounts.sqlite", Data())
        _ = box.file("policy.json", Data("{}".utf8))
        let driver = """
            source "$1"; cd "$2"
            COMP_LINE="$3"; COMP_POINT=${#COMP_LINE}
            read -ra COMP_WORDS <<<"$3"; [[ "$3" == *" " ]] && COMP_WORDS+=("")
            COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=()
            _signup signup "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", driver, "bash", completion, box.folder.path, line]
        // The completion calls the binary back by its first word: put ours first on PATH.
        let bin = URL(fileURLWithPath: signupBinary).deletingLastPathComponent().path
        process.environment = ["PATH": "\(bin):/usr/bin:/bin", "HOME": box.folder.path, "SWIFT_BACKTRACE": "enable=no", "SIGNUP_CONFIG": "/dev/null"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try! process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesSubcommandsOptionsPolicyNamesAndFilePaths() {
        let box = Sandbox()
        #expect(bashCompletions("signup l", in: box) == ["list"])
        #expect(Set(bashCompletions("signup create --pass", in: box)) == ["--password-file", "--password-fd"])
        #expect(bashCompletions("signup create --policy s", in: box) == ["standard", "strict"])
        #expect(bashCompletions("signup create --db acc", in: box) == ["accounts.sqlite"])
        #expect(bashCompletions("signup create --password-file acc", in: box) == ["accounts.sqlite"])
        #expect(bashCompletions("signup create --policy-file pol", in: box) == ["policy.json"])
        #expect(bashCompletions("signup list --db acc", in: box) == ["accounts.sqlite"])
        #expect(bashCompletions("signup verify --db acc", in: box) == ["accounts.sqlite"])
        // `signup --db D` is the default command: its options and their values complete without `create`.
        #expect(bashCompletions("signup --db acc", in: box) == ["accounts.sqlite"])
        #expect(Set(bashCompletions("signup --pass", in: box)) == ["--password-file", "--password-fd"])
        #expect(bashCompletions("signup --policy s", in: box) == ["standard", "strict"])
        #expect(bashCompletions("signup --db accounts.sqlite --dry", in: box) == ["--dry-run"])
        #expect(Set(bashCompletions("signup ", in: box)).isSuperset(of: ["create", "list", "verify", "--db", "--email"]))
    }

    @Test func zshAndFishCompleteFilePathsAndPolicyNames() {
        let box = Sandbox()
        let zsh = box.run(["--generate-completion-script", "zsh"]).stdout
        let fish = box.run(["--generate-completion-script", "fish"]).stdout
        for option in ["--db", "--password-file", "--policy-file"] {
            #expect(zsh.split(separator: "\n").contains { $0.contains("'\(option)[") && $0.hasSuffix(":_files'") })
            #expect(fish.split(separator: "\n").contains { $0.contains("-l '\(option.dropFirst(2))'") && $0.hasSuffix("-rF") })
        }
        // The default command's options at the top level too (the first function is `_signup`'s).
        let zshRoot = zsh.components(separatedBy: "_signup_create()").first ?? ""
        #expect(zshRoot.contains("'--db[") && zshRoot.contains("'--dry-run["), "top-level zsh completion lacks create's options")
        #expect(fish.split(separator: "\n").contains { $0.contains("flags_or_options \"signup\" db'") && $0.contains("-l 'db'") && $0.hasSuffix("-rF") },
                "top-level fish completion lacks create's options")
        #expect(zsh.contains("('standard' 'strict' 'nist')"))
        #expect(fish.contains("-l 'policy'") && fish.contains("'standard strict nist'"))
    }

    /// `list` pads its columns by characters and never cuts what it shows: Foundation's
    /// padding(toLength:) counted UTF-16 units and cut text from another program's rows
    /// (15 emoji are 30 units: the old padding kept 10 of them).
    @Test func listNeverCutsAColumn() {
        let box = Sandbox()
        box.run(["--db", box.db], input: lines(answers))
        let created = String(repeating: "\u{1F600}", count: 15)
        StorePathAndOutputTests().sqlite(box.db, "INSERT INTO account (email, email_key, password_hash, created_at) VALUES ('b@example.com', 'b@example.com', 'x', '\(created)');")
        let run = box.run(["list", "--db", box.db])
        #expect(run.status == 0)
        #expect(run.stdout.split(separator: "\n").last == "2        \(created)       active    b@example.com")
    }
}
