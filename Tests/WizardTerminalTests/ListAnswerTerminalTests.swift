import Foundation
import Glibc
import SignupCore
import Testing
import WizardTerminal

/// A list and an optional asked by the real runner at a real pseudo-terminal: an edit form's
/// list is on the line to edit, where it can be changed, and Enter on an empty optional is nil.
@Suite(.serialized, .signalStateLock) struct ListAnswerTerminalTests {
    @Test func anEditFormsListIsOnTheLineToEdit() throws {
        let pair = try PseudoTerminalPair()
        var options = RunnerOptions(programName: "test", environment: ["TERM": "xterm"])
        options.input = pair.slave
        options.output = pair.slave
        options.interactive = true
        let runner = try TerminalRunner(options)
        defer { runner.close() }
        let form = ListAnswerScriptTests.form().opening(on: [.value(nameKey, "ann"), .value(ListAnswerScriptTests.flavours, [.mint])])
        var wizard = Wizard<String>(form: form, mode: runner.mode)
        // What a person types once each prompt is shown: Enter keeps the name, Ctrl-A and
        // `vanilla, ` put a flavour before the mint on the line, Enter leaves the nicknames empty
        // and the shoe size nil.
        let person = Person(pair, [("Name: ", "\r"), ("separated by commas): ", "\u{1}vanilla, \r"), ("Nicknames", "\r"), ("Shoe size: ", "\r"), ("Submit", "y\r")])
        let outcome = runner.run(&wizard) { form in
            .succeeded("\(form.value(nameKey) ?? "") \(form.value(ListAnswerScriptTests.flavours).map { $0.map(\.rawValue).sorted() } ?? []) "
                + "\(form.value(ListAnswerScriptTests.nicknames) ?? ["?"]) \(form.value(ListAnswerScriptTests.shoeSize).map(String.init) ?? "nil")")
        }
        let shown = person.finish()
        #expect(outcome == .succeeded("ann [\"mint\", \"vanilla\"] [] nil"), "\(shown.debugDescription)")
        #expect(shown.contains("Flavours (vanilla, chocolate, mint; separated by commas): "), "\(shown.debugDescription)")
        #expect(shown.contains("mint"), "the record's set was not on the line: \(shown.debugDescription)")
    }
}

/// Someone at the terminal: reads what the program draws and types each answer once its prompt
/// has been drawn (type-ahead before a first prompt is discarded, as it should be).
private final class Person: @unchecked Sendable {
    private let pair: PseudoTerminalPair
    private var pending: [(prompt: String, keys: String)]
    private var thread: Thread?
    private let lock = NSLock()
    private var seen: [UInt8] = []
    private var done = false

    init(_ pair: PseudoTerminalPair, _ answers: [(prompt: String, keys: String)]) {
        self.pair = pair
        self.pending = answers
        let thread = Thread { [self] in self.watch() }
        self.thread = thread
        thread.start()
    }

    /// Reads what is drawn; types the next answer once its prompt appears after the last one.
    private func watch() {
        var consumed = 0
        let deadline = Date().addingTimeInterval(20)
        while !lock.withLock({ done }) {
            // A prompt that never comes ends the input, so the test fails instead of hanging.
            if Date() > deadline, !pending.isEmpty { pair.type("\u{3}\u{4}") }
            var entry = pollfd(fd: pair.master, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 20) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = read(pair.master, &buffer, buffer.count)
            guard n > 0 else { continue }
            let text = lock.withLock {
                seen += buffer[0..<n]
                return String(decoding: seen, as: UTF8.self)
            }
            let rest = text.dropFirst(consumed)
            if let next = pending.first, let found = rest.range(of: next.prompt) {
                consumed = text.distance(from: text.startIndex, to: found.upperBound)
                pending.removeFirst()
                pair.type(next.keys)
            }
        }
    }

    /// Stops reading; everything the program drew.
    func finish() -> String {
        usleep(100_000)
        lock.withLock { done = true }
        while thread?.isFinished == false { usleep(10_000) }
        return lock.withLock { String(decoding: seen, as: UTF8.self) }
    }
}
