import Foundation
@testable import SignupCommand
import Testing

/// One list of exit codes and JSON statuses (`ExitStatus`): `--help` of the commands (which
/// `signup(1)` is made from) and docs/usage.md name every one, so a new code cannot be left out
/// of what a script's author reads.
@Suite struct ExitStatusTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The codes a text's "Exit codes:" paragraphs name.
    static func codes(inHelp text: String) -> Set<Int32> {
        let paragraphs = text.components(separatedBy: "Exit codes:").dropFirst().map { $0.components(separatedBy: ".\n")[0] }
        return Set(paragraphs.flatMap { $0.matches(of: /(?:^|[\s,(])(\d{1,3})(?= )/).compactMap { Int32($0.output.1) } })
    }

    @Test func theHelpOfTheCommandsNamesEveryExitCode() {
        let box = Sandbox()
        var named: Set<Int32> = []
        for command in [[], ["list"], ["verify"], ["passwd"], ["reset"], ["disable"], ["enable"], ["delete"], ["import"], ["config"]] {
            let help = box.run(command + ["--help"], environment: ["LANGUAGE": "", "LC_ALL": "C.UTF-8", "COLUMNS": "2000"])
            #expect(help.status == 0, "\(command)")
            named.formUnion(Self.codes(inHelp: help.stdout.replacingOccurrences(of: "\n  ", with: " ")))
        }
        #expect(Set(ExitStatus.all).subtracting(named).sorted() == [])
    }

    @Test func theUsageDocumentListsEveryExitCodeAndJSONStatus() throws {
        let usage = try String(contentsOf: Self.root.appendingPathComponent("docs/usage.md"), encoding: .utf8)
        let table = try #require(usage.components(separatedBy: "## Exit codes").dropFirst().first?.components(separatedBy: "\n## ").first)
        let rows = Set(table.matches(of: /\n\| (\d+) \|/).compactMap { Int32($0.output.1) })
        #expect(Set(ExitStatus.all).subtracting(rows).sorted() == [])
        for status in ExitStatus.jsonStatuses {
            #expect(table.contains("`\(status)`"), "\(status)")
        }
    }
}
