import SignupCore
import Testing

/// Mistakes in a form's definition are refused where they are made, not found by a user.
@Suite struct DefinitionMistakeTests {
    static let first = FieldKey<String>("first")
    static let second = FieldKey<String>("second")
    static let mail = FieldKey<String>("mail")
    static let pass = FieldKey<String>("pass")
    static let tags = FieldKey<String>("tags")

    /// A rule on an earlier field that reads a later one cannot be honoured by a conversation
    /// (the earlier field would be asked for ever): refused when the form is built.
    @Test func aRuleReadingALaterFieldIsRefusedWhenTheFormIsBuilt() async {
        await #expect(processExitsWith: .failure) {
            _ = Form(fields: [
                Field(Self.first, rules: [.equals(Self.second)]),
                Field(Self.second),
            ])
        }
        // The other way round, a confirmation after its source, is what a form is for.
        let form = Form(fields: [Field(Self.first), Field(Self.second, rules: [.equals(Self.first)], dependsOn: [Self.first])])
        #expect(form.fields.count == 2)
    }

    /// A `messages:` key that names no reason the field's rules fail with, or the code of
    /// another field, is a misspelling: refused when the field is made.
    @Test func aMisspeltMessageCodeIsRefused() async {
        await #expect(processExitsWith: .failure) {
            _ = Field(Self.first, rules: [.minLength(4)], messages: ["first.tooShrot": "Four or more"])
        }
        await #expect(processExitsWith: .failure) {
            _ = Field(Self.first, rules: [.minLength(4)], messages: ["frist.tooShort": "Four or more"])
        }
        await #expect(processExitsWith: .failure) {
            _ = Field(Self.first, rules: [.minLength(4)], messages: ["tooShrot": "Four or more"])
        }
        // A code or a reason of its rules, or of its type, is taken.
        let age = FieldKey<Int>("age")
        let field = Field(age, rules: [.required(), .range(1...9)], messages: ["age.required": "Your age", "notAWholeNumber": "Digits"])
        #expect(field.messages.count == 2)
    }

    /// The key of a field of another type moves no focus: it stops the program, as everywhere else.
    @Test @MainActor func focusOnAKeyOfTheWrongTypeStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            await MainActor.run {
                let model = FormModel<Int>(form: Form(fields: [Field(FieldKey<Int>("age"))]))
                model.focus(on: FieldKey<String>("age"))
            }
        }
    }

    /// The email a password must not contain is read from the field the caller names.
    @Test func notContainingEmailReadsTheFieldItIsGiven() {
        let rule = Rule.notContainingEmail(field: Self.mail)
        #expect(rule.referencedFields == ["mail"])
        let form = Form(fields: [Field(Self.mail), Field(Self.pass, rules: [rule], isSecret: true)])
        var answered = form
        answered.answer(Self.mail, line: "alice@example.com")
        answered.answer(Self.pass, line: "xxalicexx")
        #expect(answered.errors(for: Self.pass).map(\.code) == ["pass.containsEmail"])
    }

    /// A count on a text counts characters, and says so.
    @Test func aCountOnATextSpeaksOfCharacters() {
        let rules: [Rule<String>] = [.count(moreThan: 3), .count(atLeast: 5), .count(atMost: 2), .count(fewerThan: 2)]
        #expect(rules.flatMap { $0.validate("abc") }.map(\.message) == [
            "Use more than 3 characters", "Use at least 5 characters", "Use at most 2 characters", "Use fewer than 2 characters",
        ])
        #expect(rules.flatMap(\.checks).map(\.label) == ["more than 3 characters", "at least 5 characters", "at most 2 characters", "fewer than 2 characters"])
        // A list still counts its elements.
        #expect(Rule<[String]>.count(moreThan: 3).validate(["a"]).map(\.message) == ["Choose more than 3"])
    }

    /// An error a submit puts on a field this form does not have (a misspelt name) is a
    /// programming error: a debug build stops at once. A key makes the code and cannot be misspelt.
    @Test func anErrorNamingAFieldTheFormLacksIsLoud() async {
        #if DEBUG
        await #expect(processExitsWith: .failure) {
            var form = Form(fields: [Field(Self.first)])
            form.attach([FieldError(field: "frist", code: "frist.taken", message: "Taken")])
        }
        #endif
        var form = Form(fields: [Field(Self.first)])
        form.attach([FieldError(Self.first, reason: "taken", message: "Taken"), .form(code: "form.closed", message: "Closed")])
        #expect(form.errors(for: Self.first).map(\.code) == ["first.taken"])
        #expect(form.formErrors.map(\.code) == ["form.closed"])
    }
}

/// The focus, synced both ways with a UI's own focus state.
@MainActor @Suite struct FocusSyncTests {
    @Test func theUIsFocusIsFollowedByNameAndAFailedSubmitMovesItBack() async {
        let email = FieldKey<String>("email"), name = FieldKey<String>("name")
        let model = FormModel<Int>(form: Form(fields: [Field(email, rules: [.required()]), Field(name)]))
        model.focus(on: email)
        model.focus(onFieldNamed: "name")  // the person tapped the second field
        #expect(model.isFocused(name) && model.focusedField == "name")
        _ = await model.submit { _ in 1 }  // email is empty: the focus goes back to it
        #expect(model.focusedField == "email")
        model.focus(onFieldNamed: nil)
        #expect(model.focusedField == nil)
    }

    @Test func aNameTheFormLacksStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            await MainActor.run {
                FormModel<Int>(form: Form(fields: [Field(FieldKey<String>("email"))])).focus(onFieldNamed: "emial")
            }
        }
    }
}
