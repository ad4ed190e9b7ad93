import ArgumentParser
@testable import SignupCommand
import SignupCore
import Testing

/// Each error of swift-argument-parser that signup rewrites, made by the parser itself from a
/// command line, and the words a person then reads. The rewriting reads the parser's English
/// message: a new version of the parser that words one differently fails here, instead of
/// showing the catch-all sentence (or a typed secret) to people.
@Suite struct ParserMessageTests {
    static let cases: [(arguments: [String], shown: String)] = [
        (["list", "--bogus-SECRET"], "Unknown option (not shown: it may be a secret)"),
        (["list", "-pSECRET"], "Unknown option (not shown: it may be a secret)"),
        (["list", "SECRET"], "Unexpected argument (not shown: it may be a secret)"),
        (["list", "SECRET", "x"], "Unexpected argument (not shown: it may be a secret)"),
        (["list", "--db"], "Missing value for --db <path>"),
        (["verify"], "Missing <email>"),
        (["list", "--json=SECRET"], "--json does not take a value (the value is not shown: it may be a secret)"),
        (["create", "--password-fd", "SECRET"], "The value given for --password-fd <n> is not valid (not shown: it may be a secret)"),
    ]

    @Test(arguments: cases.indices)
    func theParsersErrorIsRewrittenToItsKind(index: Int) {
        let (arguments, shown) = Self.cases[index]
        do {
            _ = try Signup.parseAsRoot(arguments)
            Issue.record("\(arguments) parsed")
        } catch {
            let parser = Signup.message(for: error)
            let text = ParseErrorText.kind(of: parser, known: ParseErrorText.knownNames())
            #expect(text == shown, "the parser said: \(parser)")
            #expect(!text.contains("SECRET"))
        }
    }
}
