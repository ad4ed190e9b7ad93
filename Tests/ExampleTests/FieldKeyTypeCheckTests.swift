import Foundation
import Testing

/// A misspelt or mistyped field does not compile: snippets type-checked against the built
/// SignupCore module (`swiftc -typecheck`), each beside a correct one that must pass, so a
/// missing compiler or module fails the test instead of passing it.
@Suite struct FieldKeyTypeCheckTests {
    static let keys = """
        import SignupCore
        enum Keys {
            static let password = FieldKey<String>("password")
            static let confirm = FieldKey<String>("confirm")
            static let age = FieldKey<Int>("age")
            static let tags = FieldKey<Set<String>>("tags")
            static let colour = FieldKey<Colour>("colour")
        }
        struct Colour: Sendable, Equatable { var red = 0 }


        """

    /// The compiler's diagnostics for `body` after the keys, and whether it type-checked.
    static func typeCheck(_ body: String) throws -> (passed: Bool, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swiftc", "-typecheck"] + snippetModuleFlags() + ["-"]
        let input = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        try input.fileHandleForWriting.write(contentsOf: Data((keys + body).utf8))
        try input.fileHandleForWriting.close()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus == 0, said)
    }

    @Test func aMisspeltKeyDoesNotCompile() throws {
        let good = try Self.typeCheck("let f = Field(Keys.confirm, rules: [.equals(Keys.password)], dependsOn: [Keys.password])\n")
        #expect(good.passed, "the correct snippet must type-check: \(good.errors)")
        let typo = try Self.typeCheck("let f = Field(Keys.confirm, rules: [.equals(Keys.pasword)], dependsOn: [Keys.password])\n")
        #expect(!typo.passed && typo.errors.contains("pasword"), "\(typo.errors)")
    }

    /// A field a UI sets has no empty value to start from, and no rule of a line; a list takes
    /// the collection rules and a set's value is a set.
    @Test func aValueNoLineStandsForNeedsAnInitialValueAndItsOwnRules() throws {
        let fine = try Self.typeCheck(
            "let f = Field(setByUI: Keys.colour, initial: Colour())\nlet t = Field(Keys.tags, rules: [.count(atLeast: 1)], initial: [\"a\"])\n"
        )
        #expect(fine.passed, "\(fine.errors)")
        let noInitial = try Self.typeCheck("let f = Field(setByUI: Keys.colour)\n")
        #expect(!noInitial.passed, "a value no line stands for has no empty value: \(noInitial.errors)")
        let asked = try Self.typeCheck("let f = Field(Keys.colour, initial: Colour())\n")
        #expect(!asked.passed, "a field asked from a line needs a type a line stands for: \(asked.errors)")
        let textRule = try Self.typeCheck("let f = Field(Keys.tags, rules: [.minLength(3)])\n")
        #expect(!textRule.passed, "a text rule on a set: \(textRule.errors)")
        let wrongValue = try Self.typeCheck("var form = Form(fields: [Field(Keys.tags)])\nform.answer(Keys.tags, with: \"a, b\")\n")
        #expect(!wrongValue.passed, "a line where a set is given: \(wrongValue.errors)")
    }

    @Test func aKeyOfTheWrongTypeDoesNotCompile() throws {
        let equals = try Self.typeCheck("let f = Field(Keys.confirm, rules: [.equals(Keys.age)])\n")
        #expect(!equals.passed && equals.errors.contains("FieldKey<Int>"), "\(equals.errors)")
        let rule = try Self.typeCheck("let f = Field(Keys.age, rules: [.minLength(3)])\n")
        #expect(!rule.passed, "a text rule on an Int field: \(rule.errors)")
        let answer = try Self.typeCheck("var form = Form(fields: [Field(Keys.age)])\nform.answer(Keys.age, with: \"42\")\n")
        #expect(!answer.passed, "a text for an Int: \(answer.errors)")
        let fine = try Self.typeCheck("var form = Form(fields: [Field(Keys.age, rules: [.range(13...120)])])\nform.answer(Keys.age, with: 42)\n")
        #expect(fine.passed, "\(fine.errors)")
    }
}
