import Foundation
import Testing
import WizardTesting

/// `Examples/QuickStart`: the first program a library user copies is short, needs one import,
/// and runs its form through pipes and at a terminal.
@Suite struct QuickStartTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The `wizard-quickstart` binary, beside `wizard-example`.
    static let binary = URL(fileURLWithPath: exampleBinary).deletingLastPathComponent().appendingPathComponent("wizard-quickstart").path

    @Test func itsMainIsShortWithOneImport() throws {
        let source = try String(contentsOf: Self.root.appendingPathComponent("Examples/QuickStart/main.swift"), encoding: .utf8)
        let code = source.split(separator: "\n").filter { !$0.hasPrefix("//") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        #expect(code.filter { $0.hasPrefix("import ") } == ["import WizardTerminal"])
        #expect(code.count <= 10, "\(code.count) lines of code")
    }

    /// A test finds an executable target of its package as WizardTesting documents it: built
    /// beside the test binary, by its executable's name; a name not built there throws.
    @Test func aTestFindsTheBuiltExecutableByName() throws {
        #expect(try PseudoTerminal.builtExecutable("wizard-quickstart") == Self.binary)
        #expect(throws: PseudoTerminal.Failure.self) { try PseudoTerminal.builtExecutable("wizard_quickstart") }
    }

    @Test func aScriptHearsItsErrors() throws {
        let run = try ExampleScriptTests.run("Ann\n7\n", binary: Self.binary)
        #expect(run.status == 65)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasSuffix("error: age: Enter a value from 13 to 120\n"), "\(run.stderr)")
        let welcome = try ExampleScriptTests.run("Ann\n42\n", binary: Self.binary)
        #expect(welcome.status == 0 && welcome.stdout == "Welcome, Ann, 42\n", "\(welcome.stderr)")
    }

    @Test func aPersonAtATerminalIsWelcomed() async throws {
        let terminal = try PseudoTerminal(executable: Self.binary, arguments: [], pipeStandardOutput: true)
        defer { terminal.kill(SIGKILL) }
        try await terminal.expect("Name: ", timeout: 30)
        try terminal.send("Ann\r")
        try await terminal.expect("Age: ")
        try terminal.send("42\r")
        try await terminal.expect("Submit? [Y/n/e] ")
        try terminal.send("y\r")
        #expect(try await terminal.wait() == .exited(0))
        try await terminal.readAll()
        #expect(String(decoding: terminal.standardOutput, as: UTF8.self) == "Welcome, Ann, 42\n")
    }
}
