// The email field (SPEC 2) and the store's unique key of an email.
//
// Input: the bytes of one answer (bad UTF-8 becomes U+FFFD, as no reader would pass it on).
// Checked: no crash; the key is idempotent and the same for canonically equivalent
// spellings and for final sigma; an accepted address has a non-empty key, keeps its key and
// its verdict with spaces around it, and has SPEC 2's shape, checked here independently:
// at most 254 bytes, one "@", a local part of 1-64 bytes of letters, marks, digits and the
// listed symbols with no leading, trailing or double dot, a domain of two or more labels of
// 1-63 bytes of letters, marks, digits and "-" not at either end, a last label not all
// digits, and no invisible (default-ignorable) character.
import AccountStore
import Foundation
import FuzzSupport
import SignupCore

@main
enum FuzzEmail {
    static func main() { runFuzzer(testOneInput) }
}

/// The email field needs no strength: a constant estimator keeps the target fast.
private let noStrength = StrengthEstimator { _, _ in StrengthEstimate(bits: 100, isCommon: false) }
private let form = SignupForm.make(policy: .standard, strength: noStrength)

/// libFuzzer's entry for one input (also its C name, which a debug link resolves).
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let raw = String(decoding: input.rest(), as: UTF8.self)

    let key = AccountStore.key(forEmail: raw)
    require(AccountStore.key(forEmail: key) == key, "the key is not idempotent")
    if foundationNormalizes(raw) {
        require(AccountStore.key(forEmail: raw.decomposedStringWithCanonicalMapping) == key, "NFD spelling changes the key")
        require(AccountStore.key(forEmail: raw.precomposedStringWithCanonicalMapping) == key, "NFC spelling changes the key")
    }
    var sigma = raw
    sigma.unicodeScalars = String.UnicodeScalarView(raw.unicodeScalars.map { $0 == "ς" ? "σ" : $0 })
    require(AccountStore.key(forEmail: sigma) == key, "final sigma changes the key", known: "casefold")

    let (accepted, value) = verdict(raw)
    guard accepted else { return 0 }
    require(!key.isEmpty, "an accepted address has an empty key")
    let padded = " " + raw + " "
    require(verdict(padded).accepted, "spaces around an accepted address make it refused")
    require(AccountStore.key(forEmail: padded) == key, "spaces around an address change its key")
    checkShape(value)
    return 0
}

/// Whether the email field accepts `raw`, and the value it keeps.
private func verdict(_ raw: String) -> (accepted: Bool, value: String) {
    var answered = form
    answered.answer(SignupForm.email, with: raw)
    let value = answered[SignupForm.email]?.value ?? ""
    let errors = answered.errors(for: SignupForm.email)
    let accepted = errors.isEmpty
    // The field is the syntax plus rules of their own: the refusal of invisible characters, and
    // of look-alike addresses (mixed alphabets in one part, stacked accents).
    if accepted {
        require(EmailSyntax.check(value) == .valid, "the rule accepted what EmailSyntax refuses")
    } else if EmailSyntax.check(value) == .valid {
        let ownRules: Set<String> = ["email.invisibleCharacter", "email.mixedScripts", "email.stackedMarks", "email.compatibilityCharacter"]
        require(errors.allSatisfy { ownRules.contains($0.code) }, "the rule refused what EmailSyntax accepts: \(errors.map(\.code))")
    }
    return (accepted, value)
}

private let localSymbols = Set("!#$%&'*+/=?^_`{|}~-".unicodeScalars)

private func isLetterMarkOrDigit(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
         .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber:
        return true
    default:
        return false
    }
}

/// SPEC 2's shape of an accepted address, written apart from `EmailSyntax`.
private func checkShape(_ address: String) {
    require(address.utf8.count <= 254, "accepted: over 254 bytes")
    let parts = address.split(separator: "@", omittingEmptySubsequences: false)
    require(parts.count == 2, "accepted: not exactly one @")
    let local = parts[0], domain = parts[1]
    require((1...64).contains(local.utf8.count), "accepted: local part of \(local.utf8.count) bytes")
    require(!local.hasPrefix(".") && !local.hasSuffix(".") && !String(local).includes(".."), "accepted: bad dots in the local part")
    require(local.unicodeScalars.allSatisfy { isLetterMarkOrDigit($0) || localSymbols.contains($0) || $0 == "." },
            "accepted: a character the local part may not hold")
    let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
    require(labels.count >= 2, "accepted: fewer than two labels")
    for label in labels {
        require((1...63).contains(label.utf8.count), "accepted: a label of \(label.utf8.count) bytes")
        require(!label.hasPrefix("-") && !label.hasSuffix("-"), "accepted: a label with a hyphen at an end")
        require(label.unicodeScalars.allSatisfy { isLetterMarkOrDigit($0) || $0 == "-" }, "accepted: a character a label may not hold")
    }
    require(!labels.last!.unicodeScalars.allSatisfy { $0.properties.generalCategory == .decimalNumber },
            "accepted: an all-digit last label")
    require(!address.unicodeScalars.contains { $0.properties.isDefaultIgnorableCodePoint },
            "accepted: an invisible (default-ignorable) character", known: "invisible")
}
