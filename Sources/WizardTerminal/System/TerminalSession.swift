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

/// Why a ``TerminalSession`` could not start; its `description` is a sentence to show after "cannot start line editing: ".
public enum TerminalError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input or output descriptor given is not a terminal.
    case notATerminal(descriptor: Int32)
    /// `/dev/tty` could not be opened: the process has no controlling terminal; `reason` is the system's.
    case noControllingTerminal(reason: String)
    /// A system call the session needs failed (too many open files, …): its name and the system's reason.
    case systemCallFailed(call: String, reason: String)
    /// libedit's `el_init` returned no editor (it fails only when memory runs out).
    case editorUnavailable

    /// The reason in words, for a message such as "error: cannot start line editing: …".
    public var description: String {
        switch self {
        case .notATerminal(let fd): "descriptor \(fd) is not a terminal"
        case .noControllingTerminal(let reason): "no controlling terminal (/dev/tty: \(reason))"
        case .systemCallFailed(let call, let reason): "\(call): \(reason)"
        case .editorUnavailable: "libedit could not start an editor (el_init failed)"
        }
    }

    init(_ error: SystemError) {
        self = .systemCallFailed(call: error.call, reason: String(cString: strerror(error.code)))
    }
}

/// An interactive session on a terminal: by default standard input, with the conversation on standard error.
///
/// The conversation goes to standard error, so `signup --json | jq .` stays interactive.
/// ``controllingTerminal(programName:escapeSequences:)`` opens `/dev/tty` instead, for a program
/// whose standard input is a pipe (`cat answers | tool`). Call `TerminalGuard.install()` first:
/// a session does not install signal handling itself, and without it a signal leaves the terminal
/// in the session's mode. One session at a time.
/// A prompt is one line; wrap invisible escape sequences (colour) in `\u{1}` … `\u{1}`.
public final class TerminalSession {
    /// Lines longer than this many UTF-8 bytes are returned cut to just over it.
    public static let maximumLineBytes = LineSource.maximumLineBytes

    /// The descriptor keys are read from.
    public let input: Int32
    /// The descriptor prompts, echo and ``write(_:)`` go to.
    public let output: Int32
    /// A descriptor this session opened (`/dev/tty`) and closes in ``close()``; -1 for none.
    private let owned: Int32
    private let source: LineSource
    private var editor: EditLineHandle?
    /// The editor of the no-escape mode, in place of libedit (whose dumb mode garbles a line that wraps).
    private var scrolling: ScrollingLineEditor?
    private var history: HistoryHandle?
    private var inputStream: UnsafeMutablePointer<FILE>?
    private var outputStream: UnsafeMutablePointer<FILE>?
    private let initialMode: termios
    /// The mode kept for the whole session, between lines too: no echo, no kernel line editing.
    private let sessionMode: termios
    /// What `TerminalGuard` guarded before this session, put back at ``close()``.
    private let guardedBefore: (Int, Int32)
    private var closed = false
    /// Whether the last read was of a secret, and how it ended: the next visible prompt waits for
    /// keys typed during it to stop coming, whatever the ending; ``close()`` too when it was cut short
    /// (Ctrl-C in a password ends the program, and the rest of it would be typed at the shell).
    private var afterSecret = SecretEnding.none
    /// Whether the next read first waits for quiet input (``discardTypeAhead(untilQuiet:)``).
    private var quietBeforeNextRead = false
    private enum SecretEnding {
        case none
        case enter
        case cutShort
    }
    /// How long no key may have come before a visible prompt that follows a secret or an error: keys
    /// typed by a person or a machine 5–300 ms apart (the rest of a password after Ctrl-C, a
    /// password manager's `email⏎password⏎password⏎`, a paste in pieces) are still coming.
    static let quietMilliseconds: Int32 = 400
    /// The longest ``close()`` waits for that quiet: it runs under no question's deadline.
    static let closingLimitMilliseconds = 3_000

    /// Opens an editor on `input`, drawing on `output` (emacs keys, an in-memory history); both must be terminals.
    ///
    /// Sets a UTF-8 character locale first. Without `escapeSequences` (`NO_COLOR`, `--plain`,
    /// `TERM` dumb, unset or unknown) lines are edited by `ScrollingLineEditor` instead: the
    /// same keys, one row that scrolls sideways and never wraps, redrawn with only `\r`, `\b`
    /// and spaces. The descriptors stay the caller's: ``close()`` does not close them.
    /// Throws ``TerminalError`` instead of starting a session that could only read end of input.
    public convenience init(programName: String, escapeSequences: Bool = true, input: Int32 = 0, output: Int32 = 2)
    throws(TerminalError) {
        try self.init(programName: programName, escapeSequences: escapeSequences, input: input, output: output, owned: -1)
    }

    /// Opens a session on the controlling terminal (`/dev/tty`, read and written), whatever standard input and output are.
    ///
    /// For `cat file | tool` or `tool > file`: the person at the terminal still answers. The
    /// descriptor is opened `O_RDWR | O_NOCTTY | O_CLOEXEC` and closed by ``close()``.
    /// Throws ``TerminalError/noControllingTerminal(reason:)`` when there is none (a cron job, a service).
    public static func controllingTerminal(programName: String, escapeSequences: Bool = true) throws(TerminalError) -> TerminalSession {
        let fd: Int32
        do {
            fd = try Sys.openTerminal("/dev/tty")
        } catch {
            throw .noControllingTerminal(reason: String(cString: strerror(error.code)))
        }
        do {
            return try TerminalSession(programName: programName, escapeSequences: escapeSequences, input: fd, output: fd, owned: fd)
        } catch {
            Sys.close(fd)
            throw error
        }
    }

    private init(programName: String, escapeSequences: Bool, input: Int32, output: Int32, owned: Int32) throws(TerminalError) {
        for fd in [input, output] where !Sys.isTerminal(fd) { throw .notATerminal(descriptor: fd) }
        let initialMode: termios
        do { initialMode = try Sys.terminalMode(input) } catch { throw TerminalError(error) }
        TerminalLocale.ensureUTF8()
        // Everything that can fail comes first: once the mode below is set, the session exists.
        var editor: EditLineHandle?
        var streams: (input: UnsafeMutablePointer<FILE>, output: UnsafeMutablePointer<FILE>)?
        let source = LineSource(input: input, output: output)
        // A window beyond the bound is never shown to libedit, which would allocate it (el_init reads it).
        // libedit is loaded here, the first time; a system without it gets the line editor that
        // draws without escape sequences, as a terminal unknown to it does.
        if escapeSequences && WindowBound.libeditMayDraw([input, output]) && clibedit_failure() == nil {
            let opened = try Self.openEditor(programName: programName, input: input, output: output)
            editor = opened.editor
            streams = (opened.input, opened.output)
        }
        self.input = input
        self.output = output
        self.owned = owned
        self.source = source
        self.initialMode = initialMode
        // A run that ignores SIGTSTP (job control off, as over SSH) has no suspend key: the terminal
        // would still discard everything typed before a Ctrl-Z, for a signal that stops nothing.
        let suspendIgnored = SignalSafe.isIgnored(SIGTSTP)
        sessionMode = Self.quiet(initialMode, suspendKey: !suspendIgnored)
        inputStream = streams?.input
        outputStream = streams?.output
        // Signals that end the process now put back this terminal's mode, not standard input's.
        guardedBefore = GuardState.guardTerminal(input, mode: initialMode, output: output).previous
        // From now until `close()`, keys typed ahead are never echoed by the terminal: not
        // between two prompts, not while the program works (a password typed too early stays
        // unseen, and is read or discarded).
        try? Sys.setTerminalMode(input, sessionMode)
        guard let editor else {
            let scrolling = ScrollingLineEditor(output: output)
            source.editor = scrolling
            self.scrolling = scrolling
            return
        }
        editor.setClientData(Unmanaged.passUnretained(source).toOpaque())
        editor.setEditor("emacs")
        editor.setHandlesSignals(false)  // its handler would kill(0, sig) the whole process group
        _ = editor.setSessionModes()
        if suspendIgnored { _ = editor.setNoSuspendKey() }
        editor.setPrompt(promptCallback)
        editor.setReadFunction(readCallback)
        if let history = HistoryHandle(size: 100) {
            editor.setHistory(history)
            self.history = history
        }
        source.editor = editor
        self.editor = editor
    }

    /// libedit on duplicates of `input` and `output` (closing the streams never closes the caller's descriptors).
    private static func openEditor(programName: String, input: Int32, output: Int32)
    throws(TerminalError) -> (editor: EditLineHandle, input: UnsafeMutablePointer<FILE>, output: UnsafeMutablePointer<FILE>) {
        var opened: [UnsafeMutablePointer<FILE>] = []
        do {
            for (fd, mode) in [(input, "r"), (output, "w")] { opened.append(try Sys.openStream(try Sys.duplicate(fd), mode: mode)) }
            // el_init's warnings (an unknown TERM) are not the person's business.
            let quiet = try Sys.openNullStream()
            defer { Sys.closeStream(quiet) }
            guard let editor = EditLineHandle(program: programName, input: opened[0], output: opened[1], errors: quiet) else {
                throw TerminalError.editorUnavailable
            }
            editor.setErrorStream(opened[1])
            return (editor, opened[0], opened[1])
        } catch {
            opened.forEach(Sys.closeStream)
            if let error = error as? SystemError { throw TerminalError(error) }
            throw .editorUnavailable
        }
    }

    deinit { close() }

    /// Reads a line with editing keys (arrows, backspace, Ctrl-A/E/K/U/W); with `remember`, a
    /// non-empty answer joins this session's history (answers to y/n questions should not).
    ///
    /// The history lives in memory only; it is never written to a file.
    ///
    /// Without `remember` (a question), Up and Down recall nothing either. `initial` is put on the
    /// line to start from, as `VisibleText.of` shows it; Enter keeps it: a line left as shown
    /// comes back as `initial` itself, byte for byte, not as its visible form.
    public func readLine(prompt: String, remember: Bool = true, initial: String = "") -> LineRead {
        let shown = VisibleText.of(initial)
        var result = read(prompt: prompt, mode: .text, historyKeys: remember, initial: shown)
        if !initial.isEmpty, case .line(let line) = result, line == shown { result = .line(initial) }
        if remember, case .line(let line) = result, !line.isEmpty {
            history?.enter(line)
            scrolling?.remember(line)
        }
        return result
    }

    /// Throws away everything typed before now and not yet read, as `sudo` and `ssh` do before a
    /// prompt: keys typed before an error or a question appeared must not answer what comes next.
    ///
    /// `untilQuiet` (after an error) makes the next read go on discarding, before it shows its
    /// prompt, until no key has come for 400 ms, however long keys keep coming: the rest of an
    /// answer typed in pieces, not by a person who read the error. Every key that comes before
    /// the prompt is shown is dropped; Ctrl-C meanwhile ends that read with
    /// ``LineRead/interrupted`` at once, as at its prompt, which is then never shown. (A
    /// visible read after a secret waits so by itself.)
    public func discardTypeAhead(untilQuiet: Bool = false) {
        guard !closed else { return }
        Sys.discardInput(input)
        source.discardPending()
        if untilQuiet { quietBeforeNextRead = true }
    }

    /// Reads a secret: nothing is echoed for its characters, it never enters history, escape sequences are ignored.
    ///
    /// Backspace, Ctrl-U and Ctrl-W edit it; Enter ends it; a pasted password works.
    public func readSecret(prompt: String) -> LineRead {
        ProcessHardening.apply()  // no core file, no same-user debugger, before a secret is typed
        return read(prompt: prompt, mode: .secret)
    }

    /// Discards input until no key has come for ``quietMilliseconds`` (at most `limitMilliseconds`
    /// when given), or the terminal hangs up. The wait for a question's answer bounds it otherwise
    /// (`--public`'s idle timeout is armed around the whole read). Returns whether a Ctrl-C came
    /// meanwhile, which ends the wait; only a read's wait (between `GuardState.beginWaiting()`
    /// and the read) gets one: at any other time a SIGINT ends the process.
    @discardableResult
    private func settle(limitMilliseconds: Int? = nil) -> Bool {
        afterSecret = .none
        let wake = GuardState.wakeRead.load(ordering: .relaxed)
        let deadline = limitMilliseconds.map { Sys.monotonicMilliseconds() + $0 }
        defer {
            Sys.discardInput(input)
            source.discardPending()
        }
        while true {
            Sys.discardInput(input)
            source.discardPending()
            if GuardState.takeInterrupt() { return true }
            guard let polled = try? Sys.poll(input: input, wake: wake, timeoutMilliseconds: Self.quietMilliseconds),
                  !polled.timedOut, !polled.inputEnded else { return false }
            // A resize or a continue: its flag stays for the read, which redraws; the quiet starts again.
            if polled.wakeReady { Sys.drain(wake) }
            if GuardState.takeInterrupt() { return true }
            if let deadline, Sys.monotonicMilliseconds() >= deadline { return false }
        }
    }

    /// Writes `text` to the session's output, after anything libedit has buffered.
    public func write(_ text: String) {
        if let outputStream { Sys.flush(outputStream) }
        var text = text
        text.withUTF8 { try? Sys.writeAll(output, UnsafeRawBufferPointer($0)) }
    }

    /// Ends libedit and the history, puts back the terminal mode found at `init` and closes `/dev/tty` if it opened it; safe to call twice.
    public func close() {
        guard !closed else { return }
        // Keys typed while the program worked must not reach the shell after it (a password typed
        // too late would be echoed there, or run as a command); after a secret (Ctrl-C in a password
        // ends the program), neither may the rest of it, still being typed.
        if afterSecret == .cutShort { settle(limitMilliseconds: Self.closingLimitMilliseconds) }
        closed = true
        Sys.discardInput(input)
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
        try? Sys.setTerminalMode(input, initialMode)
        GuardState.unguard(guardedBefore)
        Sys.close(owned)
    }

    /// `mode` with echo, kernel line editing and CR/LF translation off; signals still on, the
    /// suspend key's only with `suspendKey`.
    private static func quiet(_ mode: termios, suspendKey: Bool) -> termios {
        var quiet = mode
        quiet.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | IEXTEN)
        quiet.c_iflag &= ~tcflag_t(ICRNL | INLCR | IGNCR)
        withUnsafeMutableBytes(of: &quiet.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
            if !suspendKey { cc[Int(VSUSP)] = 0 }  // _POSIX_VDISABLE
        }
        return quiet
    }

    private func read(prompt: String, mode: LineSource.Mode, historyKeys: Bool = false, initial: String = "") -> LineRead {
        guard !closed, editor != nil || scrolling != nil else { return .endOfInput }
        // The one door from a secret to anything visible: keys typed during a secret (the rest of
        // a password after Ctrl-C, a paste in pieces after its Enter) never answer, nor show at, a
        // visible prompt, whatever it is and however the secret's read ended. After an error, any
        // prompt waits so. The wait is part of the read: Ctrl-C during it is Ctrl-C at the prompt.
        let waitForQuiet = quietBeforeNextRead || (mode != .secret && afterSecret != .none)
        quietBeforeNextRead = false
        if waitForQuiet {
            GuardState.beginWaiting()
            let interrupted = settle()
            if interrupted {
                GuardState.endReading()
                if mode == .secret { afterSecret = .cutShort }  // the rest of a password may still come
                return .interrupted
            }
        }
        if mode == .secret { afterSecret = .cutShort }  // until it ends with Enter
        source.setPrompt(prompt)
        // The window may have grown beyond the bound since the session began (an SSH client's
        // window-change): el_gets would read and allocate it, so this line goes to the scrolling editor.
        let fallback = scrolling == nil && editor?.mayDraw == false ? ScrollingLineEditor(output: output) : nil
        if let fallback { source.editor = fallback }
        defer { if fallback != nil { source.editor = editor } }
        if !initial.isEmpty && fallback == nil { editor?.push(initial) }
        source.begin(mode, historyKeys: historyKeys)
        // libedit prints the prompt, then switches the terminal to its editing mode on its first
        // read. The session mode is already on (and set again here, should anything have changed
        // it), so keys typed in between are neither echoed nor edited by the terminal.
        try? Sys.setTerminalMode(input, sessionMode)
        GuardState.beginReading()
        let line: String?
        if let scrolling = scrolling ?? fallback {
            line = scrolling.readLine(prompt: prompt, initial: initial, source: source)
        } else {
            line = editor?.getLine()
        }
        GuardState.endReading()
        try? Sys.setTerminalMode(input, sessionMode)
        if let outputStream { Sys.flush(outputStream) }
        switch (line, source.ending) {
        case (let line?, nil):
            if mode == .secret {
                afterSecret = .enter
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
