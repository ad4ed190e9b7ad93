import Glibc
import Testing
import WizardTerminal

/// Writes which signal ended the wait to standard output: a C function, as `setDeadlineEnding` takes.
private let ending: @convention(c) (Int32) -> Void = { sig in
    let text: StaticString = sig == SIGALRM ? "ending: alarm\n" : sig == SIGHUP ? "ending: hang-up\n" : "ending: other\n"
    _ = write(1, text.utf8Start, text.utf8CodeUnitCount)
}

/// `TerminalGuard.setDeadlineEnding(_:)`: what a program records when a signal ends a bounded wait.
/// Each case runs in a process of its own (the guard and the alarm belong to the whole process).
@Suite struct DeadlineEndingTests {
    @Test func theDeadlineRunsTheEndingThenExitsWithItsStatus() async throws {
        let result = await #expect(processExitsWith: .exitCode(75), observing: [\.standardOutputContent]) {
            TerminalGuard.install()
            TerminalGuard.setDeadlineEnding(ending)
            TerminalGuard.armDeadline(seconds: 1, conversation: "", status: 75)
            while true { pause() }
        }
        #expect(String(decoding: try #require(result).standardOutputContent, as: UTF8.self) == "ending: alarm\n")
    }

    @Test func aHangUpDuringTheWaitRunsTheEndingThenDiesByTheSignal() async throws {
        let result = await #expect(processExitsWith: .signal(SIGHUP), observing: [\.standardOutputContent]) {
            TerminalGuard.install()
            TerminalGuard.setDeadlineEnding(ending)
            TerminalGuard.armDeadline(seconds: 30, conversation: "", status: 75)
            raise(SIGHUP)
            while true { pause() }
        }
        #expect(String(decoding: try #require(result).standardOutputContent, as: UTF8.self) == "ending: hang-up\n")
    }

    @Test func withNoDeadlineArmedTheEndingDoesNotRun() async throws {
        let result = await #expect(processExitsWith: .signal(SIGHUP), observing: [\.standardOutputContent]) {
            TerminalGuard.install()
            TerminalGuard.setDeadlineEnding(ending)
            TerminalGuard.armDeadline(seconds: 30, conversation: "", status: 75)
            TerminalGuard.disarmDeadline()
            raise(SIGHUP)
            while true { pause() }
        }
        let output = String(decoding: try #require(result).standardOutputContent, as: UTF8.self)
        #expect(!output.contains("ending:"), "\(output.debugDescription)")
    }
}
