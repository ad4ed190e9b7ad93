import CLibedit
import Glibc

// The module's system calls that can fail or be interrupted: each turns -1/errno into
// `SystemError` and retries EINTR in one place. The `SignalSafe` functions at the bottom are the
// only ones signal handlers may call.

/// A failed system call: the call's name and its errno.
struct SystemError: Error, Equatable, CustomStringConvertible {
    let call: String
    let code: Int32

    /// Captures the current errno for `call`.
    static func current(_ call: String) -> SystemError { SystemError(call: call, code: errno) }

    var description: String { "\(call): \(String(cString: strerror(code)))" }
}

/// What reading one chunk from a descriptor produced.
enum ReadResult: Equatable {
    case bytes(Int)
    case endOfFile
    case interrupted
    case wouldBlock
}

/// What waiting for input on the terminal and on the wake-up pipe produced.
struct PollResult: Equatable {
    var inputReady = false
    /// The input hung up or failed (POLLHUP, POLLERR, POLLNVAL): no key will come any more.
    var inputEnded = false
    var wakeReady = false
    var interrupted = false
    var timedOut = false
}

enum Sys {
    /// Whether `path` is a file this process can read. The corresponding C function is `access(R_OK)`.
    static func isReadableFile(_ path: String) -> Bool { access(path, R_OK) == 0 }

    /// The running program's file, links resolved; nil when it cannot be read.
    /// The corresponding C function is `readlink("/proc/self/exe")`.
    static func programPath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = buffer.withUnsafeMutableBufferPointer { readlink("/proc/self/exe", $0.baseAddress!, $0.count - 1) }
        guard count > 0, count < buffer.count - 1 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The corresponding C function is `isatty`.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// The corresponding C function is `tcgetattr`.
    static func terminalMode(_ fd: Int32) throws(SystemError) -> termios {
        var mode = termios()
        while tcgetattr(fd, &mode) != 0 {
            if errno != EINTR { throw .current("tcgetattr") }
        }
        return mode
    }

    /// The corresponding C function is `tcsetattr` with `TCSANOW`: never discards type-ahead.
    static func setTerminalMode(_ fd: Int32, _ mode: termios) throws(SystemError) {
        var mode = mode
        while tcsetattr(fd, TCSANOW, &mode) != 0 {
            if errno != EINTR { throw .current("tcsetattr") }
        }
    }

    /// The corresponding C function is `read`; EINTR is reported, not retried, so a signal can end a wait.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> ReadResult {
        let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
        if n > 0 { return .bytes(n) }
        if n == 0 { return .endOfFile }
        switch errno {
        case EINTR: return .interrupted
        case EAGAIN, EWOULDBLOCK: return .wouldBlock
        case EIO: return .endOfFile  // the terminal hung up
        default: throw .current("read")
        }
    }

    /// The file a descriptor is open on (its device and inode), or nil when it is not open.
    /// The corresponding C function is `fstat`.
    static func fileIdentity(_ fd: Int32) -> FileIdentity? {
        var status = stat()
        guard fstat(fd, &status) == 0 else { return nil }
        return FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }

    /// Moves the offset of a seekable descriptor `count` bytes back; false when it cannot (a
    /// pipe, a terminal). The corresponding C function is `lseek` with `SEEK_CUR`.
    static func moveBack(_ fd: Int32, by count: Int) -> Bool {
        lseek(fd, off_t(-count), SEEK_CUR) != -1
    }

    /// Whether a descriptor has an offset to move (a regular file), unlike a pipe or a terminal.
    /// The corresponding C function is `lseek` with `SEEK_CUR` and no move.
    static func isSeekable(_ fd: Int32) -> Bool {
        lseek(fd, 0, SEEK_CUR) != -1
    }

    /// The corresponding C function is `write`, looped until every byte is written; retries EINTR.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n >= 0 {
                offset += n
            } else if errno != EINTR {
                throw .current("write")
            }
        }
    }

    /// The corresponding C function is `poll` on `input` and `wake`; a signal ends the wait (EINTR).
    static func poll(input: Int32, wake: Int32, timeoutMilliseconds: Int32) throws(SystemError) -> PollResult {
        var fds = [
            pollfd(fd: input, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
        ]
        let n = Glibc.poll(&fds, nfds_t(wake >= 0 ? 2 : 1), timeoutMilliseconds)
        var result = PollResult()
        if n < 0 {
            if errno == EINTR { result.interrupted = true; return result }
            throw .current("poll")
        }
        if n == 0 { result.timedOut = true; return result }
        let anyInput = Int16(POLLIN | POLLHUP | POLLERR | POLLNVAL)
        result.inputReady = fds[0].revents & anyInput != 0
        result.inputEnded = fds[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
        result.wakeReady = wake >= 0 && fds[1].revents & Int16(POLLIN) != 0
        return result
    }

    /// Sends this process SIGALRM in `seconds`, 0 to cancel. The corresponding C function is `alarm`.
    static func setAlarm(seconds: Int) { _ = alarm(UInt32(clamping: seconds)) }

    /// Milliseconds on a clock that never jumps. The corresponding C function is `clock_gettime(CLOCK_MONOTONIC)`.
    static func monotonicMilliseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec * 1000 + now.tv_nsec / 1_000_000
    }

    /// Whether `fd` has input waiting now. The corresponding C function is `poll` with no timeout.
    static func hasInput(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return Glibc.poll(&entry, 1, 0) > 0 && entry.revents & Int16(POLLIN) != 0
    }

    /// Discards what was typed but not yet read. The corresponding C function is `tcflush(TCIFLUSH)`.
    static func discardInput(_ fd: Int32) { _ = tcflush(fd, TCIFLUSH) }

    /// The corresponding C functions are `pipe`, then `fcntl` for `FD_CLOEXEC` and `O_NONBLOCK` on both ends.
    static func makePipe() throws(SystemError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) != 0 { throw .current("pipe") }
        for fd in fds {
            if fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0 {
                let error = SystemError.current("fcntl")
                fds.forEach { Glibc.close($0) }
                throw error
            }
        }
        return (fds[0], fds[1])
    }

    /// Empties the non-blocking wake-up pipe.
    static func drain(_ fd: Int32) {
        var scratch = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &scratch, { Glibc.read(fd, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Waits up to a second for a SIGHUP after a terminal's read has ended (`poll` with no descriptor).
    ///
    /// The end of a terminal's input in the session's mode (no ICANON: Ctrl-D is a byte) is a
    /// hang-up, and the kernel wakes the read before it sends the session SIGHUP. The wait lets
    /// that signal end the process as the guard ends it in the middle of a question, whichever
    /// came first; the read's end was otherwise taken for the end of the input (signup logged a
    /// dropped public session as "cancelled"). Without the guard, or with SIGHUP ignored, it
    /// returns at once; when no SIGHUP comes (a terminal that is not the controlling one), after the second.
    static func awaitHangUpSignal() {
        guard TerminalGuard.isInstalled, !SignalSafe.isIgnored(SIGHUP) else { return }
        _ = Glibc.poll(nil, 0, 1_000)
    }

    /// The corresponding C function is `fcntl(F_DUPFD_CLOEXEC)`.
    static func duplicate(_ fd: Int32) throws(SystemError) -> Int32 {
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        if copy < 0 { throw .current("fcntl(F_DUPFD_CLOEXEC)") }
        return copy
    }

    /// The corresponding C function is `fdopen`: a stdio stream that owns `fd`.
    static func openStream(_ fd: Int32, mode: String) throws(SystemError) -> UnsafeMutablePointer<FILE> {
        guard let stream = fdopen(fd, mode) else {
            let error = SystemError.current("fdopen")
            Glibc.close(fd)
            throw error
        }
        return stream
    }

    /// The corresponding C function is `fopen("/dev/null", "w")`: a stream that swallows el_init's warnings.
    static func openNullStream() throws(SystemError) -> UnsafeMutablePointer<FILE> {
        guard let stream = fopen("/dev/null", "we") else { throw .current("fopen(/dev/null)") }
        return stream
    }

    /// The corresponding C function is `fflush`.
    static func flush(_ stream: UnsafeMutablePointer<FILE>) { fflush(stream) }

    /// The corresponding C function is `fclose`.
    static func closeStream(_ stream: UnsafeMutablePointer<FILE>) { fclose(stream) }

    /// The corresponding C function is `close`.
    static func close(_ fd: Int32) { if fd >= 0 { Glibc.close(fd) } }

    /// The corresponding C function is `setlocale(LC_CTYPE, name)`; returns whether it was accepted.
    @discardableResult
    static func setCharacterLocale(_ name: String) -> Bool { setlocale(LC_CTYPE, name) != nil }

    /// The corresponding C function is `nl_langinfo(CODESET)`.
    static func characterCodeset() -> String { String(cString: nl_langinfo(nl_item(CODESET))) }

    /// The terminal's width in columns: `TIOCGWINSZ` on `fd`, else `COLUMNS`, else 80.
    /// The corresponding C function is `ioctl(TIOCGWINSZ)`.
    /// Never more than `WindowBound.columns`: the width comes from outside.
    static func terminalColumns(_ fd: Int32) -> Int {
        if let size = windowSize(fd), size.columns > 0 { return min(size.columns, WindowBound.columns) }
        if let text = getenv("COLUMNS").map({ String(cString: $0) }), let columns = Int(text), columns > 0 {
            return min(columns, WindowBound.columns)
        }
        return 80
    }

    /// The window size `fd`'s terminal reports, nil when it reports none.
    /// The corresponding C function is `ioctl(TIOCGWINSZ)`.
    static func windowSize(_ fd: Int32) -> (rows: Int, columns: Int)? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0 else { return nil }
        return (Int(size.ws_row), Int(size.ws_col))
    }

    /// Columns `scalar` takes on a terminal in the current character locale: 0 for a combining
    /// mark, 2 for a wide (CJK, emoji) character, -1 when it is not printable.
    /// The corresponding C function is `wcwidth`.
    static func displayWidth(_ scalar: Unicode.Scalar) -> Int { Int(signup_wcwidth(wchar_t(bitPattern: scalar.value))) }

    /// Whether `sig` is blocked in the calling thread. The corresponding C function is `pthread_sigmask`.
    static func isBlocked(_ sig: Int32) -> Bool {
        var current = sigset_t()
        guard pthread_sigmask(SIG_BLOCK, nil, &current) == 0 else { return false }
        return sigismember(&current, sig) == 1
    }

    /// The corresponding C function is `pthread_sigmask(SIG_BLOCK)`.
    static func block(_ sig: Int32) {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, sig)
        _ = pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// The corresponding C function is `open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)`; retries EINTR.
    static func openTerminal(_ path: String) throws(SystemError) -> Int32 {
        while true {
            let fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
            if fd >= 0 { return fd }
            if errno != EINTR { throw .current("open(\(path))") }
        }
    }

    /// Overwrites memory that held a secret; `memset_s`-like: the call is not optimised away.
    static func zero(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        explicit_bzero(base, buffer.count)
    }
}

/// The async-signal-safe calls signal handlers use: no allocation, no locks, errno preserved by the caller.
enum SignalSafe {
    /// The corresponding C function is `tcgetattr`.
    static func getMode(_ fd: Int32, _ mode: UnsafeMutablePointer<termios>) -> Bool { tcgetattr(fd, mode) == 0 }

    /// The corresponding C function is `tcflush(TCIFLUSH)`: type-ahead must not reach the shell.
    static func discardInput(_ fd: Int32) { _ = tcflush(fd, TCIFLUSH) }

    /// The corresponding C function is `tcsetattr` with `TCSANOW`.
    static func setMode(_ fd: Int32, _ mode: UnsafePointer<termios>) { _ = tcsetattr(fd, TCSANOW, mode) }

    /// The corresponding C function is `sigaction` installing a plain handler (nil: `SIG_DFL`).
    static func setHandler(_ sig: Int32, _ handler: (@convention(c) (Int32) -> Void)?, flags: Int32,
                           previous: UnsafeMutablePointer<sigaction>? = nil) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = handler
        action.sa_flags = flags
        sigemptyset(&action.sa_mask)
        _ = sigaction(sig, &action, previous)
    }

    /// The corresponding C function is `sigaction` installing an `SA_SIGINFO` handler.
    static func setInfoHandler(_ sig: Int32,
                               _ handler: @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void,
                               flags: Int32, previous: UnsafeMutablePointer<sigaction>?) {
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = handler
        action.sa_flags = flags | SA_SIGINFO
        sigemptyset(&action.sa_mask)
        _ = sigaction(sig, &action, previous)
    }

    /// Whether `sig` is ignored (`SIG_IGN`). The corresponding C function is `sigaction` with no new action.
    static func isIgnored(_ sig: Int32) -> Bool {
        var current = sigaction()
        guard sigaction(sig, nil, &current) == 0 else { return false }
        return unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == 1  // SIG_IGN
    }

    /// Whether `sig` has its default action now (not ignored, not handled); false for a signal
    /// that cannot be changed. The corresponding C function is `sigaction` with no new action.
    static func hasDefaultAction(_ sig: Int32) -> Bool {
        var current = sigaction()
        guard sigaction(sig, nil, &current) == 0 else { return false }
        return current.__sigaction_handler.sa_handler == nil
    }

    /// Whether the environment has `name`, read before any handler runs. The corresponding C function is `getenv`.
    static func environmentHas(_ name: String) -> Bool { getenv(name) != nil }

    /// The corresponding C function is `write`, once, of `count` bytes; errors ignored.
    static func write(_ fd: Int32, _ bytes: UnsafePointer<UInt8>, _ count: Int) {
        guard count > 0 else { return }
        _ = Glibc.write(fd, bytes, count)
    }

    /// Writes a static string; for the one-byte line end a handler writes.
    static func write(_ fd: Int32, _ text: StaticString) {
        write(fd, text.utf8Start, text.utf8CodeUnitCount)
    }

    /// The corresponding C function is `sigaction` putting back a saved action.
    static func reinstall(_ sig: Int32, _ saved: UnsafePointer<sigaction>) { _ = sigaction(sig, saved, nil) }

    /// The corresponding C function is `raise`.
    static func raiseSignal(_ sig: Int32) { _ = raise(sig) }

    /// Kills every process of `group` at once. The corresponding C function is `kill` with `-group` and SIGKILL.
    static func killGroup(_ group: pid_t) { _ = kill(-group, SIGKILL) }

    /// Ends the process with `status` at once, running no exit handler. The corresponding C function is `_exit`.
    static func exitNow(_ status: Int32) -> Never { Glibc._exit(status) }

    /// The corresponding C function is `pthread_sigmask(SIG_UNBLOCK)`.
    static func unblock(_ sig: Int32) {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, sig)
        _ = pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// The corresponding C function is `write` of one byte to the wake-up pipe.
    static func poke(_ fd: Int32) {
        guard fd >= 0 else { return }
        var byte: UInt8 = 1
        _ = Glibc.write(fd, &byte, 1)
    }

    /// The calling thread's errno, to save and restore around a handler.
    static var savedErrno: Int32 {
        get { errno }
        set { errno = newValue }
    }
}

/// The file a descriptor is open on: the same pipe, terminal or file whatever descriptor holds it.
struct FileIdentity: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
}
