import SignupCore
import Testing

/// Every public type of the core that holds a secret, made holding `marker`, printed every way
/// Swift prints a value: none may show it.
@Suite struct SecretRedactionTests {
    static let marker = "Hunter2-Marker-Zq9"

    /// Every way a value can be printed or inspected.
    static func renderings(of value: Any) -> [String: String] {
        var dumped = ""
        dump(value, to: &dumped)
        var mirrored = ""
        func walk(_ value: Any, depth: Int) {
            guard depth < 12 else { return }
            for child in Mirror(reflecting: value).children {
                mirrored += "\(child.label ?? "_")=\(String(describing: child.value));"
                walk(child.value, depth: depth + 1)
            }
        }
        walk(value, depth: 0)
        return [
            "description": String(describing: value),
            "debugDescription": String(reflecting: value),
            "interpolation": "\(value)",
            "dump": dumped,
            "Mirror": mirrored,
        ]
    }

    static func secretForm() -> Form { filledForm(password: marker) }

    static func holders() -> [(String, Any)] {
        let form = secretForm()
        var controller = SubmissionController(form: form)
        let attempt = controller.begin()
        var wizard = SignupForm.wizard(form: standardForm(), mode: .interactive, strength: fakeEstimator)
        var effects = wizard.start()
        effects += wizard.handle(.answer("alice@example.com"))
        effects += wizard.handle(.answer(marker))
        effects += wizard.handle(.answer(marker))
        effects += wizard.handle(.answer("y"))  // the submit effect carries the form
        return [
            ("Secret", Secret(marker)),
            ("Field", form[K.password]!),
            ("Form", form),
            ("RuleContext", form.context),
            ("SubmissionController", controller),
            ("SubmitAttempt", attempt as Any),
            ("WizardInput", WizardInput<Int>.answer(marker)),
            ("Wizard", wizard),
            ("WizardEffect", effects),
            ("Submission", SignupForm.submission(from: form, strength: fakeEstimator)),
        ]
    }

    @Test func theMarkerReallyIsInTheHolders() {
        let form = Self.secretForm()
        #expect(form[K.password]?.value == Self.marker)
        #expect(form.context[K.confirm] == Self.marker)
    }

    @Test(arguments: holders().map(\.0))
    func noRenderingShowsTheSecret(type: String) {
        let value = Self.holders().first { $0.0 == type }!.1
        for (way, text) in Self.renderings(of: value) {
            #expect(!text.contains(Self.marker), "\(type) shows the secret through \(way)")
        }
    }

    @Test func aTextFieldStillShowsItsValue() {
        let text = Self.renderings(of: Self.secretForm()[K.email]!)
        #expect(text["description"]?.contains("alice@example.com") == true)
    }
}
