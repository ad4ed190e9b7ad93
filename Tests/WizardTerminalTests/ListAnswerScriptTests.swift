import SignupCore
import Testing
import WizardTerminal

enum Flavour: String, CaseIterable, AnswerValue { case vanilla, chocolate, mint }

/// A list, a set of choices and an optional number through the real runner over a script: one
/// line each, a list's elements separated by commas, an empty line for nil.
@Suite struct ListAnswerScriptTests {
    static let flavours = FieldKey<Set<Flavour>>("flavours")
    static let nicknames = FieldKey<[String]>("nicknames")
    static let shoeSize = FieldKey<Int?>("shoeSize")

    static func form() -> Form {
        Form(fields: [
            Field(nameKey, label: "Name", rules: [.required()]),
            Field(flavours, label: "Flavours", rules: [.count(atLeast: 1), .count(atMost: 2)]),
            Field(nicknames, label: "Nicknames"),
            Field(shoeSize, label: "Shoe size", rules: [.range(30...50)]),
        ])
    }

    @Test func eachIsOneLineOfTheScript() throws {
        let (conversation, outcome) = try RunnerScriptTests().run(Self.form(), "ann\nmint, 1\nAnnie, A\\, the first\n\n")
        #expect(outcome == .succeeded("ann"), "\(conversation)")
        #expect(conversation.contains("Flavours (vanilla, chocolate, mint; separated by commas): mint, 1\n"), "\(conversation)")
        #expect(conversation.contains("Nicknames (separated by commas): "), "\(conversation)")
        #expect(conversation.contains("Shoe size: \n"), "\(conversation)")
    }

    /// A script's list that breaks the list's rules, or whose element does not parse, ends the
    /// script with the list's reason, as any field's invalid answer does.
    @Test func aListThatFailsItsRulesEndsTheScriptWithItsReason() throws {
        let tooMany = try RunnerScriptTests().run(Self.form(), "ann\nmint, vanilla, chocolate\n\n\n")
        guard case .invalid(let errors) = tooMany.outcome else { Issue.record("\(tooMany.outcome)"); return }
        #expect(errors.map(\.code) == ["flavours.tooMany"] && errors.first?.message == "Choose at most 2")
        let unknown = try RunnerScriptTests().run(Self.form(), "ann\nmint, pistachio\n\n\n")
        guard case .invalid(let errors) = unknown.outcome else { Issue.record("\(unknown.outcome)"); return }
        #expect(errors.map(\.code) == ["flavours.notAChoice"])
        let notANumber = try RunnerScriptTests().run(Self.form(), "ann\nmint\n\nforty\n")
        guard case .invalid(let errors) = notANumber.outcome else { Issue.record("\(notANumber.outcome)"); return }
        #expect(errors.map(\.code) == ["shoeSize.notAWholeNumber"])
    }
}
