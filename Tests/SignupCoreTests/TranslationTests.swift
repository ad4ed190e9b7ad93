import SignupCore
import Testing

/// What a catalog may and may not do to the texts it translates.
@Suite struct TranslationTests {
    static func catalog(_ entries: [String: String]) -> Translation {
        Translation { entries[$0] }
    }

    @Test func aTemplateIsTranslatedWithItsValuesInTheTranslationsOrder() {
        let german = Self.catalog(["Enter a value from {low} to {high}": "Von {low} bis {high}, bitte"])
        let text = Translation.english("Enter a value from {low} to {high}", ["low": "13", "high": "120"])
        #expect(text == "Enter a value from 13 to 120")
        #expect(german(text) == "Von 13 bis 120, bitte")
        let reordered = Self.catalog(["Enter a value from {low} to {high}": "{high} ≥ x ≥ {low}"])
        #expect(reordered(text) == "120 ≥ x ≥ 13")
    }

    @Test func aTemplateFillsOnlyTheNamesItHasValuesFor() {
        let values = ["a": "1", "b": "{a}", "": "empty"]
        // ASCII templates are filled byte by byte, others character by character: the same result.
        for prefix in ["", "Größe \u{301}", "\r\n"] {
            let text = Translation.english(prefix + "{a}{b} {missing} {} } { {x {a", values)
            #expect(text == prefix + "1{a} {missing} empty } { {x {a", "\(prefix.debugDescription)")
        }
        #expect(Translation.english("{a}", values) == "1")
        #expect(Translation.english("no placeholder", values) == "no placeholder")
    }

    @Test func aTranslationWithAControlCharacterIsNotUsed() {
        for hostile in ["Fügen Sie \u{1B}[2J eine Ziffer hinzu", "Ziffer\r", "Ziffer\u{9B}31m", "Ziffer \u{202E}nie"] {
            #expect(Self.catalog(["Add a digit": hostile])("Add a digit") == "Add a digit", "\(hostile.debugDescription)")
        }
    }

    @Test func aTranslationThatDropsOrInventsAPlaceholderIsNotUsed() {
        let text = Translation.english("Account created for {email}", ["email": "a@example.com"])
        #expect(Self.catalog(["Account created for {email}": "Konto angelegt"])(text) == text)
        #expect(Self.catalog(["Account created for {email}": "Konto {id} für {email}"])(text) == text)
    }

    @Test func aValueFromOutsideIsNeverTranslatedNorFilledAgain() {
        let german = Self.catalog(["Account created for {email}": "Konto angelegt für {email}", "Review": "Überblick", "{count}": "X"])
        #expect(german(Translation.english("Account created for {email}", ["email": "Review"])) == "Konto angelegt für Review")
        #expect(german(Translation.english("Account created for {email}", ["email": "{count}@x.org"])) == "Konto angelegt für {count}@x.org")
    }

    @Test func valuesMarkedForTranslationAndListsAreTranslatedOneByOne() {
        let german = Self.catalog([
            "set ({level})": "gesetzt ({level})", "strong": "stark",
            "Password requirements: {requirements}": "Anforderungen: {requirements}",
            "at least {count} characters": "mindestens {count} Zeichen", "a digit": "eine Ziffer", ", ": " · ",
        ])
        #expect(german(Translation.english("set ({level})", translated: ["level": StrengthLevel.strong.label])) == "gesetzt (stark)")
        let rules: [Rule] = [.minLength(9), .containsDigit()]
        let hint = Translation.english("Password requirements: {requirements}", translated: ["requirements": Rule.requirements(of: rules)])
        #expect(hint == "Password requirements: at least 9 characters, a digit")
        #expect(german(hint) == "Anforderungen: mindestens 9 Zeichen · eine Ziffer")
    }

    @Test func withoutACatalogEveryTextIsTheEnglishOne() {
        let texts = SignupForm.texts
        #expect(Translation.english(texts.reviewQuestion) == "Create account? [Y/n/e] ")
        #expect(Translation.english(texts.unavailable("disk full")) == "The account could not be saved: disk full.")
        let message = FieldError.unreadable(.tooLong(limit: 65536), field: "email").message
        #expect(Translation.english(message) == "This answer is longer than 64 KiB")
        #expect(Self.catalog(["This answer is longer than {size} KiB": "Länger als {size} KiB"])(message) == "Länger als 64 KiB")
    }

    @Test func aProgramsCatalogComesBeforeTheLibrarys() {
        let own = Self.catalog(["Review": "Zusammenfassung"])
        let library = Self.catalog(["Review": "Überblick", "set": "gesetzt"])
        #expect(own.then(library)("Review") == "Zusammenfassung")
        #expect(own.then(library)("set") == "gesetzt")
        #expect(own.then(library)("Email") == "Email")
    }
}
