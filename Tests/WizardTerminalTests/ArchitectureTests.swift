import Foundation
import Testing

/// The claims the code's comments and CONTRIBUTING.md make about who may do what, checked
/// against the sources: a claim that stops being true fails here instead of misleading a reader.
@Suite struct ArchitectureTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    /// Every Swift file under Sources, as (path from Sources, lines without their `//` comments).
    static let files: [(path: String, lines: [String])] = {
        let enumerator = FileManager.default.enumerator(atPath: sources.path)
        var files: [(String, [String])] = []
        while let path = enumerator?.nextObject() as? String {
            guard path.hasSuffix(".swift"), let text = try? String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8) else {
                continue
            }
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
                let code = line.range(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
                return String(code)
            }
            files.append((path, lines))
        }
        return files.sorted { $0.0 < $1.0 }
    }()

    /// The places outside `allowed` (path prefixes) whose code matches `pattern`.
    static func uses(_ pattern: String, outside allowed: [String]) throws -> [String] {
        let regex = try Regex(pattern)
        return files.filter { file in !allowed.contains { file.path.hasPrefix($0) } }.flatMap { file in
            file.lines.enumerated().filter { $0.element.contains(regex) }.map { "\(file.path):\($0.offset + 1)" }
        }
    }

    @Test func theSourcesAreFound() {
        #expect(Self.files.count > 50)
    }

    @Test("only WizardTerminal changes signal dispositions or terminal modes (a thread may still block signals for itself)")
    func onlyTheTerminalLibraryTouchesSignalsAndModes() throws {
        #expect(try Self.uses(#"(^|[^.\w])(signal\(SIG|sigaction\(|tcsetattr\(|cfmakeraw\()"#, outside: ["WizardTerminal/"]) == [])
    }

    @Test("the libraries never end the process, and the command ends it only in its entry point")
    func onlyTheEntryPointEndsTheProcess() throws {
        let ending = #"(^|[^.\w])(exit|_exit|abort)\("#
        let libraries = try Self.uses(ending, outside: ["WizardTerminal/", "WizardTesting/", "SignupCommand/", "signup", "signup-bench/"])
        #expect(libraries == [])
        let command = try Self.uses(ending, outside: ["WizardTerminal/", "WizardTesting/", "SignupCore/", "PasswordStrength/", "AccountStore/",
                                                      "SignupCommand/Signup.swift", "signup-bench/"])
        #expect(command == [])
    }

    @Test("each C library is called from its one file", arguments: [
        (#"\bsqlite3_"#, "AccountStore/SQLite/SQLite.swift"),
        (#"\bPQ[a-z]+\("#, "AccountStore/PostgreSQL/Libpq.swift"),
        (#"\butf8proc_"#, "SignupCore/UnicodeText.swift"),
        (#"\bidn2_|signup_idn2_"#, "SignupCore/IDNA.swift"),
        (#"\bargon2(id)?_|\bcsodium_"#, "AccountStore/Hashing/"),
        (#"\bZxcvbn[A-Z]"#, "PasswordStrength/"),
    ])
    func oneDoorForEachCLibrary(pattern: String, door: String) throws {
        // signup-bench measures each hashing library's raw hash side by side: a benchmark, not a door.
        #expect(try Self.uses(pattern, outside: [door, "signup-bench/"]) == [], "\(pattern)")
    }

    @Test("no code cites a document that is not in the repository")
    func noCitationOfOutsideDocuments() {
        let cited = Self.files.filter { file in
            (try? String(contentsOf: Self.sources.appendingPathComponent(file.path), encoding: .utf8))?.contains(/SPEC [0-9]/) == true
        }
        #expect(cited.map(\.path) == [])
    }

    @Test("no function of the command is longer than 60 lines")
    func theCommandsFunctionsAreShort() throws {
        let declaration = try Regex(#"(^|\s)(func\s|init[?(<]|deinit\s)"#)
        let string = try Regex(#""([^"\\]|\\.)*""#)
        var long: [String] = []
        for file in Self.files where file.path.hasPrefix("SignupCommand/") || file.path.hasPrefix("signup/") {
            // Each line's code without its strings, whose braces are not the code's.
            let lines = file.lines.map { $0.replacing(string, with: "\"\"") }
            var index = 0
            while index < lines.count {
                defer { index += 1 }
                guard lines[index].contains(declaration) else { continue }
                // The body: from the line of its first brace to the line that closes it.
                var depth = 0, opened = false, end = index
                while end < lines.count {
                    for character in lines[end] {
                        if character == "{" { depth += 1; opened = true } else if character == "}" { depth -= 1 }
                    }
                    if opened && depth <= 0 { break }
                    if !opened && end > index + 8 { break }  // a requirement or a declaration without a body
                    end += 1
                }
                if opened && end - index + 1 > 60 { long.append("\(file.path):\(index + 1) (\(end - index + 1) lines)") }
            }
        }
        #expect(long == [])
    }
}
