import Foundation
import SignupCore
import Testing

/// The README's library example, kept here so that it keeps compiling and meaning what it says.
@Test func readmeLibraryExample() {
    var form = Form(fields: [
        Field(name: "username", label: "User name",
              rules: [.required(message: "Pick a user name"), .minLength(3), .pattern("[a-z0-9_]+", message: "Use a-z, 0-9 and _")],
              normalize: { $0.trimmingCharacters(in: .whitespaces) }),
        Field(name: "pin", label: "PIN", rules: [.required(), .pattern("[0-9]{4,8}", message: "Use 4 to 8 digits")], isSecret: true),
        Field(name: "pinAgain", label: "PIN again", rules: [.required(), .equals(field: "pin", message: "PINs do not match")],
              isSecret: true, dependsOn: ["pin"]),
    ])
    form.answer("username", with: "Bob!")
    #expect(form.visibleErrors(for: "username").map(\.code) == ["username.invalid"])
    #expect(form.visibleErrors(for: "pin") == [])
    var controller = SubmissionController(form: form)
    #expect(controller.begin() == nil)
    #expect(controller.fieldToRevisit == "username")
    controller.update { $0.answer("username", with: "bob") }
    controller.update { $0.answer("pin", with: "1234") }
    controller.update { $0.answer("pinAgain", with: "") }
    #expect(controller.begin() == nil, "an empty confirmation must not pass: .equals passes on an empty value")
    controller.update { $0.answer("pinAgain", with: "1234") }
    #expect(controller.begin() != nil)
}
