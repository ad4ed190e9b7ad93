import Glibc

/// Runs `body` with the terminal's echo off when `fd` is a terminal, and puts the mode back after,
/// discarding first what was typed and not read: a line pasted too many (a password) must not
/// reach the shell after the program, where it would be shown, run and kept in its history.
///
/// For a secret read line by line without libedit (`--no-interactive` at a terminal):
/// the newline still shows (ECHONL), the characters do not. Call `TerminalGuard.install()`
/// first so a signal during `body` also puts the mode back: `fd`'s own mode, whichever
/// terminal it is (`/dev/tty` while standard input is a pipe).
public func withEchoOff<T>(_ fd: Int32, echoingNewlines: Bool = true, _ body: () -> T) -> T {
    let restore = EchoOff.begin(fd, echoingNewlines: echoingNewlines)
    defer { restore?() }
    return body()
}

/// ``withEchoOff(_:echoingNewlines:_:)`` around an `async` body.
public func withEchoOff<T>(
    _ fd: Int32, echoingNewlines: Bool = true, isolation: isolated (any Actor)? = #isolation, _ body: () async -> T
) async -> T {
    let restore = EchoOff.begin(fd, echoingNewlines: echoingNewlines)
    defer { restore?() }
    return await body()
}

/// Turning echo off and back, shared by the two ``withEchoOff(_:echoingNewlines:_:)``.
enum EchoOff {
    /// Turns `fd`'s echo off and returns what puts it back, or nil when `fd` is no terminal.
    static func begin(_ fd: Int32, echoingNewlines: Bool) -> (() -> Void)? {
        guard Sys.isTerminal(fd), let before = try? Sys.terminalMode(fd) else { return nil }
        var quiet = before
        quiet.c_lflag &= ~tcflag_t(ECHO)
        if echoingNewlines { quiet.c_lflag |= tcflag_t(ECHONL) } else { quiet.c_lflag &= ~tcflag_t(ECHONL) }
        let guardedBefore = GuardState.guardTerminal(fd, mode: before).previous
        try? Sys.setTerminalMode(fd, quiet)
        return {
            Sys.discardInput(fd)
            try? Sys.setTerminalMode(fd, before)
            GuardState.unguard(guardedBefore)
        }
    }
}

extension LineInput {
    /// The next line, read as a secret: with echo off when the descriptor is a terminal, whatever
    /// standard error is (`2>/dev/null` and `2>&1 | cat` do not make a terminal safe to echo on).
    ///
    /// Every line that may hold a password and is read without a prompt of the session's goes
    /// through here: `verify`'s standard input, a password file or descriptor. Call
    /// `TerminalGuard.install()` first so a signal while it waits puts the mode back.
    public func nextSecret() -> Line {
        ProcessHardening.apply()
        return withEchoOff(fd) { next() }
    }
}
