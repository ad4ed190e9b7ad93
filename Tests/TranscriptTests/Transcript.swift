import Foundation
import WizardTesting

/// One scenario file of `Transcripts/` (the format is described in `Transcripts/README.md`).
struct Transcript: Sendable {
    enum Step: Sendable, Equatable {
        /// Wait until the raw output (after the previous match) contains this text.
        case expect(String)
        /// Type these bytes.
        case send(String)
        /// The screen so far must not contain this text.
        case absent(String)
        /// The raw bytes so far must contain this text.
        case raw(String)
        /// Undo `immutable: yes` (chattr -i) now.
        case unlock
    }

    let name: String
    /// Arguments after `--db <scratch>/accounts.sqlite`.
    var arguments: [String] = []
    /// Variables set over `PseudoTerminal.environment()`; `nil` removes one (`unset:`).
    var environment: [String: String?] = [:]
    /// Accounts created (through the script protocol) before the run.
    var accounts: [String] = []
    var immutable = false
    var pipeStandardOutput = false
    /// `escapes: none`: the raw bytes hold no ESC at all (no colour, no cursor movement).
    var forbidsEscapes = false
    /// `stored: EMAIL …` or `stored: none`: every email in the database after the run, in order.
    var stored: [String]?
    /// `verify: EMAIL "PASSWORD"`: after the run, `signup verify` accepts that password for that email.
    var verifications: [(email: String, password: String)] = []
    var status: Int32 = 0
    /// Texts the raw pty bytes must never contain, besides the ones derived from password prompts.
    var declaredSecrets: [String] = []
    /// Another transcript whose screen this one must show too.
    var screenAs: String?
    var steps: [Step] = []
    /// The text before `--- screen`, kept as is when re-recording.
    var head: String = ""
    var screen: String?
    var standardOutput: String?

    /// Everything typed at a password prompt, in English or German (printable runs of 4 or more characters), the
    /// declared secrets and the password of pre-created accounts.
    var secrets: [String] {
        var found = declaredSecrets
        if !accounts.isEmpty { found.append(existingAccountPassword) }
        var lastExpected = ""
        for step in steps {
            switch step {
            case .expect(let text): lastExpected = text
            case .send(let text) where ["password", "passwort"].contains(where: lastExpected.lowercased().contains):  // English, German
                found += Self.printableRuns(text).filter { $0.count >= 4 }
            default: break
            }
        }
        return Array(Set(found)).sorted()
    }

    /// The printable stretches of typed text: control characters and escape sequences split it.
    static func printableRuns(_ text: String) -> [String] {
        var runs: [String] = [], current = ""
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            if scalar == "\u{1B}" {
                if !current.isEmpty { runs.append(current); current = "" }
                // Skip `ESC [ params final` or `ESC O x`.
                if let kind = scalars.next(), kind == "[" || kind == "O" {
                    while let next = scalars.next(), kind == "[" && !(0x40...0x7E).contains(next.value) {}
                }
            } else if scalar.value < 0x20 || scalar.value == 0x7F {
                if !current.isEmpty { runs.append(current); current = "" }
            } else {
                current.unicodeScalars.append(scalar)
            }
        }
        if !current.isEmpty { runs.append(current) }
        return runs
    }

    // MARK: - Reading

    struct SyntaxError: Error, CustomStringConvertible {
        let description: String
    }

    init(name: String, text: String) throws {
        self.name = name
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var section = "head"
        var head: [String] = [], screen: [String] = [], output: [String] = []
        for (number, line) in lines.enumerated() {
            if line == "--- screen" || line == "--- stdout" {
                section = String(line.dropFirst(4))
                continue
            }
            switch section {
            case "screen": screen.append(line); continue
            case "stdout": output.append(line); continue
            default: head.append(line)
            }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            do {
                try parse(trimmed)
            } catch let error as SyntaxError {
                throw SyntaxError(description: "\(name):\(number + 1): \(error.description)")
            }
        }
        self.head = head.joined(separator: "\n")
        self.screen = section == "head" && screen.isEmpty ? nil : Self.trimmedBlock(screen)
        self.standardOutput = output.isEmpty ? nil : Self.trimmedBlock(output)
        if screenAs != nil { self.screen = nil }
    }

    private static func trimmedBlock(_ lines: [String]) -> String {
        var lines = lines
        while lines.last == "" { lines.removeLast() }
        return lines.joined(separator: "\n")
    }

    private mutating func parse(_ line: String) throws {
        if let colon = line.firstIndex(of: ":"), !line.hasPrefix("expect ") && !line.hasPrefix("send ")
            && !line.hasPrefix("absent ") && !line.hasPrefix("raw ") {
            let key = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            let words = value.split(separator: " ").map(String.init)
            switch key {
            case "args": arguments += try Self.words(value)
            case "env":
                for word in words {
                    guard let equals = word.firstIndex(of: "=") else { throw SyntaxError(description: "env needs NAME=value") }
                    environment[String(word[..<equals])] = .some(String(word[word.index(after: equals)...]))
                }
            case "unset": for word in words { environment[word] = .some(nil) }
            case "account": accounts += words
            case "immutable": immutable = value == "yes"
            case "stdout": pipeStandardOutput = value == "pipe"
            case "escapes": forbidsEscapes = value == "none"
            case "stored": stored = value == "none" ? [] : words
            case "verify":
                let parts = try Self.words(value)
                guard parts.count == 2 else { throw SyntaxError(description: "verify needs an email and a quoted password") }
                verifications.append((parts[0], parts[1]))
                declaredSecrets.append(parts[1])
            case "status":
                guard let code = Int32(value) else { throw SyntaxError(description: "status needs a number") }
                status = code
            case "secret": declaredSecrets.append(try Self.decode(value))
            case "screen-as": screenAs = value
            default: throw SyntaxError(description: "unknown key \(key.debugDescription)")
            }
            return
        }
        let (keyword, rest) = line.firstIndex(of: " ").map { (String(line[..<$0]), String(line[line.index(after: $0)...])) }
            ?? (line, "")
        switch keyword {
        case "expect": steps.append(.expect(try Self.decode(rest)))
        case "send": steps.append(.send(try Self.decode(rest)))
        case "absent": steps.append(.absent(try Self.decode(rest)))
        case "raw": steps.append(.raw(try Self.decode(rest)))
        case "unlock": steps.append(.unlock)
        default: throw SyntaxError(description: "unknown step \(keyword.debugDescription)")
        }
    }

    /// Arguments separated by spaces; a quoted argument may hold spaces.
    private static func words(_ text: String) throws -> [String] {
        var words: [String] = [], rest = Substring(text)
        while let start = rest.firstIndex(where: { $0 != " " }) {
            rest = rest[start...]
            if rest.first == "\"" {
                guard let end = rest.dropFirst().firstIndex(of: "\"") else { throw SyntaxError(description: "unclosed quote") }
                words.append(try decode(String(rest[...end])))
                rest = rest[rest.index(after: end)...]
            } else {
                let end = rest.firstIndex(of: " ") ?? rest.endIndex
                words.append(String(rest[..<end]))
                rest = rest[end...]
            }
        }
        return words
    }

    /// Named keys for `<Name>` in quoted text.
    static let keys: [String: String] = [
        "Enter": "\r", "Tab": "\t", "Esc": "\u{1B}", "Backspace": "\u{7F}",
        "Left": "\u{1B}[D", "Right": "\u{1B}[C", "Up": "\u{1B}[A", "Down": "\u{1B}[B",
        "Home": "\u{1B}[H", "End": "\u{1B}[F", "Delete": "\u{1B}[3~",
    ]

    /// A quoted string with `\r \n \t \e \\ \" \< \xHH` escapes and `<Enter>`, `<Left>`, `<Ctrl-C>` keys.
    static func decode(_ quoted: String) throws -> String {
        guard quoted.count >= 2, quoted.hasPrefix("\""), quoted.hasSuffix("\"") else {
            throw SyntaxError(description: "expected a quoted string, found \(quoted.debugDescription)")
        }
        var out = ""
        var characters = Array(quoted.dropFirst().dropLast())[...]
        while let character = characters.popFirst() {
            switch character {
            case "\\":
                guard let escaped = characters.popFirst() else { throw SyntaxError(description: "a lone backslash") }
                switch escaped {
                case "r": out += "\r"
                case "n": out += "\n"
                case "t": out += "\t"
                case "e": out += "\u{1B}"
                case "x":
                    let hex = String(characters.prefix(2))
                    characters = characters.dropFirst(2)
                    guard hex.count == 2, let value = UInt8(hex, radix: 16) else { throw SyntaxError(description: "bad \\x escape") }
                    out.unicodeScalars.append(Unicode.Scalar(value))
                default: out.append(escaped)  // \\ \" \<
                }
            case "<":
                guard let close = characters.firstIndex(of: ">") else { throw SyntaxError(description: "unclosed <key>") }
                let name = String(characters[..<close])
                characters = characters[(close + 1)...]
                if let key = keys[name] {
                    out += key
                } else if name.hasPrefix("Ctrl-"), name.count == 6, let letter = name.last?.uppercased().unicodeScalars.first,
                          ("@"..."_").contains(letter) {
                    out.unicodeScalars.append(Unicode.Scalar(letter.value & 0x1F)!)
                } else {
                    throw SyntaxError(description: "unknown key <\(name)>")
                }
            default:
                out.append(character)
            }
        }
        return out
    }

    // MARK: - Writing

    /// The file with new expected sections, for `WIZARD_RECORD=1` (WizardTesting's variable).
    func recorded(screen: String, standardOutput: String?) -> String {
        var head = self.head
        while head.hasSuffix("\n") { head.removeLast() }
        var text = head + "\n"
        if screenAs == nil { text += "\n--- screen\n" + screen + "\n" }
        if let standardOutput, pipeStandardOutput { text += "--- stdout\n" + standardOutput + "\n" }
        return text
    }
}

/// Where transcripts are read: the bundle's copy, or the source tree (always when recording).
enum TranscriptFiles {
    static let sourceFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Transcripts")

    static var recording: Bool { TranscriptFile.recordingRequested }

    static var folder: URL {
        if !recording, let bundled = Bundle.module.url(forResource: "Transcripts", withExtension: nil),
           FileManager.default.fileExists(atPath: bundled.path) {
            return bundled
        }
        return sourceFolder
    }

    /// The scenario names (file names without `.transcript`), sorted.
    static var names: [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.filter { $0.hasSuffix(".transcript") }.map { String($0.dropLast(".transcript".count)) }.sorted()
    }

    static func url(_ name: String) -> URL { folder.appendingPathComponent(name + ".transcript") }

    static func load(_ name: String) throws -> Transcript {
        try Transcript(name: name, text: String(contentsOf: url(name), encoding: .utf8))
    }
}
