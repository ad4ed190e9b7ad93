import SignupCore
import Testing

enum Topic: String, CaseIterable, AnswerValue { case swift, rust, go }

/// Fields whose value is an optional or a collection: read from a line, set by a UI, checked by
/// the same rules, dirty relative to the record an edit form opened on.
@Suite struct ValuesBeyondOneLineTests {
    static let nickname = FieldKey<String?>("nickname")
    static let shoeSize = FieldKey<Int?>("shoeSize")
    static let requiredAge = FieldKey<Int?>("age")
    static let tags = FieldKey<Set<Topic>>("tags")
    static let aliases = FieldKey<[String]>("aliases")
    static let scores = FieldKey<[Int]>("scores")

    static func form() -> Form {
        Form(fields: [
            Field(nickname, label: "Nickname", rules: [.ifPresent(.minLength(3))]),
            Field(shoeSize, label: "Shoe size", rules: [.range(30...50)]),
            Field(requiredAge, label: "Age", rules: [.required(), .range(13...120)]),
            Field(tags, label: "Tags", rules: [.count(atLeast: 1), .count(atMost: 2)]),
            Field(aliases, label: "Aliases", rules: [.count(atMost: 3)]),
            Field(scores, label: "Scores"),
        ])
    }

    @Test func anEmptyAnswerOfAnOptionalIsNilAndOnlyRequiredRefusesIt() {
        var form = Self.form()
        form.answer(Self.nickname, line: "")
        form.answer(Self.shoeSize, line: "  ")
        form.answer(Self.requiredAge, line: "")
        #expect(form.value(Self.nickname) == nil)
        #expect(form.value(Self.shoeSize) == nil)
        #expect(form.visibleErrors(for: Self.nickname).isEmpty)
        #expect(form.visibleErrors(for: Self.shoeSize).isEmpty)
        #expect(codes(form.visibleErrors(for: Self.requiredAge)) == ["age.required"])
        form.answer(Self.shoeSize, line: "51")
        form.answer(Self.nickname, line: "al")
        form.answer(Self.requiredAge, line: "forty")
        #expect(codes(form.visibleErrors(for: Self.shoeSize)) == ["shoeSize.outOfRange"])
        #expect(codes(form.visibleErrors(for: Self.nickname)) == ["nickname.tooShort"])
        #expect(codes(form.visibleErrors(for: Self.requiredAge)) == ["age.notAWholeNumber"])
        form.answer(Self.shoeSize, with: 42)
        form.answer(Self.requiredAge, with: nil)
        #expect(form.value(Self.shoeSize) == 42)
        #expect(codes(form.visibleErrors(for: Self.requiredAge)) == ["age.required"])
    }

    @Test func aRuleOfAnOptionalSeesNilAsEmpty() {
        #expect(Rule<Int?>.required().validate(nil).map(\.reason) == ["required"])
        #expect(Rule<Int?>.required().validate(3).isEmpty)
        #expect(Rule<Int?>.range(1...2).validate(nil).isEmpty)
        #expect(Rule<Int?>.range(1...2).validate(3).map(\.reason) == ["outOfRange"])
        #expect(Rule<[String]?>.required().validate([]).map(\.reason) == ["required"])
    }

    @Test func aListIsOneLineOfCommaSeparatedElements() {
        var form = Self.form()
        form.answer(Self.aliases, line: " ann ,  , a\\,b,c\\\\d ")
        #expect(form.value(Self.aliases) == ["ann", "a,b", "c\\d"])
        #expect(form.text(Self.aliases) == "ann, a\\,b, c\\\\d")  // what the review shows and the line to edit holds
        form.answer(Self.scores, line: "1, 2, x")
        #expect(codes(form.visibleErrors(for: Self.scores)) == ["scores.notAWholeNumber"])
        form.answer(Self.scores, line: "")
        #expect(form.value(Self.scores) == [])
        #expect(form.visibleErrors(for: Self.scores).isEmpty)
    }

    @Test func aSetOfChoicesIsCountedAndReadByNameOrNumber() {
        var form = Self.form()
        form.answer(Self.tags, line: "")
        #expect(codes(form.visibleErrors(for: Self.tags)) == [])  // count rules skip an empty set, as a text's do
        form.answer(Self.tags, line: "Swift, 3, swift, rust")
        #expect(form.value(Self.tags) == [.swift, .go, .rust])
        #expect(codes(form.visibleErrors(for: Self.tags)) == ["tags.tooMany"])
        #expect(form.visibleErrors(for: Self.tags).first?.message == "Choose at most 2")
        form.answer(Self.tags, line: "java")
        #expect(codes(form.visibleErrors(for: Self.tags)) == ["tags.notAChoice"])
        form.answer(Self.tags, with: [.rust, .go])
        #expect(form.text(Self.tags) == "go, rust")  // sorted: one text for one set
        #expect(form.visibleErrors(for: Self.tags).isEmpty)
    }

    @Test func anEditFormIsDirtyOnlyWhenAValueDiffersFromTheRecord() {
        let record: [FieldPreset] = [.value(Self.tags, [.rust, .swift]), .value(Self.shoeSize, 44), .value(Self.aliases, ["x", "y"])]
        var form = Self.form().opening(on: record)
        #expect(form.value(Self.tags) == [.swift, .rust])
        #expect(!form.isDirty)
        form.answer(Self.tags, with: [.swift, .rust])  // the same set, built in another order
        form.answer(Self.aliases, line: "x,y")
        form.answer(Self.shoeSize, line: " 44")
        #expect(!form.isDirty)
        form.answer(Self.shoeSize, with: nil)
        #expect(form.isDirty)
        form.reset(Self.shoeSize)
        form.answer(Self.aliases, with: ["y", "x"])  // a list's order counts
        #expect(form.isDirty)
    }

    @MainActor @Test func aModelSetsAndObservesTheseValues() {
        let model = FormModel<Int>(form: Self.form(), existing: [.value(Self.tags, [.go])])
        #expect(model.value(Self.tags) == [.go])
        #expect(!model.isDirty)
        let told = notifies({ _ = model[Self.tags].isValid }, when: { model.answer(Self.tags, with: [.go, .rust, .swift]) })
        #expect(told)
        #expect(!model[Self.tags].isValid)
        #expect(codes(model[Self.tags].visibleErrors) == ["tags.tooMany"])
        #expect(model.isDirty && model[Self.tags].isDirty)
        model.answer(Self.tags, with: [.go])
        #expect(!model.isDirty)
        model.answer(Self.requiredAge, with: nil)
        #expect(codes(model[Self.requiredAge].visibleErrors) == ["age.required"])
        model.answer(Self.requiredAge, with: 30)
        #expect(model.value(Self.requiredAge) == 30)
        #expect(model[Self.requiredAge].isValid)
    }

    /// A wizard asks a list on a line that says how to separate its elements, and names the
    /// choices of a set of choices; an edit form's list is on the line to edit.
    @Test func aWizardAsksAListOnOneLine() {
        let form = Form(fields: [Field(Self.tags, label: "Tags", rules: [.count(atLeast: 1)]), Field(Self.aliases, label: "Aliases")])
            .opening(on: [.value(Self.aliases, ["ann"])])
        var wizard = Wizard<Int>(form: form, mode: .interactive)
        var prompts: [Prompt] = []
        var pending = wizard.start()
        var answers = ["rust, 1", "ann, bob", "y"]
        while !pending.isEmpty {
            let effect = pending.removeFirst()
            switch effect {
            case .ask(let prompt):
                prompts.append(prompt)
                pending += wizard.handle(answers.isEmpty ? .endOfInput : .answer(answers.removeFirst()))
            case .submit(let form):
                #expect(form.value(Self.tags) == [.rust, .swift])
                #expect(form.value(Self.aliases) == ["ann", "bob"])
                pending += wizard.handle(.submitted(.succeeded(1)))
            case .finish(let outcome):
                #expect(outcome == .succeeded(1))
            default: break
            }
        }
        #expect(prompts.map(\.text).prefix(2) == ["Tags (swift, rust, go; separated by commas): ", "Aliases (separated by commas): "])
        #expect(prompts.dropFirst().first?.initial == "ann")
    }
}
