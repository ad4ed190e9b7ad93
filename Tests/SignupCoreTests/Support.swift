import Observation
import SignupCore

/// A stand-in for zxcvbn: strength grows with length, "password" and "letmein" are common,
/// and a user word inside the password takes its length off the estimate.
let fakeEstimator = StrengthEstimator { password, userWords in
    let common = ["password", "letmein", "password1"].contains(password.lowercased())
    var bits = Double(password.count) * 4
    for word in userWords where !word.isEmpty && password.lowercased().contains(word.lowercased()) {
        bits -= Double(word.count) * 4
    }
    return StrengthEstimate(bits: common ? 2 : bits, isCommon: common)
}

let goodPassword = "Quartz-Lantern-58"

func codes(_ errors: [FieldError]) -> [String] { errors.map(\.code) }

func standardForm() -> Form { SignupForm.make(policy: .standard, strength: fakeEstimator) }

/// The sign-up form answered in full: alice@example.com and `password` twice.
func filledForm(password: String = goodPassword) -> Form {
    var form = standardForm()
    form.answer(K.email, line: "alice@example.com")
    form.answer(K.password, line: password)
    form.answer(K.confirm, line: password)
    return form
}

/// The keys of the tests' fields, declared once: a field is named by its key everywhere else.
enum K {
    static let email = SignupForm.email
    static let password = SignupForm.password
    static let confirm = SignupForm.confirm
    static let age = SignupCoreTests.age
    static let height = SignupCoreTests.height
    static let terms = SignupCoreTests.terms
    static let plan = SignupCoreTests.plan
    static let a = FieldKey<String>("a")
    static let b = FieldKey<String>("b")
    static let later = FieldKey<String>("later")
    static let live = FieldKey<String>("live")
    static let name = FieldKey<String>("name")
    static let nick = FieldKey<String>("nick")
    static let normal = FieldKey<String>("normal")
    static let note = FieldKey<String>("note")
    static let pin = FieldKey<String>("pin")
    static let pinAgain = FieldKey<String>("pinAgain")
    static let planText = FieldKey<String>("plan")
    static let secret = FieldKey<String>("secret")
    static let team = FieldKey<String>("team")
    static let token = FieldKey<String>("token")
    static let username = FieldKey<String>("username")
    static let x = FieldKey<String>("x")
}

/// Whether running `change` notifies whoever ran `read`, as SwiftUI is told through `withObservationTracking`.
@MainActor func notifies(_ read: @escaping @MainActor () -> Void, when change: () -> Void) -> Bool {
    nonisolated(unsafe) var fired = false
    withObservationTracking { read() } onChange: { fired = true }
    change()
    return fired
}
