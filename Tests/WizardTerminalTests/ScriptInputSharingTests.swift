import Glibc
import SignupCore
import Testing
import WizardTerminal

/// Several wizards reading one script: each takes its own lines, none reads away the next one's.
/// The script is written to the pipe all at once before the first wizard reads, as `printf … |`
/// or a here-document gives it: the first read returns every line.
@Suite struct ScriptInputSharingTests {
    static let who = FieldKey<String>("who")
    static let licence = FieldKey<String>("licence")
    static let nights = FieldKey<Int>("nights")
    static let first = Form(fields: [Field(who, label: "Traveller", rules: [.required()])])
    static let second = Form(fields: [
        Field(licence, label: "Driving licence number", rules: [.required()]),
        Field(nights, label: "Nights", rules: [.required(), .range(1...30)]),
    ])

    /// A pipe holding `script` (written whole, then closed) and one for the conversation.
    struct Pipes {
        var answers: [Int32] = [-1, -1]
        var talk: [Int32] = [-1, -1]

        init(_ script: String) throws {
            try #require(pipe(&answers) == 0 && pipe(&talk) == 0)
            let written = script.withCString { write(answers[1], $0, strlen($0)) }
            try #require(written == script.utf8.count)
            close(answers[1])
            // The conversation is small: the pipe's buffer holds it, nothing need read it meanwhile.
        }

        var options: RunnerOptions {
            var options = RunnerOptions(programName: "trip", environment: ["TERM": "xterm"])
            options.input = answers[0]
            options.output = talk[1]
            return options
        }

        func conversation() -> String {
            close(talk[1])
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while case let got = read(talk[0], &chunk, chunk.count), got > 0 { bytes += chunk[..<got] }
            close(talk[0])
            close(answers[0])
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    func runFirst(_ runner: TerminalRunner) -> WizardOutcome<String> {
        var wizard = Wizard<String>(form: Self.first, mode: runner.mode)
        return runner.run(&wizard) { form in .succeeded(form.text(Self.who)) }
    }

    func runSecond(_ runner: TerminalRunner) -> WizardOutcome<String> {
        var wizard = Wizard<String>(form: Self.second, mode: runner.mode)
        return runner.run(&wizard) { form in .succeeded("\(form.text(Self.licence)) \(form.value(Self.nights)!)") }
    }

    /// What the documentation offers for several forms in one conversation: one runner, two wizards.
    @Test func twoWizardsOnOneRunnerEachGetTheirLines() throws {
        let pipes = try Pipes("Ann\nAB123456\n3\n")
        let runner = try TerminalRunner(pipes.options)
        let one = runFirst(runner)
        let two = runSecond(runner)
        runner.close()
        let conversation = pipes.conversation()
        #expect(one == .succeeded("Ann"), "\(conversation)")
        #expect(two == .succeeded("AB123456 3"), "\(conversation)")
    }

    /// Two runners one after the other on the same descriptor: what two `runOrExit` calls make.
    @Test func aSecondRunnerOnTheSameInputGetsTheLinesAfterTheFirsts() throws {
        let pipes = try Pipes("Ann\r\nAB123456\r\n3\r\n")
        let runner = try TerminalRunner(pipes.options)
        let one = runFirst(runner)
        runner.close()
        let again = try TerminalRunner(pipes.options)
        let two = runSecond(again)
        again.close()
        let conversation = pipes.conversation()
        #expect(one == .succeeded("Ann"), "\(conversation)")
        #expect(two == .succeeded("AB123456 3"), "\(conversation)")
    }

    /// A script in a regular file: after a wizard, the file's offset is right after its last
    /// line, so the program (or the next program of a shell script) reads on from there.
    @Test func aFileIsLeftRightAfterTheLinesAWizardTook() throws {
        var template = Array("/tmp/script-input.XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        try #require(fd >= 0)
        defer { close(fd); unlink(template) }
        let script = "Ann\nAB123456\n3\nthe rest\n"
        _ = script.withCString { write(fd, $0, strlen($0)) }
        lseek(fd, 0, SEEK_SET)
        var talk: [Int32] = [-1, -1]
        try #require(pipe(&talk) == 0)
        defer { close(talk[0]); close(talk[1]) }
        var options = RunnerOptions(programName: "trip", environment: ["TERM": "xterm"])
        options.input = fd
        options.output = talk[1]
        let runner = try TerminalRunner(options)
        #expect(runFirst(runner) == .succeeded("Ann"))
        runner.close()
        #expect(lseek(fd, 0, SEEK_CUR) == 4)
        let again = try TerminalRunner(options)
        #expect(runSecond(again) == .succeeded("AB123456 3"))
        again.close()
        var rest = [UInt8](repeating: 0, count: 64)
        let got = read(fd, &rest, rest.count)
        #expect(String(decoding: rest[..<max(got, 0)], as: UTF8.self) == "the rest\n")
    }
}
