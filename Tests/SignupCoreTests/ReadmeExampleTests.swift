import Foundation
import SignupCore
import Testing

/// The library example of SignupCore's articles (CoreGuide, GettingStarted), kept here so that it
/// keeps compiling and meaning what it says.
@Test func readmeLibraryExample() {
    let username = FieldKey<String>("username"), pin = FieldKey<String>("pin"), pinAgain = FieldKey<String>("pinAgain")
    var form = Form(fields: [
        Field(username, label: "User name",
              rules: [.required(message: "Pick a user name"), .minLength(3), .pattern("[a-z0-9_]+", .wholeMatch, message: "Use a-z, 0-9 and _")],
              normalize: { $0.trimmingCharacters(in: .whitespaces) }),
        Field(pin, label: "PIN", rules: [.required(), .pattern("[0-9]{4,8}", .wholeMatch, message: "Use 4 to 8 digits")], isSecret: true),
        Field(pinAgain, label: "PIN again", rules: [.required(), .equals(pin, message: "PINs do not match")],
              isSecret: true, dependsOn: [pin]),
    ])
    form.answer(username, with: "Bob!")
    #expect(form.visibleErrors(for: username).map(\.code) == ["username.invalid"])
    #expect(form.visibleErrors(for: pin) == [])
    var controller = SubmissionController(form: form)
    #expect(controller.begin() == nil)
    #expect(controller.fieldToRevisit == "username")
    controller.update { $0.answer(username, with: "bob") }
    controller.update { $0.answer(pin, with: "1234") }
    controller.update { $0.answer(pinAgain, with: "") }
    #expect(controller.begin() == nil, "an empty confirmation must not pass: .equals passes on an empty value")
    controller.update { $0.answer(pinAgain, with: "1234") }
    #expect(controller.begin() != nil)
}

/// GettingStarted's composed rules: the first of a group that fails, and a rank.
@Test func gettingStartedComposition() {
    var form = Form(fields: [
        Field(K.username, rules: [
            .required(),
            .firstFailure([.minLength(3), .pattern("[a-z0-9_]+", .wholeMatch)]),   // the first that fails
            .byPriority([.maxLength(30).priority(1), .custom("reserved", message: "Pick another") { value, _ in value != "admin" }]),
        ]),
    ])
    form.answer(K.username, with: "A!")
    #expect(codes(form.visibleErrors(for: K.username)) == ["username.tooShort"])
    form.answer(K.username, with: "admin")
    #expect(codes(form.visibleErrors(for: K.username)) == ["username.reserved"])
    form.answer(K.username, with: String(repeating: "a", count: 31))
    #expect(codes(form.visibleErrors(for: K.username)) == ["username.tooLong"])
}
