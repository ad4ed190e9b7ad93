// The password and confirmation fields under the standard, strict and nist policies, with
// Unicode normalization and zxcvbn strength (SPEC 2 and 4).
//
// Input: a policy byte (bit 7: the confirmation differs by one appended "x"), a short email,
// then the password's bytes (bad UTF-8 becomes U+FFFD).
// Checked: no crash; no error message of any field contains the password (4 characters or
// more) in any normalization form, unless the password is part of the policy's fixed
// wording; a mismatched confirmation is reported; an accepted password is kept as the NFC
// of what was typed and its NFC and NFKC agree (what other software will hash), holds no
// control or invisible character, has the policy's length and classes, is at least as
// strong as required, and under nist is not common and does not hold the email's local part.
import Foundation
import FuzzSupport
import PasswordStrength
import SignupCore

@main
enum FuzzPassword {
    static func main() { runFuzzer(testOneInput) }
}

private let policies: [PasswordPolicy] = [.standard, .strict, .nist]
private let estimator = StrengthEstimator.zxcvbn
/// The sign-up form's fields, in order.
private let signupKeys = [SignupForm.email, SignupForm.password, SignupForm.confirm]

/// Every message each policy gives for inputs that trip each rule: wording a password may match by chance.
private let vocabulary: [String: [String]] = Dictionary(uniqueKeysWithValues: policies.map { policy in
    let tripwires = [
        "", "a", "abc", "abcdefgh", "ABCDEFGH1", String(repeating: "a", count: 1100), "Aa1!\tbcdefgh",
        "password", "passwordpassword1A", "\u{FF21}bcdefgh12345678!", "\u{FB01}nancial-Secret-99",
        "a\u{200B}bcdefgh1A-xyz-77", "\u{FEFF}Abcdefgh123456", "alicealicealice1A!", "Correct-Horse-Battery-9",
    ]
    var messages: [String] = []
    for email in ["alice@example.com", "", "bad", String(repeating: "a", count: 300) + "@example.com"] {
        for password in tripwires {
            messages += errors(policy: policy, email: email, password: password, confirm: password + "x").map(\.message)
        }
    }
    return (policy.name, messages)
})

private func errors(policy: PasswordPolicy, email: String, password: String, confirm: String) -> [FieldError] {
    var form = SignupForm.make(policy: policy, strength: estimator)
    form.answer(SignupForm.email, with: email)
    form.answer(SignupForm.password, with: password)
    form.answer(SignupForm.confirm, with: confirm)
    return signupKeys.flatMap { form.errors(for: $0) }
}

/// libFuzzer's entry for one input (also its C name, which a debug link resolves).
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let choice = input.byte()
    let policy = policies[Int(choice & 0x7F) % policies.count]
    let mismatched = choice & 0x80 != 0
    let email = input.shortText()
    let password = String(decoding: input.rest(), as: UTF8.self)
    let confirm = mismatched ? password + "x" : password

    var form = SignupForm.make(policy: policy, strength: estimator)
    form.answer(SignupForm.email, with: email)
    form.answer(SignupForm.password, with: password)
    form.answer(SignupForm.confirm, with: confirm)
    let passwordErrors = form.errors(for: SignupForm.password)
    let confirmErrors = form.errors(for: SignupForm.confirm)

    let forms = Set([password, password.precomposedStringWithCanonicalMapping, password.precomposedStringWithCompatibilityMapping,
                     password.decomposedStringWithCanonicalMapping])
    let wording = vocabulary[policy.name] ?? []
    for error in signupKeys.flatMap({ form.errors(for: $0) }) {
        for secret in forms where error.message.reveals(secret) && !wording.contains(where: { $0.includes(secret) }) {
            require(false, "the message of \(error.code) contains the password")
        }
        require(error.code.hasPrefix(error.field + "."), "code \(error.code) does not start with its field")
    }
    if mismatched && passwordErrors.isEmpty {
        require(!confirmErrors.isEmpty, "a different confirmation was accepted")
    }
    guard passwordErrors.isEmpty, confirmErrors.isEmpty else { return 0 }

    let value = form[SignupForm.password]?.value ?? ""
    if foundationNormalizes(password) {
        let nfc = password.precomposedStringWithCanonicalMapping
        require(value == nfc, "an accepted password is not kept as the NFC of what was typed", known: "nfkc")
        require(nfc == password.precomposedStringWithCompatibilityMapping, "an accepted password's NFC and NFKC differ", known: "nfkc")
    }
    require(!value.unicodeScalars.contains { $0.properties.generalCategory == .control }, "an accepted password holds a control character")
    require(!value.unicodeScalars.contains { $0.properties.isDefaultIgnorableCodePoint }, "an accepted password holds an invisible character", known: "invisible")
    require(value.count >= policy.minLength && value.count <= policy.maxLength, "an accepted password of \(value.count) characters")
    for requirement in policy.requiredClasses {
        let holds: Bool
        switch requirement {
        case .digit: holds = value.contains { $0.isNumber }
        case .uppercase: holds = value.contains { $0.isUppercase }
        case .lowercase: holds = value.contains { $0.isLowercase }
        case .symbol: holds = value.contains { !$0.isLetter && !$0.isNumber && !$0.isWhitespace }
        }
        require(holds, "an accepted password lacks \(requirement)")
    }
    let local = String(email.trimmingCharacters(in: .whitespaces).split(separator: "@", omittingEmptySubsequences: false).dropLast().joined(separator: "@"))
    // Known words can only lower an estimate: without them it must reach the level too.
    require(estimator.estimate(value, []).level >= policy.minimumStrength, "an accepted password is weaker than \(policy.minimumStrength.label)")
    if policy.rejectsCommon {
        require(!estimator.estimate(value, []).isCommon, "an accepted password is common")
    }
    if policy.rejectsEmailLocalPart, local.count >= 3 {
        require(!value.lowercased().includes(local.lowercased()), "an accepted password holds the email's local part")
    }
    return 0
}
