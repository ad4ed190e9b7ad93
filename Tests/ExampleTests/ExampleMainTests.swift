import Foundation
import Testing

/// `Examples/WizardExample/main.swift`, the code a library user copies first: short, one import,
/// the one call and the result line; the form and the options live beside it.
@Suite struct ExampleMainTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Examples/WizardExample").standardizedFileURL

    /// The lines of main.swift that are code: no comment, no blank line.
    static func code() throws -> [Substring] {
        let source = try String(contentsOf: folder.appendingPathComponent("main.swift"), encoding: .utf8)
        return source.split(separator: "\n").filter { !$0.hasPrefix("//") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }

    @Test func itsMainIsTheOneCallWithOneImport() throws {
        let code = try Self.code()
        #expect(code.filter { $0.hasPrefix("import ") } == ["import WizardTerminal"])
        #expect(code.count <= 5, "\(code.count) lines of code")
        #expect(code.contains { $0.contains(".runOrExit(") } && code.contains { $0.hasPrefix("printOrExit(") }, "\(code)")
    }

    /// The README shows main.swift as it is.
    @Test func theReadmeQuotesMainAsItIs() throws {
        let readme = try String(contentsOf: Self.folder.appendingPathComponent("README.md"), encoding: .utf8)
        let block = try #require(readme.components(separatedBy: "```swift\n").dropFirst().first?.components(separatedBy: "```").first)
        let quoted = block.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        #expect(quoted == (try Self.code()))
    }
}
