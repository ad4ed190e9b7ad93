// The email field and the store's unique key of an email.
//
// Input: the bytes of one answer (bad UTF-8 becomes U+FFFD, as no reader would pass it on).
// Checked: no crash; the key is idempotent and the same for canonically equivalent
// spellings, another for final sigma (another mailbox than sigma), and the same for an accepted address's domain in its IDNA ASCII (punycode)
// form; a domain is refused as email.domainInvalid only when IDNA refuses it; an accepted
// address has a non-empty key, keeps its key and
// its verdict with spaces around it, and has the standard policy's shape, checked here independently:
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
    // Final sigma and sigma are different names, which a mail server may give different owners.
    if sigma != raw { require(AccountStore.key(forEmail: sigma) != key, "final sigma and sigma share a key", known: "casefold") }

    let (accepted, value) = verdict(raw)
    guard accepted else { return 0 }
    require(!key.isEmpty, "an accepted address has an empty key")
    let padded = " " + raw + " "
    require(verdict(padded).accepted, "spaces around an accepted address make it refused")
    require(AccountStore.key(forEmail: padded) == key, "spaces around an address change its key")
    checkShape(value)
    checkPunycode(value, key: key)
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
        let ownRules: Set<String> = [
            "email.invisibleCharacter", "email.mixedScripts", "email.stackedMarks", "email.compatibilityCharacter", "email.domainInvalid",
        ]
        require(errors.allSatisfy { ownRules.contains($0.code) }, "the rule refused what EmailSyntax accepts: \(errors.map(\.code))")
    }
    return (accepted, value)
}

/// Letters whose UTS #46 mapping is their lowercase (`lowercased()`), so their punycode is simple to
/// write here: Latin-1 and Latin Extended-A but `ŉ`, the basic Greek and Cyrillic alphabets, kana and
/// the common CJK ideographs. Others (Cherokee, lunate sigma…) map otherwise and are not checked.
private func mapsByLowercase(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0..<0x80, 0xC0...0xD6, 0xD8...0xF6, 0xF8...0x148, 0x14A...0x17E, 0x386, 0x388...0x3CE, 0x400...0x45F,
         0x3041...0x3096, 0x30A1...0x30FA, 0x4E00...0x9FFF:
        true
    default:
        false
    }
}

/// An accepted address's domain, written label by label in punycode (RFC 3492's encoder below:
/// the fuzzer has no other), has the same key.
private func checkPunycode(_ address: String, key: String) {
    guard let at = address.lastIndex(of: "@") else { return }
    let domain = address[address.index(after: at)...]
    guard domain.unicodeScalars.allSatisfy(mapsByLowercase) else { return }
    var labels: [String] = []
    for label in domain.split(separator: ".", omittingEmptySubsequences: false) {
        // UTS #46 maps before it encodes: the lowercase NFC of the label is what is encoded.
        let mapped = String(label).lowercased().precomposedStringWithCanonicalMapping
        if mapped.unicodeScalars.allSatisfy(\.isASCII) { labels.append(mapped); continue }
        // Labels whose mapping lowercased() does not match (compatibility characters) are refused earlier.
        guard let encoded = punycode(mapped) else { return }
        labels.append("xn--" + encoded)
    }
    let ascii = String(address[...at]) + labels.joined(separator: ".")
    require(AccountStore.key(forEmail: ascii) == key, "the punycode spelling of an accepted domain changes the key: \(ascii)")
}

/// RFC 3492's encoder, for a label of lowercase scalars; nil on overflow.
private func punycode(_ label: String) -> String? {
    let input = label.unicodeScalars.map(\.value)
    let base: UInt32 = 36, tMin: UInt32 = 1, tMax: UInt32 = 26, skew: UInt32 = 38, damp: UInt32 = 700
    func digit(_ d: UInt32) -> Character { Character(Unicode.Scalar(d < 26 ? d + 97 : d + 22)!) }
    func adapt(_ delta: UInt32, _ count: UInt32, _ first: Bool) -> UInt32 {
        var delta = first ? delta / damp : delta / 2
        delta += delta / count
        var k: UInt32 = 0
        while delta > ((base - tMin) * tMax) / 2 { delta /= base - tMin; k += base }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }
    var output = String(input.filter { $0 < 0x80 }.map { Character(Unicode.Scalar($0)!) })
    let basic = UInt32(output.count)
    var handled = basic
    if basic > 0 { output.append("-") }
    var n: UInt32 = 0x80, delta: UInt32 = 0, bias: UInt32 = 72
    while handled < UInt32(input.count) {
        let m = input.filter { $0 >= n }.min()!
        let (product, overflow) = (m - n).multipliedReportingOverflow(by: handled + 1)
        guard !overflow else { return nil }
        delta += product
        n = m
        for c in input {
            if c < n { delta += 1 }
            if c == n {
                var q = delta
                var k = base
                while true {
                    let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                    if q < t { break }
                    output.append(digit(t + (q - t) % (base - t)))
                    q = (q - t) / (base - t)
                    k += base
                }
                output.append(digit(q))
                bias = adapt(delta, handled + 1, handled == basic)
                delta = 0
                handled += 1
            }
        }
        delta += 1
        n += 1
    }
    return output
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
