import Foundation
import Testing

/// The articles' blocks on values beyond one line and `@Validated`, linked against the built
/// SignupCore and run: each `print` prints what its comment says (the comment up to a `: `
/// that explains it), so an article cannot promise an output the library does not give.
@Suite struct ValuesSnippetRunTests {
    /// The block of `article` that contains `marker`.
    static func block(of article: String, containing marker: String) throws -> String {
        try #require(try GettingStartedSnippetTests.blocks(of: article).first { $0.contains(marker) })
    }

    /// What each `print(…)  // said` of `source` promises, in order.
    static func promised(_ source: String) -> [String] {
        source.components(separatedBy: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("print(") }.compactMap { line in
            guard let comment = line.range(of: "// ") else { return nil }
            let said = String(line[comment.upperBound...])
            return said.range(of: ": ").map { String(said[..<$0.lowerBound]) } ?? said
        }
    }

    /// Builds `source` as `main.swift` with the built SignupCore's objects and runs it; its output's lines.
    static func run(_ source: String) throws -> [String] {
        let built = URL(fileURLWithPath: exampleBinary).deletingLastPathComponent()
        let objects = try ["SignupCore.build", "CIdn2.build"].flatMap { folder in
            try FileManager.default.contentsOfDirectory(atPath: built.appendingPathComponent(folder).path)
                .filter { $0.hasSuffix(".o") }.map { built.appendingPathComponent(folder).appendingPathComponent($0).path }
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("values-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let main = folder.appendingPathComponent("main.swift"), program = folder.appendingPathComponent("program")
        try source.write(to: main, atomically: true, encoding: .utf8)
        let compiled = try execute(["swiftc", "-swift-version", "6", "-o", program.path] + snippetModuleFlags() + [main.path] + objects + ["-lutf8proc", "-ldl"])
        try #require(compiled.status == 0, "\(compiled.errors)")
        let ran = try execute([program.path])
        try #require(ran.status == 0, "\(ran.errors)")
        return ran.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLast()
    }

    private static func execute(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let complained = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, said, complained)
    }

    @Test func theCoreGuidesValuesPrintWhatTheySay() throws {
        let source = try Self.block(of: "Sources/SignupCore/SignupCore.docc/CoreGuide.md", containing: "OrderKeys")
        let promised = Self.promised(source)
        try #require(promised.count == 4)
        #expect(try Self.run(source) == promised)
    }

    @Test func theModelArticlesValuesAndValidatedPrintWhatTheySay() throws {
        let source = try Self.block(of: "Sources/SignupCore/SignupCore.docc/BindingAUserInterface.md", containing: "@Validated")
        let promised = Self.promised(source)
        try #require(promised.count == 7)
        #expect(try Self.run(source + "\nMainActor.assumeIsolated { editSettings(); subscribe() }\n") == promised)
    }
}
