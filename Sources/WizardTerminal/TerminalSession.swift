import CLibedit
import Glibc
import SignupCore

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
    /// A line that cannot be an answer: bytes that are not UTF-8 (never replaced by U+FFFD).
    case unreadable(InputProblem)
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
    /// The editor of the no-escape mode, in place of libedit (whose dumb mode garbles a line that wraps).
    private var scrolling: ScrollingLineEditor?
    private var history: HistoryHandle?
    private var inputStream: UnsafeMutablePointer<FILE>?
    private var outputStream: UnsafeMutablePointer<FILE>?
    private let initialMode: termios?
    /// The mode kept for the whole session, between lines too: no echo, no kernel line editing.
    private let sessionMode: termios?
    private var closed = false

    /// Opens an editor on standard input with standard error as its output (emacs keys, an in-memory history).
    ///
    /// Sets a UTF-8 character locale first. Without `escapeSequences` (`NO_COLOR`, `--plain`,
    /// `TERM` dumb, unset or unknown) lines are edited by `ScrollingLineEditor` instead: the
    /// same keys, one row that scrolls sideways and never wraps, redrawn with only `\r`, `\b`
    /// and spaces.
    public init(programName: String, escapeSequences: Bool = true) {
        TerminalLocale.ensureUTF8()
        TerminalGuard.install()
        initialMode = try? Sys.terminalMode(0)
        sessionMode = initialMode.map(Self.quiet)
        source = LineSource(input: 0, output: 2)
        // From now until `close()`, keys typed ahead are never echoed by the terminal: not
        // between two prompts, not while the program works (a password typed too early stays
        // unseen, and is read or discarded).
        if let sessionMode { try? Sys.setTerminalMode(0, sessionMode) }
        // Duplicates, so closing the streams never closes descriptors 0 and 2.
        let inputStream = (try? Sys.duplicate(0)).flatMap { try? Sys.openStream($0, mode: "r") }
        let outputStream = (try? Sys.duplicate(2)).flatMap { try? Sys.openStream($0, mode: "w") }
        self.inputStream = inputStream
        self.outputStream = outputStream
        guard escapeSequences else {
            let scrolling = ScrollingLineEditor(output: 2)
            source.editor = scrolling
            self.scrolling = scrolling
            return
        }
        guard let inputStream, let outputStream, let quiet = try? Sys.openNullStream() else { return }
        defer { Sys.closeStream(quiet) }
        guard let editor = EditLineHandle(program: programName, input: inputStream, output: outputStream, errors: quiet)
        else { return }
        editor.setErrorStream(outputStream)
        editor.setClientData(Unmanaged.passUnretained(source).toOpaque())
        editor.setEditor("emacs")
        editor.setHandlesSignals(false)  // its handler would kill(0, sig) the whole process group
        _ = editor.setSessionModes()
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

    /// Reads a line with editing keys (arrows, backspace, Ctrl-A/E/K/U/W); with `remember`, a
    /// non-empty answer joins this session's history (answers to y/n questions should not).
    ///
    /// The history lives in memory only; it is never written to a file.
    ///
    /// Without `remember` (a question), Up and Down recall nothing either. `initial` is put on the
    /// line to start from, as `VisibleText.of` shows it; Enter keeps it.
    public func readLine(prompt: String, remember: Bool = true, initial: String = "") -> LineRead {
        let result = read(prompt: prompt, mode: .text, historyKeys: remember, initial: VisibleText.of(initial))
        if remember, case .line(let line) = result, !line.isEmpty {
            history?.enter(line)
            scrolling?.remember(line)
        }
        return result
    }

    /// Throws away everything typed before now and not yet read, as `sudo` and `ssh` do before a
    /// prompt: keys typed before an error or a question appeared must not answer what comes next.
    public func discardTypeAhead() {
        guard !closed else { return }
        Sys.discardInput(0)
        source.discardPending()
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
        // Keys typed while the program worked must not reach the shell after it (a password typed
        // too late would be echoed there, or run as a command).
        Sys.discardInput(0)
        editor?.end()
        history?.end()
        editor = nil
        history = nil
        scrolling = nil
        source.editor = nil
        if let inputStream { Sys.closeStream(inputStream) }
        if let outputStream { Sys.closeStream(outputStream) }
        inputStream = nil
        outputStream = nil
        if let initialMode { try? Sys.setTerminalMode(0, initialMode) }
    }

    /// `mode` with echo, kernel line editing and CR/LF translation off; signals still on.
    private static func quiet(_ mode: termios) -> termios {
        var quiet = mode
        quiet.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | IEXTEN)
        quiet.c_iflag &= ~tcflag_t(ICRNL | INLCR | IGNCR)
        withUnsafeMutableBytes(of: &quiet.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        return quiet
    }

    private func read(prompt: String, mode: LineSource.Mode, historyKeys: Bool = false, initial: String = "") -> LineRead {
        guard !closed, editor != nil || scrolling != nil else { return .endOfInput }
        source.setPrompt(prompt)
        if !initial.isEmpty { editor?.push(initial) }
        source.begin(mode, historyKeys: historyKeys)
        // libedit prints the prompt, then switches the terminal to its editing mode on its first
        // read. The session mode is already on (and set again here, should anything have changed
        // it), so keys typed in between are neither echoed nor edited by the terminal.
        if let sessionMode { try? Sys.setTerminalMode(0, sessionMode) }
        GuardState.beginReading()
        let line: String?
        if let scrolling {
            line = scrolling.readLine(prompt: prompt, initial: initial, source: source)
        } else {
            line = editor?.getLine()
        }
        GuardState.endReading()
        if let sessionMode { try? Sys.setTerminalMode(0, sessionMode) }
        if let outputStream { Sys.flush(outputStream) }
        switch (line, source.ending) {
        case (let line?, nil):
            if mode == .secret {
                guard let secret = source.takeSecret() else { return .unreadable(.invalidUTF8) }
                return .line(secret)
            }
            let text = line.hasSuffix("\n") ? String(line.dropLast()) : line
            if source.sawInvalidUTF8, text.unicodeScalars.contains("\u{FFFD}") { return .unreadable(.invalidUTF8) }
            return .line(text)
        case (_, let ending):
            source.discardSecret()
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
