import Foundation
import SignupCore
import Testing

/// The README's library example, kept here so that it keeps compiling and meaning what it says.
@Test func readmeLibraryExample() {
    var form = Form(fields: [
        Field(K.username, label: "User name",
              rules: [.required(message: "Pick a user name"), .minLength(3), .pattern("[a-z0-9_]+", .wholeMatch, message: "Use a-z, 0-9 and _")],
              normalize: { $0.trimmingCharacters(in: .whitespaces) }),
        Field(K.pin, label: "PIN", rules: [.required(), .pattern("[0-9]{4,8}", .wholeMatch, message: "Use 4 to 8 digits")], isSecret: true),
        Field(K.pinAgain, label: "PIN again", rules: [.required(), .equals(K.pin, message: "PINs do not match")],
              isSecret: true, dependsOn: [K.pin]),
    ])
    form.answer(K.username, line: "Bob!")
    #expect(form.visibleErrors(for: K.username).map(\.code) == ["username.invalid"])
    #expect(form.visibleErrors(for: K.pin) == [])
    var controller = SubmissionController(form: form)
    #expect(controller.begin() == nil)
    #expect(controller.fieldToRevisit == "username")
    controller.update { $0.answer(K.username, line: "bob") }
    controller.update { $0.answer(K.pin, line: "1234") }
    controller.update { $0.answer(K.pinAgain, line: "") }
    #expect(controller.begin() == nil, "an empty confirmation must not pass: .equals passes on an empty value")
    controller.update { $0.answer(K.pinAgain, line: "1234") }
    #expect(controller.begin() != nil)
}
