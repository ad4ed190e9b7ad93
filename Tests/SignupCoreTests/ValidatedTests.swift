import Observation
import SignupCore
import Testing

/// `@Validated`: one value checked by the same rules as a form's fields, outside any form.
@Suite struct ValidatedTests {
    struct Profile {
        @Validated(.required(), .email()) var email = ""
        @Validated(.count(atLeast: 1), .count(atMost: 2)) var tags: Set<Topic> = []
        @Validated(.required(), .range(13...120)) var age: Int? = nil
        @Validated(.minLength(8), .pattern("[0-9]", .contains, reason: "needsDigit", label: "a digit"), mode: .onSubmit) var password = ""
    }

    @Observable final class SignUpModel {
        var email = Validated("", .required(), .email())
        var tags = Validated<[String]>([], .count(atMost: 2))
    }

    @Test func itsErrorsAreTheRulesFailuresAndShowOnceTheValueChanged() {
        var profile = Profile()
        #expect(!profile.$email.isValid)
        #expect(profile.$email.errors.map(\.reason) == ["required"])
        #expect(profile.$email.visibleErrors.isEmpty)  // deferred, as a form's field
        profile.email = "ann@"
        #expect(profile.$email.visibleErrors.map(\.reason) == ["invalid"])
        profile.email = "ann@example.com"
        #expect(profile.$email.isValid && profile.$email.visibleErrors.isEmpty)
        profile.$email.reset()
        #expect(profile.email == "" && profile.$email.visibleErrors.isEmpty)
    }

    @Test func optionalAndCollectionValuesUseTheSameRules() {
        var profile = Profile()
        #expect(profile.$age.errors.map(\.reason) == ["required"])
        profile.age = 9
        #expect(profile.$age.visibleErrors.map(\.reason) == ["outOfRange"])
        profile.age = 40
        #expect(profile.$age.isValid)
        #expect(profile.$tags.errors.isEmpty)  // count rules skip an empty set
        profile.tags = [.swift, .rust, .go]
        #expect(profile.$tags.visibleErrors.map(\.message) == ["Choose at most 2"])
        profile.tags.remove(.go)
        #expect(profile.$tags.isValid)
    }

    @Test func onSubmitErrorsWaitForValidateAndAChecklistTicksEachCheck() {
        var profile = Profile()
        profile.password = "abc"
        #expect(profile.$password.visibleErrors.isEmpty)
        #expect(profile.$password.checklist.map(\.passed) == [false, false])
        let refused = profile.$password.validate()
        #expect(!refused)
        #expect(profile.$password.visibleErrors.map(\.reason) == ["tooShort", "needsDigit"])
        profile.password = "abcdefg1"
        #expect(profile.$password.checklist.map(\.passed) == [true, true])
        let passed = profile.$password.validate()
        #expect(passed)
    }

    @Test func aCopyIsAValue() {
        var profile = Profile()
        let before = profile
        profile.email = "x"
        #expect(before.email == "" && before.$email.visibleErrors.isEmpty)
    }

    @MainActor @Test func inAnObservableClassAViewIsToldOfEachChange() {
        let model = SignUpModel()
        let told = notifies({ _ = model.email.visibleErrors }, when: { model.email.value = "bob@" })
        #expect(told)
        #expect(model.email.visibleErrors.map(\.reason) == ["invalid"])
        let toldOfTags = notifies({ _ = model.tags.isValid }, when: { model.tags.value.append(contentsOf: ["a", "b", "c"]) })
        #expect(toldOfTags)
        #expect(!model.tags.isValid)
        let toldOfOther = notifies({ _ = model.tags.isValid }, when: { model.email.value = "bob@example.com" })
        #expect(!toldOfOther)
    }

    /// A struct of validated values is Equatable by synthesis: equal values that show the same.
    struct Card: Equatable {
        @Validated(.required(), .email()) var email = ""
        @Validated(.range(13...120)) var age = 20
    }

    @Test func aStructOfValidatedValuesIsEquatable() {
        var card = Card(), other = Card()
        #expect(card == other)
        card.email = "ann@example.com"
        #expect(card != other)
        other.email = "ann@example.com"
        #expect(card == other)
        card.$age.validate()  // the same values, but its errors now show
        #expect(card != other)
        #expect(card.$age.value == other.$age.value)
    }

    /// A validate() that changes only what shows still tells an observing view.
    @MainActor @Test func validateAloneTellsAnObservingView() {
        let model = SignUpModel()
        let told = notifies({ _ = model.email.visibleErrors }, when: { model.email.validate() })
        #expect(told)
        #expect(model.email.visibleErrors.map(\.reason) == ["required"])
    }
}
