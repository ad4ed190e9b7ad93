import Glibc

/// The largest window the line editors draw in: the size comes from outside (a terminal, or an
/// SSH client's `window-change`), and libedit allocates its two screen buffers as rows × columns
/// wide characters on every read and resize (65535 × 65535 took 9.2 GiB before its first prompt).
///
/// libedit is given a window only within the bound; beyond it the line is edited by
/// `ScrollingLineEditor`, which draws one row and measures no more than ``columns``.
enum WindowBound {
    /// Wider than any real screen's text (a 4K display at a 6-pixel font is about 640).
    static let columns = 1024
    /// Taller than any real screen's text.
    static let rows = 512

    /// Whether libedit may size itself from what `descriptors` and the environment report:
    /// `TIOCGWINSZ` on each (libedit asks its input, ncurses its output), and `COLUMNS` and
    /// `LINES`, which ncurses takes when the terminal reports no size.
    static func libeditMayDraw(_ descriptors: [Int32]) -> Bool {
        for fd in descriptors {
            if let size = Sys.windowSize(fd), size.rows > rows || size.columns > columns { return false }
        }
        return environmentValue("COLUMNS") <= columns && environmentValue("LINES") <= rows
    }

    /// `name`'s value as a number: 0 when unset or not a number, `Int.max` for digits beyond `Int`.
    private static func environmentValue(_ name: String) -> Int {
        guard let raw = getenv(name) else { return 0 }
        let text = String(cString: raw).trimmingPrefix(" ")
        if let value = Int(text) { return value }
        return !text.isEmpty && text.allSatisfy({ $0.isASCII && $0.isNumber }) ? Int.max : 0
    }
}
