import Foundation
import Testing

/// The compiler flags that find this package's built modules and the C modules they import:
/// for snippets compiled by `swiftc` outside the package.
func snippetModuleFlags() -> [String] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let modules = URL(fileURLWithPath: exampleBinary).deletingLastPathComponent().appendingPathComponent("Modules").path
    return ["-I", modules] + ["CLibedit/include", "CUtf8proc", "CZxcvbn", "CSystem", "CIdn2/include"].flatMap { ["-I", root.appendingPathComponent("Sources/\($0)").path] }
}

/// WizardTerminal's "Getting started" as a newcomer copies it: its code blocks, in order, are one
/// program (the blocks ending in a `main.swift` call), compiled in Swift 6 language mode against
/// the built modules, through SIL so that data-race errors ("sending … risks causing data
/// races") count too.
@Suite struct GettingStartedSnippetTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The ```swift blocks of `article`, in order.
    static func blocks(of article: String) throws -> [String] {
        let text = try String(contentsOf: root.appendingPathComponent(article), encoding: .utf8)
        var blocks: [String] = [], current: [String]?
        for line in text.components(separatedBy: "\n") {
            if current == nil, line == "```swift" {
                current = []
            } else if let lines = current, line == "```" {
                blocks.append(lines.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// Compiles `files` (name, source) as one module; returns whether it compiled and what the compiler said.
    static func compile(_ files: [(String, String)]) throws -> (passed: Bool, said: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("snippet-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, source) in files {
            try source.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let arguments = ["swiftc", "-swift-version", "6", "-emit-sil", "-wmo", "-o", "/dev/null", "-module-name", "Join"]
            + snippetModuleFlags() + files.map { folder.appendingPathComponent($0.0).path }
        let result = try run(arguments)
        return (result.passed, result.said)
    }

    /// Runs the compiler; what it said ends with how it ended, when it failed: a compiler
    /// killed by a signal has said nothing about the code.
    private static func run(_ arguments: [String]) throws -> (passed: Bool, said: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let passed = process.terminationReason == .exit && process.terminationStatus == 0 && !said.contains("warning:")
        let ending = passed ? "" : " (swiftc \(process.terminationReason == .exit ? "exited" : "was killed by signal") \(process.terminationStatus))"
        return (passed, said + ending)
    }

    @Test func theJoinSnippetCompilesAsIs() throws {
        let blocks = try Self.blocks(of: "Sources/WizardTerminal/WizardTerminal.docc/GettingStarted.md")
        try #require(blocks.count == 8, """
            the article's blocks: the form and Directory, the one call's main.swift, a checked one call; \
            the long form and its main.swift, the async long form and its main.swift, a wizard in main.swift
            """)
        // The one call: its three lines of main.swift, top-level code awaiting on the main actor.
        let oneCall = try Self.compile([("Join.swift", blocks[0] + "\n" + blocks[2]), ("main.swift", blocks[1])])
        #expect(oneCall.passed, "\(oneCall.said)")
        try #require(blocks[1].split(separator: "\n").count <= 3, "the one call's program is at most three lines")
        // The long form's main.swift blocks get the imports and nothing else: a name they use
        // that no block of the article defines does not compile.
        let header = "import SignupCore\nimport WizardTerminal\n"
        let main = header + blocks[6] + "\n" + blocks[7]
        let library = { (first: String) in [first, blocks[3], blocks[5]].joined(separator: "\n") }
        let good = try Self.compile([("Join.swift", library(blocks[0])), ("main.swift", main)])
        #expect(good.passed, "\(good.said)")
        // The check has teeth: the same code with a plain class is refused, as a newcomer saw.
        let plain = blocks[0].replacingOccurrences(of: "\nactor Directory {", with: "\nfinal class Directory {")
        try #require(plain != blocks[0])
        let refused = try Self.compile([("Join.swift", library(plain)), ("main.swift", main)])
        #expect(!refused.passed && refused.said.contains("risks causing data races"), "\(refused.said)")
        // The wizard of the last block is local to its `do { }`: as a top-level variable of
        // main.swift it is refused, as the article says.
        let lines = blocks[7].components(separatedBy: "\n")
        try #require(lines.first == "do {" && lines.last == "}")
        let global = header + lines.dropFirst().dropLast().joined(separator: "\n")
        let topLevel = try Self.compile([("Join.swift", library(blocks[0])), ("main.swift", global)])
        #expect(!topLevel.passed && topLevel.said.contains("cannot be passed 'inout' to 'async' function call"), "\(topLevel.said)")
    }

    /// The model article's code for Linux (every block but the first, which is SwiftUI's)
    /// compiles in Swift 6 mode, each block a program of its own.
    @Test func theModelArticlesCodeCompilesAsIs() throws {
        let blocks = try Self.blocks(of: "Sources/SignupCore/SignupCore.docc/BindingAUserInterface.md")
        try #require(
            blocks.count == 3 && blocks[0].contains("import SwiftUI") && blocks[2].contains("@Validated"),
            "a SwiftUI view, the model's code, then values a control sets and @Validated"
        )
        let compiled = try Self.compile([("Profile.swift", blocks[1])])
        #expect(compiled.passed, "\(compiled.said)")
        let values = try Self.compile([("Settings.swift", blocks[2])])
        #expect(values.passed, "\(values.said)")
        // The check has teeth: the property wrapper inside the @Observable class is refused, as the article says.
        let wrapped = blocks[2].replacingOccurrences(of: "    var email = Validated(\"\", .required(), .email())", with: "    @Validated(.required(), .email()) var email = \"\"")
        try #require(wrapped != blocks[2])
        let refused = try Self.compile([("Settings.swift", wrapped)])
        #expect(!refused.passed, "\(refused.said)")
    }

    /// The core guide's block on values beyond one line compiles as a program in Swift 6 mode,
    /// and a field of a type no line stands for cannot be asked from a line.
    @Test func theCoreGuidesValuesCompileAsIs() throws {
        let blocks = try Self.blocks(of: "Sources/SignupCore/SignupCore.docc/CoreGuide.md")
        let values = try #require(blocks.first { $0.contains("OrderKeys") }, "the block on values beyond one line")
        let compiled = try Self.compile([("main.swift", values)])
        #expect(compiled.passed, "\(compiled.said)")
        let asked = values.replacingOccurrences(of: "Field(setByUI: OrderKeys.box,", with: "Field(OrderKeys.box,")
        try #require(asked != values)
        #expect(try !Self.compile([("main.swift", asked)]).passed)
    }

    /// The README's library example is a program that compiles as shown, and its misspelt key does not.
    @Test func theReadmeLibraryExampleCompilesAsIs() throws {
        let blocks = try Self.blocks(of: "README.md")
        try #require(blocks.count == 1, "the README's one Swift block")
        let good = try Self.compile([("main.swift", blocks[0])])
        #expect(good.passed, "\(good.said)")
        let misspelt = blocks[0].replacingOccurrences(of: "Field(Keys.age,", with: "Field(Keys.agee,")
        try #require(misspelt != blocks[0])
        #expect(try !Self.compile([("main.swift", misspelt)]).passed)
    }
}

extension GettingStartedSnippetTests {
    /// "Build your own wizard" shows the one call first: with the longer form's keys, it is a
    /// `main.swift` that compiles as shown.
    @Test func theWizardGuidesOneCallCompilesAsIs() throws {
        let blocks = try Self.blocks(of: "Sources/WizardTerminal/WizardTerminal.docc/BuildYourOwnWizard.md")
        try #require(blocks.count == 2, "the one call's main.swift, then the longer form")
        let compiled = try Self.compile([("Join.swift", blocks[1]), ("main.swift", blocks[0])])
        #expect(compiled.passed, "\(compiled.said)")
    }
}

extension GettingStartedSnippetTests {
    /// WizardTesting's "Testing your form": its blocks, in order, are one test file that compiles
    /// as shown against the built modules.
    @Test func theTestingArticlesCodeCompilesAsIs() throws {
        let blocks = try Self.blocks(of: "Sources/WizardTesting/WizardTesting.docc/TestingYourForm.md")
        try #require(blocks.count == 4, "the form and its program, a script's test, a terminal's test, a built executable's test")
        // Two files, neither main.swift: a library of tests, as in a test target.
        let compiled = try Self.compile([("JoinTests.swift", blocks.joined(separator: "\n")), ("Empty.swift", "")])
        #expect(compiled.passed, "\(compiled.said)")
    }
}

extension GettingStartedSnippetTests {
    /// A program of forms needs one import: a three-line `main.swift` with `import WizardTerminal`
    /// alone declares a form, runs it and prints its answer with `VisibleText`.
    @Test func aThreeLineMainNeedsOnlyWizardTerminal() throws {
        let main = """
            import WizardTerminal
            let name = FieldKey<String>("name")
            print(VisibleText.of(await Form(fields: [Field(name, label: "Name", rules: [.required()])]).runOrExit { $0.text(name) }))
            """
        #expect(main.split(separator: "\n").count == 3)
        let compiled = try Self.compile([("main.swift", main)])
        #expect(compiled.passed, "\(compiled.said)")
    }
}
