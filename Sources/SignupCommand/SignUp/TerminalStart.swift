import ArgumentParser
import SignupCore
import WizardTerminal

/// Opens the terminal session of an interactive run, or says why there cannot be one.
///
/// A session that cannot start (libedit's `el_init` failing, no descriptor left to duplicate)
/// is an error the person sees, never a silent end of input: "error: cannot start line editing:
/// REASON", exit 66 (the input cannot be read; nothing was asked, nothing stored), and with
/// `--json` the object `{"status":"terminal_error","reason":…}`.
enum TerminalStart {
    static let prefix = "cannot start line editing: "

    /// The session for one question outside the wizard (verify's password, delete's confirmation):
    /// escape sequences only for a known terminal without NO_COLOR.
    static func session(hint: String) throws -> TerminalSession {
        let environment = IO.environment()
        return try session(
            escapeSequences: TerminalCapabilities.knowsTerminal(environment: environment) && (environment["NO_COLOR"] ?? "").isEmpty,
            hint: hint)
    }

    /// The session on standard input and standard error; `hint` is a line that says what to do instead.
    static func session(escapeSequences: Bool, json: Bool = false, hint: String) throws -> TerminalSession {
        do {
            return try TerminalSession(programName: "signup", escapeSequences: escapeSequences)
        } catch {
            throw failed(error, json: json, hint: hint)
        }
    }

    /// The wizard's runner for `options` (`make` opens it); its session failing to start is said the same way.
    static func runner(_ options: RunnerOptions, json: Bool, hint: String,
                       make: (RunnerOptions) throws(TerminalError) -> TerminalRunner = { options throws(TerminalError) in try TerminalRunner(options) }) throws -> TerminalRunner {
        do {
            return try make(options)
        } catch {
            throw failed(error, json: json, hint: hint)
        }
    }

    private static func failed(_ error: TerminalError, json: Bool, hint: String) -> ExitCode {
        // The person reads it in their language; the JSON reason stays English, for programs.
        IO.write("error: " + About.english("cannot start line editing: {reason}", ["reason": error.description]) + "\n\(VisibleText.of(hint))\n", to: 2)
        if json { IO.write(JSONText.object([("status", "terminal_error"), ("reason", prefix + error.description)]) + "\n", to: 1) }
        return ExitCode(ExitStatus.incomplete)
    }
}
