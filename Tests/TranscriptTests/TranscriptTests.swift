import Foundation
import Testing
import WizardTesting

/// The real binary in a pseudo-terminal, compared with the recorded transcripts in `Transcripts/`.
///
/// Each scenario runs in its own temporary folder (database and HOME), so they run in parallel.
/// `WIZARD_RECORD=1 swift test --filter TranscriptTests` rewrites the expected sections in the
/// source tree instead of comparing them.
@Suite struct TranscriptTests {
    /// How long one wait may take before the child is killed and the scenario fails.
    static let timeout = 10.0

    @Test(arguments: TranscriptFiles.names)
    func transcript(_ name: String) throws {
        let transcript = try TranscriptFiles.load(name)
        let scratch = try ScratchFolder()
        for email in transcript.accounts { try scratch.createAccount(email: email) }
        if transcript.immutable { try scratch.makeImmutable() }
        defer { scratch.makeMutable() }  // also on failure; ScratchFolder's deinit does it too

        var environment = transcript.environment
        environment["HOME"] = .some(scratch.path)
        let terminal = try PseudoTerminal(
            executable: signupBinary,
            arguments: ["--db", scratch.database] + transcript.arguments,
            environment: PseudoTerminal.environment(environment),
            pipeStandardOutput: transcript.pipeStandardOutput
        )
        let secrets = transcript.secrets
        defer {
            // Whatever happened, no password may have been echoed or printed.
            for secret in secrets {
                #expect(!terminal.transcript.containsBytes(secret.utf8), "the password \(secret.debugDescription) reached the terminal in \(name)")
                #expect(!terminal.standardOutput.containsBytes(secret.utf8), "the password \(secret.debugDescription) reached standard output in \(name)")
            }
        }

        for step in transcript.steps {
            switch step {
            case .expect(let text):
                try terminal.expect(text, timeout: Self.timeout)
            case .send(let text):
                try terminal.send(text)
            case .absent(let text):
                let screen = Screen.render(terminal.transcript)
                #expect(!screen.contains(text), "\(name): \(text.debugDescription) shown too early:\n\(screen)")
            case .raw(let text):
                #expect(terminal.transcript.containsBytes(text.utf8), "\(name): the raw output lacks \(text.debugDescription)")
            case .unlock:
                scratch.makeMutable()
            }
        }
        try terminal.readAll(timeout: Self.timeout)
        let termination = try terminal.wait(timeout: Self.timeout)

        // The scratch folder's name changes every run: it reads `$SCRATCH` in transcripts.
        let screen = Screen.render(terminal.transcript).replacingOccurrences(of: scratch.path, with: "$SCRATCH")
        let output = String(decoding: terminal.standardOutput, as: UTF8.self).trimmingCharacters(in: .newlines)
            .replacingOccurrences(of: scratch.path, with: "$SCRATCH")
        if transcript.forbidsEscapes {
            #expect(!terminal.transcript.contains(0x1B), "\(name): the raw output holds an escape sequence: \(visible(terminal.text()))")
        }
        #expect(termination == .exited(transcript.status), "\(name): \(termination), expected exited(\(transcript.status))\n\(screen)")

        scratch.makeMutable()  // `signup list` cannot open an immutable WAL database either
        if let stored = transcript.stored {
            #expect(try scratch.storedEmails() == stored, "\(name): the database holds other accounts")
        }

        for (email, password) in transcript.verifications {
            #expect(try scratch.verify(email: email, password: password), "\(name): the stored password of \(email) is not the one expected")
        }

        if TranscriptFiles.recording {
            let url = TranscriptFiles.sourceFolder.appendingPathComponent(name + ".transcript")
            try transcript.recorded(screen: screen, standardOutput: transcript.pipeStandardOutput ? output : nil)
                .write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let expected = try transcript.screenAs.map { try TranscriptFiles.load($0).screen ?? "" } ?? transcript.screen
        if let expected {
            if screen != expected {
                Issue.record("\(name): the screen differs (- expected, + actual):\n\(lineDiff(expected: expected, actual: screen))")
            }
        } else {
            Issue.record("\(name) has no --- screen section: run with WIZARD_RECORD=1 to record it")
        }
        if transcript.pipeStandardOutput {
            let expectedOutput = transcript.standardOutput ?? ""
            if output != expectedOutput {
                Issue.record("\(name): standard output differs (- expected, + actual):\n\(lineDiff(expected: expectedOutput, actual: output))")
            }
        }
    }

    /// Every file parses; every scenario that types at a password prompt has secrets to look
    /// for, and no recorded screen or output holds one (so a recording cannot bless a leak).
    @Test func passwordsNeverAppearInAnyTranscript() throws {
        let names = TranscriptFiles.names
        #expect(names.count >= 15)
        var withSecrets = 0
        for name in names {
            let transcript = try TranscriptFiles.load(name)
            let typesAPassword = transcript.steps.contains { if case .expect(let text) = $0 { text.lowercased().contains("password") } else { false } }
            if typesAPassword, !transcript.secrets.isEmpty { withSecrets += 1 }
            for secret in transcript.secrets {
                #expect(!(transcript.screen ?? "").contains(secret), "\(name): the recorded screen holds \(secret.debugDescription)")
                #expect(!(transcript.standardOutput ?? "").contains(secret), "\(name): the recorded output holds \(secret.debugDescription)")
            }
            if let other = transcript.screenAs {
                #expect(names.contains(other), "\(name): screen-as names a missing transcript \(other)")
            }
        }
        #expect(withSecrets >= 10, "too few scenarios type a password")
    }

    @Test func theScreenModelReplaysLibeditRedraws() {
        // xterm: Left Left then `x` redraws with ESC[8G; dumb: with \b and \r.
        #expect(Screen.render(Array("Email: al\u{8}\u{8}\r\u{1B}[8Gxal\u{8}\u{8}\r\n".utf8)) == "Email: xal")
        #expect(Screen.render(Array("Email: ab\u{8} \u{8}\r\nnext   \r\n\r\n".utf8)) == "Email: a\nnext")
        #expect(Screen.render(Array("\u{1B}[31m✗ Bad\u{1B}[0m\u{1B}]0;title\u{07}\r\n".utf8)) == "✗ Bad")
        #expect(Screen.render(Array("abcdef\r\u{1B}[3C\u{1B}[K\r\n".utf8)) == "abc")
        #expect(Screen.render(Array("Email: wrong\r\u{1B}[8G\u{1B}[Klice@x.com\r\u{1B}[8G\u{1B}[1@al\u{8}\r\n".utf8)) == "Email: alice@x.com")
        #expect(Screen.render(Array("jose\u{301}\r\n".utf8)) == "jose\u{301}")
        #expect(Transcript.printableRuns("Quartz\u{1B}[D\u{1B}[D-Lantern-58\r") == ["Quartz", "-Lantern-58"])
        #expect((try? Transcript.decode(#""a<Left><Ctrl-C>\r\x04\<""#)) == "a\u{1B}[D\u{3}\r\u{4}<")
    }
}

extension Array where Element == UInt8 {
    func containsBytes<S: Sequence>(_ needle: S) -> Bool where S.Element == UInt8 {
        let needle = Array<UInt8>(needle)
        guard !needle.isEmpty, count >= needle.count else { return needle.isEmpty }
        return (0...(count - needle.count)).contains { start in self[start..<(start + needle.count)].elementsEqual(needle) }
    }
}
