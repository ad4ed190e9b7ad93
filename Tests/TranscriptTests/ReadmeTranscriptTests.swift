import Foundation
import Testing
import WizardTesting

/// The README's sign-up is what the program shows: its block, run in a pseudo-terminal.
@Suite struct ReadmeTranscriptTests {
    /// The password typed in the README's sign-up (never shown, so not in the block).
    static let password = "Quartz-Lantern-58"

    /// The first fenced block after the heading `## A sign-up` in README.md, its lines.
    static func readmeBlock() throws -> [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let lines = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8).components(separatedBy: "\n")
        let heading = try #require(lines.firstIndex(of: "## A sign-up"), "README.md has no '## A sign-up' heading")
        let open = try #require(lines[heading...].firstIndex { $0.hasPrefix("```") })
        let close = try #require(lines[(open + 1)...].firstIndex(of: "```"))
        return Array(lines[(open + 1)..<close])
    }

    @Test func theReadmesSignUpIsWhatTheProgramShows() throws {
        let block = try Self.readmeBlock()
        #expect(block.first == "$ signup", "the block starts with the command a newcomer types")
        let expected = block.dropFirst().joined(separator: "\n")
        let emailLine = try #require(block.first { $0.hasPrefix("Email: ") })
        let email = String(emailLine.dropFirst("Email: ".count))

        let scratch = try ScratchFolder()
        let terminal = try PseudoTerminal(executable: signupBinary, arguments: ["--db", scratch.database],
                                          environment: PseudoTerminal.environment(["HOME": .some(scratch.path)]))
        try terminal.expect("Email: ", timeout: 10)
        try terminal.send(email + "\r")
        try terminal.expect("Password: ", timeout: 10)
        try terminal.send(Self.password + "\r")
        try terminal.expect("Confirm password: ", timeout: 10)
        try terminal.send(Self.password + "\r")
        try terminal.expect("Create account? [Y/n/e] ", timeout: 10)
        try terminal.send("\r")
        try terminal.readAll(timeout: 10)
        #expect(try terminal.wait(timeout: 10) == .exited(0))
        #expect(!terminal.transcript.containsBytes(Self.password.utf8))

        let screen = Screen.render(terminal.transcript)
        if screen != expected {
            Issue.record("README.md's sign-up differs from the program's (- README, + program):\n\(lineDiff(expected: expected, actual: screen))")
        }
        #expect(try scratch.storedEmails() == [email])
    }
}
