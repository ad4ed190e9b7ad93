// The JSON policy file parser (`PolicyFile(json:)`, its format: docs/man/signup-policy.5).
//
// Input: the file's bytes.
// Checked: no crash (deep nesting, huge numbers, odd Unicode): a bad file is a thrown
// `PolicyFileError` with a non-empty reason; a file that parses gives a usable policy
// (lengths in order) whose rules run on a few passwords without trouble; a blocklist file
// of the same bytes yields trimmed, non-empty, non-comment words.
import Foundation
import FuzzSupport
import SignupCore

@main
enum FuzzPolicyFile {
    static func main() { runFuzzer(testOneInput) }
}

private let noStrength = StrengthEstimator { password, _ in StrengthEstimate(bits: Double(password.utf8.count * 4), isCommon: false) }

/// libFuzzer's entry for one input (also its C name, which a debug link resolves).
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let bytes = Data(input.rest())
    let text = String(decoding: bytes, as: UTF8.self)
    for word in PolicyFile.words(inBlocklist: text) {
        require(!word.isEmpty && !word.hasPrefix("#"), "a blocklist word is empty or a comment")
        require(word == word.trimmingCharacters(in: .whitespaces), "a blocklist word is not trimmed")
    }

    let file: PolicyFile
    do {
        file = try PolicyFile(json: bytes)
    } catch {
        require(!error.description.isEmpty, "a policy file error without a reason")
        return 0
    }
    let policy = file.policy
    require(policy.minLength >= 1 && policy.maxLength >= policy.minLength, "a parsed policy has lengths out of order")
    for password in ["", "Correct-Horse-Battery-9", "a", String(repeating: "Z9z!", count: 300)] {
        var form = SignupForm.make(policy: policy, strength: noStrength)
        form.answer(SignupForm.email, with: "alice@example.com")
        form.answer(SignupForm.password, with: password)
        form.answer(SignupForm.confirm, with: password)
        for error in [SignupForm.email, SignupForm.password, SignupForm.confirm].flatMap({ form.errors(for: $0) }) {
            require(error.code.hasPrefix(error.field + "."), "code \(error.code) does not start with its field")
        }
    }
    return 0
}
