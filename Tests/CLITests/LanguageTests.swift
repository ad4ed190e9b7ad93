import Foundation
import Testing

/// The conversation in the reader's language through a pipe: German from po/de.po, English
/// for the C locale and for a language no catalog ships, and the parts scripts parse (the
/// `error: FIELD: ` prefix, `--json`, codes) the same in every language.
@Suite struct LanguageTests {
    /// German as gettext chooses it without a German locale installed: LANGUAGE with C.UTF-8.
    static let german = ["LANGUAGE": "de", "LC_ALL": "C.UTF-8"]
    static let invalid = "alice@\nabc\nabd\n"

    @Test func aGermanSignUpThroughAPipeShowsNoEnglishWordOfOurs() {
        let box = Sandbox()
        let refused = box.run(["--db", box.db], input: lines(Self.invalid), environment: Self.german, secrets: ["abc\n", "abd\n"])
        #expect(refused.status == 65)
        let created = box.run(["--db", box.db], input: lines(answers), environment: Self.german)
        #expect(created.status == 0)
        #expect(created.stdout == "Konto angelegt für alice@example.com\n")
        let dryRun = box.run(["--db", box.db, "--dry-run", "--email", "bob@example.com"], input: lines("\(goodPassword)\n\(goodPassword)\n"),
                             environment: Self.german)
        #expect(dryRun.stdout == "Probelauf: Das Konto für bob@example.com würde angelegt; nichts wurde gespeichert.\n")
        let transcript = [refused, created, dryRun].map { $0.stderr + $0.stdout }.joined()
        #expect(transcript.contains("Passwort bestätigen: "))
        #expect(transcript.contains("error: password: Verwenden Sie mindestens 8 Zeichen"))
        for line in transcript.split(separator: "\n") {
            let english = Catalogs.englishWords(in: String(line), answers: ["alice@", "alice@example.com", "bob@example.com"])
            #expect(english.isEmpty, "English in a German line: \(english) in \(line.debugDescription)")
        }
    }

    /// The German sign-ups at a terminal (TranscriptTests compares each recorded screen with what
    /// the binary showed in a pseudo-terminal): no line holds an English word of ours either.
    @Test func theGermanScreensAtATerminalShowNoEnglishWordOfOurs() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../TranscriptTests/Transcripts")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("german-") }
        #expect(names.count >= 2)
        for name in names {
            let file = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            let screen = try #require(file.components(separatedBy: "--- screen\n").last)
            #expect(screen.contains("Passwort"))
            for line in screen.split(separator: "\n") {
                let english = Catalogs.englishWords(in: String(line), answers: ["alice@example.com", "alice@"])
                #expect(english.isEmpty, "English in \(name): \(english) in \(line.debugDescription)")
            }
        }
    }

    /// libpq translates its own messages too, and a German libpq quotes with >>…<<, which the
    /// reason's filter of quoted values did not know: `sslmode=Hunter2Q` was shown. libpq stays English.
    @Test(arguments: ["sslmode=Hunter2Q", "target_session_attrs=Hunter2Q", "port=Hunter2Q"])
    func libpqsMessagesNeverQuoteAConnectionValueInGerman(parameter: String) {
        let box = Sandbox()
        let run = box.run(["list", "--db", "host=127.0.0.1 port=1 \(parameter)"], environment: Self.german)
        #expect(run.status == 74, "\(run.stderr)")
        #expect(!run.stderr.contains("Hunter2Q"), "\(run.stderr)")
        let fromEnvironment = box.run(["list"], environment: Self.german.merging(["SIGNUP_DB": "host=127.0.0.1 port=1 \(parameter)"]) { $1 })
        #expect(!fromEnvironment.stderr.contains("Hunter2Q"), "\(fromEnvironment.stderr)")
    }

    /// A German reader whose character locale is not UTF-8 gets the ASCII conversation, in English:
    /// `Ü` and `ß` went out as UTF-8, whose bytes 0x9C and 0x9F are C1 controls to an 8-bit terminal.
    @Test(arguments: [["LANG": "", "LC_CTYPE": "C", "LC_MESSAGES": "de_DE.UTF-8"], ["LANG": "de_DE.ISO-8859-1", "LANGUAGE": "de"]])
    func aLocaleThatIsNotUTF8GetsEnglishInASCII(environment: [String: String]) {
        let box = Sandbox()
        let help = box.run(["--help"], environment: environment)
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("OVERVIEW: Create an account"), "\(help.stdout.prefix(200))")
        #expect(help.stdout.utf8.allSatisfy { $0 < 0x80 })
        let refused = box.run(["--db", box.db], input: lines(Self.invalid), environment: environment)
        #expect(refused.status == 65)
        #expect((refused.stdout + refused.stderr).utf8.allSatisfy { $0 < 0x80 }, "\(refused.stderr)")
    }

    @Test func jsonCodesAndTheErrorPrefixAreTheSameInGerman() {
        let box = Sandbox()
        let english = box.run(["--db", box.db, "--json"], input: lines(Self.invalid), secrets: ["abc\n", "abd\n"])
        let german = box.run(["--db", box.db, "--json"], input: lines(Self.invalid), environment: Self.german, secrets: ["abc\n", "abd\n"])
        #expect(german.status == 65 && english.status == 65)
        #expect(german.stdout == english.stdout, "--json is for programs: the same in every language")
        #expect(german.stdout.contains(#"{"code":"password.tooShort","message":"Use at least 8 characters"}"#))
        let prefixes = { (run: Run) in run.stderr.split(separator: "\n").filter { $0.hasPrefix("error: ") }.map { $0.prefix(while: { $0 != ":" }) + ":" + $0.dropFirst(7).prefix(while: { $0 != ":" }) } }
        #expect(prefixes(german) == prefixes(english))
        #expect(prefixes(german).contains("error:email"))
        #expect(german.stderr.contains("error: confirm: Die Passwörter stimmen nicht überein"))
        let created = box.run(["--db", box.db, "--json"], input: lines(answers), environment: Self.german)
        #expect(created.stdout.hasPrefix(#"{"status":"created","email":"alice@example.com","id":1,"strength":"#))
        #expect(!created.stdout.contains("ausreichend") && !created.stdout.contains("stark"))
    }

    @Test(arguments: [
        ["LANG": "C", "LANGUAGE": "de"],                    // the C locale: gettext ignores LANGUAGE
        ["LC_ALL": "C", "LANG": "de_DE.UTF-8"],             // LC_ALL wins over LANG
        ["LANGUAGE": "xx", "LC_ALL": "C.UTF-8"],            // a language no catalog ships
        ["LANG": "xx_YY.UTF-8"],                            // a locale that is not installed
    ])
    func theCLocaleAndAnUnknownLanguageShowEnglish(_ environment: [String: String]) {
        let box = Sandbox()
        let english = box.run(["--db", box.db], input: lines(Self.invalid), environment: ["LANG": "C"], secrets: ["abc\n", "abd\n"])
        let run = box.run(["--db", box.db], input: lines(Self.invalid), environment: environment, secrets: ["abc\n", "abd\n"])
        #expect(run.status == 65)
        #expect(run.stderr == english.stderr)
        #expect(run.stderr.hasPrefix("Create your account (Ctrl-C to cancel)\nEmail: alice@\n"))
    }

    /// With the locale installed (scripts/test makes de_DE.UTF-8), LANG alone chooses German, as people set it.
    @Test(.enabled(if: Catalogs.localeInstalled("de_DE.utf8"))) func langAloneChoosesGermanWhenItsLocaleIsInstalled() {
        let box = Sandbox()
        let run = box.run(["--db", box.db], input: lines(answers), environment: ["LANG": "de_DE.UTF-8"])
        #expect(run.status == 0)
        #expect(run.stderr.hasPrefix("Legen Sie Ihr Konto an (Strg-C bricht ab)\nE-Mail: alice@example.com\nPasswort: \n"))
        #expect(run.stdout == "Konto angelegt für alice@example.com\n")
    }

    /// glibc joins LANGUAGE's entries to the catalog folder as they are: `../…` read a catalog
    /// planted anywhere, and an SSH client may send the variable. Only language names are used.
    @Test func languageCannotNameACatalogOutsideTheProgramsFolder() throws {
        let box = Sandbox()
        let planted = box.folder.appendingPathComponent("evil/LC_MESSAGES")
        try FileManager.default.createDirectory(at: planted, withIntermediateDirectories: true)
        let po = box.file("evil.po", lines("msgid \"\"\nmsgstr \"Content-Type: text/plain; charset=UTF-8\\n\"\n\nmsgid \"Email\"\nmsgstr \"Planted\"\n"))
        let msgfmt = try Process.run(URL(fileURLWithPath: "/usr/bin/msgfmt"), arguments: ["-o", planted.appendingPathComponent("signup.mo").path, po])
        msgfmt.waitUntilExit()
        let escape = String(repeating: "../", count: 40) + box.folder.appendingPathComponent("evil").path.dropFirst()
        for language in [escape, "de:" + escape, escape + ":de"] {
            let run = box.run(["--db", box.db], input: lines("a@example.com\n"), environment: ["LANGUAGE": language, "LC_ALL": "C.UTF-8"])
            #expect(!run.stderr.contains("Planted"), "\(run.stderr)")
            #expect(run.stderr.contains(language.hasPrefix("de") || language.hasSuffix("de") ? "E-Mail: a@example.com" : "Email: a@example.com"))
        }
    }

    @Test func verifySaysItsResultInGerman() {
        let box = Sandbox()
        #expect(box.run(["--db", box.db, "--quiet"], input: lines(answers)).status == 0)
        let matches = box.run(["verify", "alice@example.com", "--db", box.db], input: lines(goodPassword + "\n"), environment: Self.german)
        #expect(matches.status == 0 && matches.stderr == "Das Passwort stimmt.\n")
        let differs = box.run(["verify", "alice@example.com", "--db", box.db], input: lines("Quartz-Lantern-59\n"), environment: Self.german,
                              secrets: ["Quartz-Lantern-59"])
        #expect(differs.status == 1 && differs.stderr == "Das Passwort stimmt nicht.\n")
    }

    @Test func aPolicyFilesMessageWinsOverTheCatalog() {
        let box = Sandbox()
        let policy = box.file("policy.json", lines(#"{"messages": {"password.needsDigit": "Mit Zahl, bitte (Hausregel)"}}"#))
        let run = box.run(["--db", box.db, "--policy-file", policy], input: lines("a@example.com\nabcdefghij\nabcdefghij\n"),
                          environment: Self.german, secrets: ["abcdefghij"])
        #expect(run.status == 65)
        #expect(run.stderr.contains("error: password: Mit Zahl, bitte (Hausregel)\n"))
        #expect(run.stderr.contains("error: password: Fügen Sie einen Großbuchstaben hinzu\n"))
    }
}

/// The English catalog (po/signup.pot) and the German one, read as a translator's tools would.
enum Catalogs {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../po")

    /// The words (two letters or more) of the English texts that no German text uses.
    static let englishOnly: Set<String> = {
        let template = (try? String(contentsOf: folder.appendingPathComponent("signup.pot"), encoding: .utf8)) ?? ""
        let german = (try? String(contentsOf: folder.appendingPathComponent("de.po"), encoding: .utf8)) ?? ""
        let english = words(of: entries(template, "msgid"))
        precondition(english.count > 100, "po/signup.pot has no texts")
        return english.subtracting(words(of: entries(german, "msgstr")))
    }()

    /// The English-only words in `line`, after the parts that are not ours: answers echoed, and
    /// the `error: FIELD: ` prefix of the script protocol.
    static func englishWords(in line: String, answers: [String]) -> [String] {
        var text = line
        if let match = text.firstMatch(of: #/^error: [a-z]+: /#) { text.removeSubrange(match.range) }
        for answer in answers.sorted(by: { $0.count > $1.count }) { text = text.replacingOccurrences(of: answer, with: " ") }
        return words(of: [text]).filter(englishOnly.contains).sorted()
    }

    private static func entries(_ catalog: String, _ keyword: String) -> [String] {
        catalog.split(separator: "\n").compactMap { line in
            guard line.hasPrefix(keyword + " \"") else { return nil }
            return String(line.dropFirst(keyword.count + 2).dropLast())
        }
    }

    private static func words(of texts: [String]) -> Set<String> {
        Set(texts.flatMap { text in
            text.split(whereSeparator: { !$0.isLetter }).map { $0.lowercased() }.filter { $0.count >= 2 }
        })
    }

    static func localeInstalled(_ name: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/locale")
        process.arguments = ["-a"]
        let output = Pipe()
        process.standardOutput = output
        guard (try? process.run()) != nil else { return false }
        let names = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return names.split(separator: "\n").contains { $0.lowercased() == name.lowercased() }
    }
}

/// The help and the usage errors in the reader's language: the commands' texts from the catalog,
/// and swift-argument-parser's own words (its headers, `Show help information.`, `Usage:`)
/// replaced where the program prints them. Option names, command names, environment variables,
/// paths and the example command lines stay as they are: they are what is typed.
extension LanguageTests {
    static let commands = ["create", "list", "verify", "passwd", "reset", "disable", "enable", "delete", "import"]

    /// Words of ours and of the parser that a German help must not show (whole words, any case).
    static let englishWords: Set<String> = [
        "overview", "usage", "options", "arguments", "subcommands", "subcommand", "show", "information",
        "account", "accounts", "database", "password", "passwords", "exit", "codes", "examples", "environment",
        "files", "default", "values", "see", "detailed", "address", "seconds", "path", "file", "email", "answer",
        "answers", "read", "print", "check", "store", "nothing", "input", "output", "the", "and", "or", "of",
        "for", "with", "from", "is", "not", "never", "only",
    ]

    /// The words of `text` that are English words of `englishWords`, after what stays in every language:
    /// option names (`--db`, `-wal`), paths and variables (`$HOME/x`, `~/.pgpass`, `SIGNUP_DB`),
    /// quoted syntax (`"email"`, `'active'`, `email,password`), and the example command lines.
    static func englishWords(inHelp text: String) -> [String] {
        var found: [String] = []
        for line in text.split(separator: "\n") {
            var rest = Substring(line)
            // An example: the command line as typed, then (after two spaces or more) what it does.
            if rest.hasPrefix("  signup") {
                guard let gap = rest.dropFirst(2).range(of: "   ") else { continue }
                rest = rest[gap.upperBound...]
            }
            for token in rest.split(separator: " ") {
                if token.contains(where: { "-/$~_@\"'=".contains($0) }) || token.dropLast().contains(",") { continue }
                if token.count > 1, token.allSatisfy({ $0.isUppercase || $0.isNumber || !$0.isLetter }) { continue }  // SQLite's WAL, CSV, NUL
                for word in token.split(whereSeparator: { !$0.isLetter }) where englishWords.contains(word.lowercased()) {
                    found.append(String(word))
                }
            }
        }
        return found
    }

    @Test(arguments: [[String]()] + commands.map { [$0] })
    func germanHelpShowsNoEnglishWordOfOursButTheOptionsAsTheyAre(_ command: [String]) {
        let box = Sandbox()
        let asked = box.run(command + ["--help"], environment: Self.german)
        let helped = box.run(["help"] + command, environment: Self.german)
        #expect(asked.status == 0 && helped.status == 0)
        #expect(asked.stdout == helped.stdout, "signup help COMMAND and signup COMMAND --help say the same")
        let help = asked.stdout
        for english in ["OVERVIEW", "USAGE", "OPTIONS", "ARGUMENTS", "SUBCOMMANDS", "Show help", "Show the version", "See '",
                        "Exit codes", "Examples", "Environment", "Files:", "(default", "(values", "<path>", "<address>", "<options>",
                        "<subcommand>", "<seconds>", "<state>", "<file>", "<email>", "Create an account", "database"] {
            #expect(!help.contains(english), "\(english) in the German help of signup \(command)")
        }
        let english = Self.englishWords(inHelp: help)
        #expect(english.isEmpty, "English in the German help of signup \(command): \(english)\n\(help)")
        // The parser's headers, in German, and what is typed stays as it is.
        #expect(help.hasPrefix("ÜBERSICHT: "))
        #expect(help.contains("\nAUFRUF: signup ") && help.contains("\nOPTIONEN:\n"))
        #expect(help.contains("  -h, --help              Hilfe anzeigen.\n"))
        let englishHelp = box.run(command + ["--help"], environment: ["LANG": "C"]).stdout
        let options = englishHelp.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  -") else { return nil }
            return line.dropFirst(2).prefix { $0 != " " && $0 != "," }.description
        }
        #expect(options.count >= 3)
        for option in options { #expect(help.contains(option), "\(option) missing from the German help of signup \(command)") }
        switch command.first {
        case nil:
            #expect(help.contains("\nAUFRUF: signup [create] <optionen>\n"))
            #expect(help.contains("\nBEFEHLE:\n  create (Vorgabe)        Ein Konto anlegen"))
            #expect(help.contains("\nBeispiele:\n  signup                          an diesem Terminal fragen\n"))
            #expect(help.contains("\n  signup --db ./accounts.sqlite < answers.txt\n"))
            #expect(help.contains("\n  signup verify a@example.com < pw.txt\n"))
            #expect(help.contains("\n  Ausführliche Hilfe zu einem Befehl: 'signup help <befehl>'."))
        case "list":
            #expect(help.contains("--state <zustand>") && help.contains("(Werte: active, disabled, pending)"))
            // The default policy is said in the option's own text (an option without a parser
            // default: naming it beside --policy-file is refused), in German too.
            #expect(help.split(whereSeparator: \.isWhitespace).joined(separator: " ").contains("(Vorgabe: die Regeln aus signup.conf, sonst standard)"))
        case "verify", "passwd", "disable", "enable", "delete":
            #expect(help.contains("\nARGUMENTE:\n  <e-mail>  "))
        default:
            break
        }
    }

    /// `signup help help`: the parser's own command, its abstract and placeholder in German too.
    @Test func germanHelpOfHelpItself() {
        let run = Sandbox().run(["help", "help"], environment: Self.german)
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("ÜBERSICHT: Hilfe zu einem Befehl anzeigen.\n\nAUFRUF: signup help [<befehle> ...]\n"), "\(run.stdout)")
        #expect(Self.englishWords(inHelp: run.stdout).isEmpty && !run.stdout.contains("<subcommands>"), "\(run.stdout)")
    }

    /// The C locale and a language without a catalog show the parser's English help, as before.
    @Test(arguments: [[String]()] + commands.map { [$0] })
    func englishHelpIsTheParsersUnderTheCLocale(_ command: [String]) {
        let box = Sandbox()
        let english = box.run(command + ["--help"], environment: ["LANG": "C"])
        #expect(english.status == 0)
        for environment in [["LANG": "C", "LANGUAGE": "de"], ["LANGUAGE": "xx", "LC_ALL": "C.UTF-8"], ["LC_ALL": "C", "LANG": "de_DE.UTF-8"]] {
            #expect(box.run(command + ["--help"], environment: environment).stdout == english.stdout, "\(environment)")
        }
        #expect(english.stdout.hasPrefix("OVERVIEW: "))
        #expect(english.stdout.contains("\nUSAGE: signup ") && english.stdout.contains("\nOPTIONS:\n"))
        #expect(english.stdout.contains("  -h, --help              Show help information.\n"))
        #expect(command == ["create"] || english.stdout.contains("Exit codes: 0 "))
        if command.isEmpty {
            #expect(english.stdout.contains("\nSUBCOMMANDS:\n  create (default)        Create an account (the default command).\n"))
            #expect(english.stdout.hasSuffix("\n  See 'signup help <subcommand>' for detailed help.\n"))
        }
    }

    /// A German usage error says what is wrong in German, with the usage lines, and never repeats
    /// what was typed (it may be a password in the wrong place).
    @Test(arguments: [
        (["--Hunter2-Secret-77"], "error: Unbekannte Option (nicht gezeigt: sie kann ein Geheimnis sein)\nAufruf: signup create <optionen>\n  Mehr dazu: 'signup create --help'.\n"),
        (["-pHunter2-Secret-77"], "error: Passwörter werden nie auf der Befehlszeile angenommen, und diese Option ist keine von signup.\n"),
        (["list", "--db"], "error: Der Wert für --db <pfad> fehlt\nAufruf: signup list [--db <pfad>] [--json] [--state <zustand>] [--count-old-hashes] [--policy <name>] [--policy-file <pfad>] [--config <pfad>]\n  Mehr dazu: 'signup list --help'.\n"),
        (["list", "Hunter2-Secret-77"], "error: Unerwartetes Argument (nicht gezeigt: es kann ein Geheimnis sein)\nAufruf: signup list "),
        (["--json=Hunter2-Secret-77"], "error: --json nimmt keinen Wert (der Wert wird nicht gezeigt: er kann ein Geheimnis sein)\n"),
        (["verify"], "error: <e-mail> fehlt\nAufruf: signup verify <e-mail> "),
        (["Hunter2-Secret-77", "--json"], "error: Unerwartetes Argument (nicht gezeigt: es kann ein Geheimnis sein)\nDas erste Wort nennt keinen Befehl von signup.\n"
            + "Befehle: create, list, verify, passwd, reset, disable, enable, delete, import, export, backup, restore, config (signup help BEFEHL zu einem).\nAufruf: signup create <optionen>\n"),
        (["help", "Hunter2-Secret-77"], "error: signup help nimmt den Namen eines Befehls (das angegebene Wort wird nicht gezeigt: es kann ein Geheimnis sein).\nBefehle: "),
        (["--policy", "Hunter2-Secret-77"], "error: unbekannter Name für --policy: verwenden Sie standard, strict oder nist, oder --policy-file\n"),
        (["--password-file", "/nonexistent/Hunter2-Secret-77"], "error: die Datei von --password-file kann nicht geöffnet werden: "),
    ])
    func aGermanUsageErrorNeverRepeatsTheWord(_ arguments: [String], _ start: String) {
        let box = Sandbox()
        let run = box.run(arguments, input: lines(answers), environment: Self.german, secrets: ["Hunter2-Secret-77", "Hunter2"])
        #expect(run.status == 64)
        #expect(run.stdout == "")
        #expect(run.stderr.hasPrefix(start), "\(run.stderr)")
        for english in ["Unknown", "Unexpected", "Missing", "Usage", "See '", "for more information", "not shown", "secret", "Commands:", "names no command"] {
            #expect(!run.stderr.contains(english), "\(english) in \(run.stderr)")
        }
        // The same error in English is the one the tests of HostileInputTests know, and repeats nothing either.
        let english = box.run(arguments, input: lines(answers), environment: ["LANG": "C"], secrets: ["Hunter2-Secret-77", "Hunter2"])
        #expect(english.status == 64 && english.stderr.hasPrefix("error: ") && english.stderr != run.stderr)
    }

    /// The table is for people: its headers and states in German. `--state` takes and `--json`
    /// says the English names, which programs read.
    @Test func listsHeadersAndStatesAreGermanAndItsJSONIsNot() {
        let box = Sandbox()
        #expect(box.run(["--db", box.db, "--quiet"], input: lines(answers)).status == 0)
        #expect(box.run(["--db", box.db, "--quiet", "--email", "bob@example.com"], input: lines("\(goodPassword)\n\(goodPassword)\n")).status == 0)
        #expect(box.run(["disable", "bob@example.com", "--db", box.db]).status == 0)
        let german = box.run(["list", "--db", box.db], environment: Self.german)
        #expect(german.status == 0)
        #expect(german.stdout.hasPrefix("ID       ANGELEGT              ZUSTAND   E-MAIL\n1        "), "\(german.stdout)")
        #expect(german.stdout.contains("  aktiv     alice@example.com\n"), "\(german.stdout)")
        #expect(german.stdout.hasSuffix("  gesperrt  bob@example.com\n"), "\(german.stdout)")
        #expect(!german.stdout.contains("active") && !german.stdout.contains("disabled"))
        let disabled = box.run(["list", "--db", box.db, "--state", "disabled"], environment: Self.german)
        #expect(disabled.status == 0 && disabled.stdout.hasSuffix("  gesperrt  bob@example.com\n") && !disabled.stdout.contains("alice"))
        let english = box.run(["list", "--db", box.db], environment: ["LANG": "C"])
        #expect(english.stdout.hasPrefix("ID       CREATED               STATE     EMAIL\n"))
        #expect(english.stdout.contains("  active    alice@example.com\n") && english.stdout.hasSuffix("  disabled  bob@example.com\n"))
        let json = box.run(["list", "--db", box.db, "--json"], environment: Self.german).stdout
        #expect(json == box.run(["list", "--db", box.db, "--json"]).stdout)
        #expect(json.contains(#""state":"active""#) && json.contains(#""state":"disabled""#) && !json.contains("aktiv"))
    }
}
