import SignupCore
import Testing

/// An email's domain goes through IDNA (UTS #46, nontransitional): what no mail can reach is
/// refused with its own code, `email.domainInvalid`.
@Suite struct DomainRuleTests {
    func codes(_ email: String) -> [String] {
        var form = standardForm()
        form.answer(SignupForm.email, with: email)
        return form.errors(for: SignupForm.email).map(\.code)
    }

    /// Twenty-one Han letters: 63 bytes of UTF-8, 70 once encoded as an xn-- label.
    static let longOnceEncoded = "鶻溲篤釘冶覙淠咣戓屽綖訊涏纼鎙嬍靶淪侭榽舾"

    @Test(arguments: [
        "b@xn--zz.de",  // an xn-- label that does not decode
        "b@xn--a.de",  // decodes to a control character
        "b@xn--ls8h.la",  // decodes to an emoji, which UTS #46 disallows
        "b@\(longOnceEncoded).cn",  // a label over 63 octets once encoded
        "b@ab--cd.bücher.de",  // a hyphen in the third and fourth places, beside a Unicode label
    ])
    func anInvalidInternationalDomainIsRefusedWithItsOwnCode(email: String) {
        #expect(codes(email) == ["email.domainInvalid"], "\(email)")
    }

    @Test(arguments: [
        "a@bücher.de", "a@BÜCHER.de", "a@xn--bcher-kva.de", "a@XN--BCHER-KVA.DE", "a@straße.de", "a@οδυσσεας.gr",
        "a@例え.jp", "a@example.com",
        // An ASCII domain is not judged by UTS #46's hyphen rule: RFC 5321 allows it, and it was accepted before.
        "a@ab--cd.com",
        // The local part is never an IDN: an xn-- there is just letters.
        "xn--zz@example.com",
    ])
    func aValidDomainIsAccepted(email: String) {
        #expect(codes(email) == [], "\(email)")
    }
}
