import ArgumentParser
import WizardTerminal

/// Opens the terminal session of an interactive run, or says why there cannot be one.
///
/// A session that cannot start (libedit's `el_init` failing, no descriptor left to duplicate)
/// is an error the person sees, never a silent end of input: "error: cannot start line editing:
/// REASON", exit 66 (the input cannot be read; nothing was asked, nothing stored), and with
/// `--json` the object `{"status":"terminal_error","reason":…}`.
enum TerminalStart {
    static let prefix = "cannot start line editing: "

    /// The session on standard input and standard error; `hint` is a line that says what to do instead.
    static func session(escapeSequences: Bool, json: Bool = false, hint: String) throws -> TerminalSession {
        do {
            return try TerminalSession(programName: "signup", escapeSequences: escapeSequences)
        } catch {
            IO.write("error: \(prefix)\(error.description)\n\(hint)\n", to: 2)
            if json { IO.write(JSONText.object([("status", "terminal_error"), ("reason", prefix + error.description)]) + "\n", to: 1) }
            throw ExitCode(ExitStatus.incomplete)
        }
    }
}
