import CLibedit
import Glibc

// libedit behind two small types. `EditLine *` and `History *` both import as
// OpaquePointer; wrapping each keeps one from being passed where the other belongs.

/// An editor: the corresponding C type is `EditLine *`.
struct EditLineHandle {
    let pointer: OpaquePointer
    /// The descriptors under libedit's streams, whose window size it reads.
    let descriptors: [Int32]

    /// The corresponding C function is `el_init`; warnings it prints go to `errors`.
    init?(program: String, input: UnsafeMutablePointer<FILE>, output: UnsafeMutablePointer<FILE>,
          errors: UnsafeMutablePointer<FILE>) {
        guard let pointer = el_init(program, input, output, errors) else { return nil }
        self.pointer = pointer
        descriptors = [fileno(input), fileno(output)]
    }

    /// The corresponding C call is `el_set(EL_EDITOR, mode)`.
    func setEditor(_ mode: String) { _ = signup_el_set_editor(pointer, mode) }

    /// The corresponding C call is `el_set(EL_SIGNAL, on)`.
    func setHandlesSignals(_ on: Bool) { _ = signup_el_set_signal(pointer, on ? 1 : 0) }

    /// The corresponding C calls are `el_set(EL_SETTY, "-d", …)` and `el_set(EL_SETTY, "-x", …)`
    /// (see the shim header): CR and LF as typed, and no echo between lines.
    func setSessionModes() -> Bool { signup_el_setty_session(pointer) == 0 }

    /// The corresponding C calls are `el_set(EL_SETTY, "-d", "-susp", "susp=")` and the same with `"-x"`:
    /// no suspend key, for a run that ignores SIGTSTP.
    func setNoSuspendKey() -> Bool { signup_el_setty_no_suspend(pointer) == 0 }

    /// The corresponding C function is `el_push`: `text` is read before the terminal.
    func push(_ text: String) { signup_el_push(pointer, text) }

    /// The corresponding C call is `el_set(EL_CLIENTDATA, data)`.
    func setClientData(_ data: UnsafeMutableRawPointer?) { _ = signup_el_set_clientdata(pointer, data) }

    /// The corresponding C call is `el_set(EL_PROMPT_ESC, fn, '\1')`.
    func setPrompt(_ fn: signup_prompt_fn) { _ = signup_el_set_prompt_esc(pointer, fn, 1) }

    /// The corresponding C call is `el_set(EL_GETCFN, fn)`.
    func setReadFunction(_ fn: el_rfunc_t?) { _ = signup_el_set_getcfn(pointer, fn) }

    /// The corresponding C call is `el_set(EL_HIST, history, h)`.
    func setHistory(_ history: HistoryHandle) { _ = signup_el_set_history(pointer, history.pointer) }

    /// The corresponding C call is `el_set(EL_SETFP, 2, stream)`.
    func setErrorStream(_ stream: UnsafeMutablePointer<FILE>) { _ = signup_el_set_file(pointer, 2, stream) }

    /// The corresponding C function is `el_gets`: nil at end of input, on an error or when the read function gave up.
    func getLine() -> String? {
        var count: Int32 = 0
        guard let line = el_gets(pointer, &count) else { return nil }
        return String(cString: line)
    }

    /// Whether the line being edited is empty. The corresponding C function is `el_line`.
    var lineIsEmpty: Bool {
        guard let info = el_line(pointer) else { return true }
        return info.pointee.buffer == info.pointee.lastchar
    }

    /// Bytes in the line being edited. The corresponding C function is `el_line`.
    var lineByteCount: Int {
        guard let info = el_line(pointer), let start = info.pointee.buffer, let end = info.pointee.lastchar else { return 0 }
        return end - start
    }

    /// Whether the window is within `WindowBound`: libedit reads its size again at every
    /// `el_gets` and `el_resize`, and allocates rows × columns for it.
    var mayDraw: Bool { WindowBound.libeditMayDraw(descriptors) }

    /// The corresponding C function is `el_resize`; not called for a window beyond `WindowBound`.
    func resize() { if mayDraw { el_resize(pointer) } }

    /// The corresponding C call is `el_set(EL_REFRESH)`.
    func refresh() { _ = signup_el_refresh(pointer) }

    /// The corresponding C function is `el_end`.
    func end() { el_end(pointer) }

    /// The object registered with `setClientData`, from inside a C callback.
    static func clientData(of editor: OpaquePointer?) -> UnsafeMutableRawPointer? {
        guard let editor else { return nil }
        return signup_el_get_clientdata(editor)
    }
}

/// An in-memory history: the corresponding C type is `History *`. Never loaded from or saved to a file.
struct HistoryHandle {
    let pointer: OpaquePointer

    /// The corresponding C function is `history_init`, then `H_SETSIZE` and `H_SETUNIQUE`.
    init?(size: Int32) {
        guard let pointer = history_init() else { return nil }
        self.pointer = pointer
        _ = signup_history_set_size(pointer, size)
        _ = signup_history_set_unique(pointer, 1)
    }

    /// The corresponding C call is `history(H_ENTER, line)`.
    func enter(_ line: String) { _ = signup_history_enter(pointer, line) }

    /// The corresponding C function is `history_end`.
    func end() { history_end(pointer) }
}
