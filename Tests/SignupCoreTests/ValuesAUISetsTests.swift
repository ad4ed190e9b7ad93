import SignupCore
import Testing

/// A field of any `Sendable & Equatable` value that a UI sets (a colour picked, a point on a map):
/// set through the form or its model, checked by rules, dirty relative to the record an edit
/// form opened on, and refused by a wizard, which cannot ask it, before any prompt.
@Suite struct ValuesAUISetsTests {
    struct Colour: Sendable, Equatable { var red, green, blue: Int }

    static let colour = FieldKey<Colour>("colour")
    static let name = FieldKey<String>("name")
    static let notBlack = Rule<Colour>.custom("tooDark", message: "Choose a lighter colour") { colour, _ in
        colour.red + colour.green + colour.blue > 0
    }

    static func form() -> Form {
        Form(fields: [
            Field(name, label: "Name", rules: [.required()]),
            Field(setByUI: colour, label: "Colour", rules: [notBlack], initial: Colour(red: 0, green: 0, blue: 0)),
        ])
    }

    @Test func aFormSetsItAndItsRulesSeeIt() {
        var form = Self.form()
        #expect(form.value(Self.colour) == Colour(red: 0, green: 0, blue: 0))
        #expect(codes(form.errors(for: Self.colour)) == ["colour.tooDark"])
        #expect(form.visibleErrors(for: Self.colour).isEmpty)  // deferred until set
        #expect(!form.isDirty)
        form.answer(Self.colour, with: Colour(red: 0, green: 0, blue: 0))
        #expect(codes(form.visibleErrors(for: Self.colour)) == ["colour.tooDark"])
        #expect(!form.isDirty)
        form.answer(Self.colour, with: Colour(red: 9, green: 0, blue: 0))
        #expect(form.visibleErrors(for: Self.colour).isEmpty)
        #expect(form.isDirty)
        form.reset(Self.colour)
        #expect(form.value(Self.colour) == Colour(red: 0, green: 0, blue: 0))
        #expect(!form.isDirty)
    }

    @MainActor @Test func aModelOpensOnARecordAndTracksIt() {
        let record = Colour(red: 1, green: 2, blue: 3)
        let model = FormModel<Int>(form: Self.form(), existing: [.value(Self.name, "Ann"), .value(Self.colour, record)])
        #expect(model.value(Self.colour) == record)
        #expect(!model.isDirty && model.isValid)
        let told = notifies({ _ = model[Self.colour].isDirty }, when: { model.answer(Self.colour, with: Colour(red: 0, green: 0, blue: 0)) })
        #expect(told)
        #expect(model.isDirty && !model.isValid)
        #expect(codes(model[Self.colour].visibleErrors) == ["colour.tooDark"])
        model.answer(Self.colour, with: record)
        #expect(!model.isDirty && model.isValid)
        #expect(model[Self.colour].text == "")
    }

    /// A view that shows the value (a swatch) reads it through the model and is told when it
    /// changes, though no text does; not when another field changes.
    @MainActor @Test func aViewReadingTheValueIsToldWhenItChanges() {
        let model = FormModel<Int>(form: Self.form())
        let told = notifies({ _ = model.value(Self.colour) }, when: { model.answer(Self.colour, with: Colour(red: 5, green: 0, blue: 0)) })
        #expect(told)
        let toldOfReset = notifies({ _ = model.value(Self.colour) }, when: { model.reset(Self.colour) })
        #expect(toldOfReset)
        let toldOfName = notifies({ _ = model.value(Self.colour) }, when: { model[Self.name].text = "Bo" })
        #expect(!toldOfName)
    }

    /// A line for such a field is a programming error, as a key of the wrong type is.
    @Test func aLineForItStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            var form = ValuesAUISetsTests.form()
            form.answer(ValuesAUISetsTests.colour, line: "red")
        }
    }

    @Test func aWizardRefusesItWhenMadeBeforeAnyPrompt() async {
        await #expect(processExitsWith: .failure) {
            _ = Wizard<Int>(form: ValuesAUISetsTests.form(), mode: .script)
        }
        _ = Wizard<Int>(form: Form(fields: [Field(Self.name)]), mode: .script)
    }
}
