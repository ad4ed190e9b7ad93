import CLibedit
import Glibc

/// What a line read ends in: a value, never "" for end of input and never a crash.
public enum LineRead: Sendable, Equatable {
    /// A line, without its newline and otherwise as typed. A line longer than
    /// `TerminalSession.maximumLineBytes` comes back cut to just over that many UTF-8 bytes,
    /// so a caller that rejects longer lines rejects it.
    case line(String)
    /// Ctrl-D on an empty line, or the terminal went away.
    case endOfInput
    /// Ctrl-C (SIGINT) during the read. The session can read again.
    case interrupted
}

/// An interactive session on standard input and standard error, both terminals.
///
/// The conversation goes to standard error, so `signup --json | jq .` stays interactive.
/// Create it only when `isTerminal(0) && isTerminal(2)`; call `TerminalGuard.install()`
/// first (`init` installs it if that was not done). One session at a time.
/// A prompt is one line; wrap invisible escape sequences (colour) in `\u{1}` … `\u{1}`.
public final class TerminalSession {
    /// Lines longer than this many UTF-8 bytes are returned cut to just over it.
    public static let maximumLineBytes = LineSource.maximumLineBytes

    private let source: LineSource
    private var editor: EditLineHandle?
    private var history: HistoryHandle?
    private var inputStream: UnsafeMutablePointer<FILE>?
    private var outputStream: UnsafeMutablePointer<FILE>?
    private let initialMode: termios?
    private var closed = false

    /// Opens libedit on standard input with standard error as its output (emacs keys, an in-memory history).
    ///
    /// Sets a UTF-8 character locale first. A warning libedit would print for an unknown
    /// `TERM` is discarded; it then uses dumb-terminal settings. Without `escapeSequences`
    /// (`NO_COLOR`, `--plain`) libedit draws as on a dumb terminal too: editing keys still
    /// work, and redraws use only `\r`, `\b` and spaces.
    public init(programName: String, escapeSequences: Bool = true) {
        TerminalLocale.ensureUTF8()
        TerminalGuard.install()
        initialMode = try? Sys.terminalMode(0)
        source = LineSource(input: 0, output: 2)
        // Duplicates, so closing the streams never closes descriptors 0 and 2.
        let inputStream = (try? Sys.duplicate(0)).flatMap { try? Sys.openStream($0, mode: "r") }
        let outputStream = (try? Sys.duplicate(2)).flatMap { try? Sys.openStream($0, mode: "w") }
        self.inputStream = inputStream
        self.outputStream = outputStream
        guard let inputStream, let outputStream, let quiet = try? Sys.openNullStream() else { return }
        defer { Sys.closeStream(quiet) }
        guard let editor = EditLineHandle(program: programName, input: inputStream, output: outputStream, errors: quiet)
        else { return }
        editor.setErrorStream(outputStream)
        editor.setClientData(Unmanaged.passUnretained(source).toOpaque())
        if !escapeSequences { editor.setTerminal("dumb") }
        editor.setEditor("emacs")
        editor.setHandlesSignals(false)  // its handler would kill(0, sig) the whole process group
        editor.setPrompt(promptCallback)
        editor.setReadFunction(readCallback)
        if let history = HistoryHandle(size: 100) {
            editor.setHistory(history)
            self.history = history
        }
        source.editor = editor
        self.editor = editor
    }

    deinit { close() }

    /// Reads a line with libedit editing (arrows, backspace, Ctrl-A/E/U); with `remember`, a
    /// non-empty answer joins this session's history (answers to y/n questions should not).
    ///
    /// The history lives in memory only; it is never written to a file.
    public func readLine(prompt: String, remember: Bool = true) -> LineRead {
        let result = read(prompt: prompt, mode: .text)
        if remember, case .line(let line) = result, !line.isEmpty { history?.enter(line) }
        return result
    }

    /// Reads a secret: nothing is echoed for its characters, it never enters history, escape sequences are ignored.
    ///
    /// Backspace, Ctrl-U and Ctrl-W edit it; Enter ends it; a pasted password works.
    public func readSecret(prompt: String) -> LineRead {
        read(prompt: prompt, mode: .secret)
    }

    /// Writes `text` to standard error, after anything libedit has buffered.
    public func write(_ text: String) {
        if let outputStream { Sys.flush(outputStream) }
        var text = text
        text.withUTF8 { try? Sys.writeAll(2, UnsafeRawBufferPointer($0)) }
    }

    /// Ends libedit and the history and puts back the terminal mode found at `init`; safe to call twice.
    public func close() {
        guard !closed else { return }
        closed = true
        editor?.end()
        history?.end()
        editor = nil
        history = nil
        source.editor = nil
        if let inputStream { Sys.closeStream(inputStream) }
        if let outputStream { Sys.closeStream(outputStream) }
        inputStream = nil
        outputStream = nil
        if let initialMode { try? Sys.setTerminalMode(0, initialMode) }
    }

    private func read(prompt: String, mode: LineSource.Mode) -> LineRead {
        guard !closed, let editor else { return .endOfInput }
        source.setPrompt(prompt)
        source.begin(mode)
        // libedit prints the prompt, then switches the terminal to its editing mode on its first
        // read. Keys typed in between would be echoed by the terminal (a password in clear) and
        // edited by it (Ctrl-D lost). So echo and line editing go off before the prompt is printed.
        let before = try? Sys.terminalMode(0)
        if var quiet = before {
            quiet.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON)
            withUnsafeMutableBytes(of: &quiet.c_cc) { cc in
                cc[Int(VMIN)] = 1
                cc[Int(VTIME)] = 0
            }
            try? Sys.setTerminalMode(0, quiet)
        }
        GuardState.beginReading()
        let line = editor.getLine()
        GuardState.endReading()
        if let before { try? Sys.setTerminalMode(0, before) }
        if let outputStream { Sys.flush(outputStream) }
        switch (line, source.ending) {
        case (let line?, nil):
            if mode == .secret { return .line(source.takeSecret()) }
            return .line(line.hasSuffix("\n") ? String(line.dropLast()) : line)
        case (_, let ending):
            _ = source.takeSecret()
            write("\n")  // the next output starts on a fresh line
            return ending == .interrupted ? .interrupted : .endOfInput
        }
    }
}

/// libedit's prompt callback: the prompt of the session found through `EL_CLIENTDATA`.
private let promptCallback: signup_prompt_fn = { editor in
    guard let data = EditLineHandle.clientData(of: editor) else { return emptyPrompt }
    return Unmanaged<LineSource>.fromOpaque(data).takeUnretainedValue().prompt
}

/// libedit's read function (`EL_GETCFN`), reaching the session's `LineSource` through `EL_CLIENTDATA`.
private let readCallback: el_rfunc_t = { editor, character in
    guard let character, let data = EditLineHandle.clientData(of: editor) else { return -1 }
    return Unmanaged<LineSource>.fromOpaque(data).takeUnretainedValue().nextCharacter(into: character)
}

/// A prompt for a callback that finds no session (cannot happen: client data is set before any read).
nonisolated(unsafe) private let emptyPrompt: UnsafeMutablePointer<CChar> = {
    let empty = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
    empty.initialize(to: 0)
    return empty
}()
