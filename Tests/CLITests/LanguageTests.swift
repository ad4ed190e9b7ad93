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
