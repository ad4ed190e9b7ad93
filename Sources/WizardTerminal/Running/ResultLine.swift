import Glibc
import SignupCore

/// Writes `line` and a line feed to standard output, every byte of it, as a program's result;
/// when it cannot be written, says so and exits the process with 74 (`EX_IOERR`).
///
/// ```swift
/// let username = await form.runOrExit { form in form.text(JoinKeys.username) }
/// printOrExit("Welcome, \(username)")
/// ```
///
/// The line a program prints after ``SignupCore/Form/runOrExit(_:texts:confirmsDiscard:presets:afterAnswer:reviewValue:isolation:submit:)``
/// is what a script waits for, so a line that was not written is a failure, not a success:
/// `print` loses it without a word when standard output is a full disk (`> /dev/full`) or closed
/// (`>&-`), and the program exits 0. Here such a failure is an error on the conversation
/// (`error: the result could not be written to standard output: No space left on device`, in the
/// language and on the descriptor of `options`), then exit 74. When standard output's reader
/// went away (a closed pipe, `| head -c0`) the program ends as SIGPIPE would, silently, as Unix
/// filters do.
///
/// The line is shown as `VisibleText.of` shows it: a control character in it (an answer's escape
/// sequence) cannot reach the terminal. What `print` buffered before is written first.
public func printOrExit(_ line: String, _ options: RunnerOptions = RunnerOptions(programName: RunnerOptions.thisProgram)) {
    fflush(nil)
    let text = VisibleText.of(line) + "\n"
    let failure: SystemError? = Array(text.utf8).withUnsafeBytes { bytes -> SystemError? in
        do throws(SystemError) {
            try Sys.writeAll(1, bytes)
            return nil
        } catch {
            return error
        }
    }
    guard let failure else { return }
    if failure.code == EPIPE { ProcessSignals.endAsBrokenPipe() }
    Conversation(style: .plain, quiet: false, fd: options.output, translation: options.translation).error(
        Translation.english("the result could not be written to standard output: {reason}",
                            ["reason": String(cString: strerror(failure.code))]))
    exit(74)  // EX_IOERR
}
