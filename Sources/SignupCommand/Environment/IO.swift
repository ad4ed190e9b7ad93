import CSystem
import Glibc
import WizardTerminal

/// The command's standard streams and descriptors: whole writes and line reads, retrying EINTR,
/// and the failure of standard output remembered for the result. `list` and the mail command
/// write their own large buffers and pipes directly.
enum IO {
    /// Why the last write to standard output failed, if one did: the result is then lost.
    nonisolated(unsafe) private(set) static var outputFailure: String?
    /// The errno of that failure (`EPIPE` for a reader that went away).
    nonisolated(unsafe) private(set) static var outputFailureCode: Int32?

    /// Writes all of `text` to `fd`; a closed pipe is a failed write, not a killed process
    /// (SIGPIPE is ignored at start). A failure on standard output is kept in `outputFailure`.
    static func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                if fd == 1 { outputFailureCode = errno; outputFailure = lastErrorText() }
                return
            }
            offset += written
        }
        bytes.removeAll()
    }

    /// Reads up to `count` bytes from `fd` into `buffer`; 0 at end of input, -1 on error.
    static func read(_ fd: Int32, into buffer: inout [UInt8], count: Int) -> Int {
        while true {
            let got = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, count) }
            if got < 0 && errno == EINTR { continue }
            return got
        }
    }

    /// Opens the path given as raw bytes (a path is bytes, never re-encoded); -1 and errno on failure.
    static func open(_ path: [UInt8], _ flags: Int32) -> Int32 {
        guard !path.contains(0) else {
            errno = ENOENT
            return -1
        }
        return (path + [0]).withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { Glibc.open($0.baseAddress!, flags) }
        }
    }

    /// Whether `info` (from `fstat`) is the file descriptor `fd` refers to: the same device and inode.
    /// Whether terminals `fd` and `other` are one terminal, whatever the names they were opened
    /// by (`/dev/tty` is the controlling terminal under another device number): a terminal
    /// belongs to one session at most. The corresponding C function is `tcgetsid`.
    static func isSameTerminal(_ fd: Int32, _ other: Int32) -> Bool {
        guard isatty(fd) == 1, isatty(other) == 1 else { return false }
        let session = tcgetsid(fd)
        return session != -1 && session == tcgetsid(other)
    }

    /// Whether `fd` has something to read (or its end) within `milliseconds`, retrying EINTR.
    static func waitForInput(_ fd: Int32, milliseconds: Int32) -> Bool {
        var wanted = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&wanted, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            return ready > 0
        }
    }

    static func isSameFile(_ info: stat, as fd: Int32) -> Bool {
        var other = stat()
        guard fstat(fd, &other) == 0 else { return false }
        return other.st_dev == info.st_dev && other.st_ino == info.st_ino
    }

    /// Seconds on a clock that never jumps. The corresponding C function is `clock_gettime(CLOCK_MONOTONIC)`.
    static func monotonicSeconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec
    }

    /// Whether standard input is a folder: reading it fails (EISDIR), which is no end of input.
    static var standardInputIsAFolder: Bool {
        var info = stat()
        return fstat(0, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// Whether this process holds the pipe or FIFO `info` describes open for writing, on any
    /// descriptor (`3<>fifo` opens it read-write): a reader of it then never sees its end.
    static func holdsWriteEnd(of info: stat) -> Bool {
        let highest = min(Int32(clamping: sysconf(Int32(_SC_OPEN_MAX))), 65_536)
        return (0..<max(highest, 0)).contains { fd in
            let flags = fcntl(fd, F_GETFL)
            guard flags != -1, flags & O_ACCMODE != O_RDONLY else { return false }
            return isSameFile(info, as: fd)
        }
    }

    /// Whether the socket `fd` is listening for connections (it will never send a byte).
    static func isListeningSocket(_ fd: Int32) -> Bool {
        var listening: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) == 0 && listening != 0
    }

    /// Why a whole file could not be read.
    enum ReadFailure: Error {
        case open(Int32), read(Int32), tooLarge
    }

    /// The whole content of the file at `path` (raw bytes), refusing more than `limit` bytes
    /// after reading at most `limit + 1`. A FIFO is opened without waiting for a writer.
    static func contents(of path: [UInt8], limit: Int) -> Result<[UInt8], ReadFailure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { return .failure(.open(errno)) }
        defer { close(fd) }
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while data.count <= limit {
            let got = read(fd, into: &chunk, count: chunk.count)
            if got == 0 { return .success(data) }
            if got < 0 {
                guard errno == EAGAIN else { return .failure(.read(errno)) }
                var wait = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                _ = poll(&wait, 1, -1)
                continue
            }
            data += chunk[..<got]
        }
        return .failure(.tooLarge)
    }

    /// Whether standard input was closed when the program started (it is `/dev/null` since):
    /// no input at all, which a command that reads one file from it reports as such.
    nonisolated(unsafe) static var standardInputWasClosed = false

    /// Opens `/dev/null` on each of descriptors 0, 1 and 2 that is closed, so that no pipe or
    /// file the program opens later becomes "standard input" (`signup <&-` read its own
    /// signal pipe forever). Read-only: writing to a closed standard output still fails.
    static func reserveStandardDescriptors() {
        standardInputWasClosed = !isOpen(0)
        for fd in Int32(0)...2 where !isOpen(fd) {
            let null = Glibc.open("/dev/null", O_RDONLY)
            if null >= 0 && null != fd {
                dup2(null, fd)
                close(null)
            }
        }
    }

    /// Whether `fd` is open.
    static func isOpen(_ fd: Int32) -> Bool {
        fcntl(fd, F_GETFD) != -1
    }

    /// Ends the process as SIGPIPE would (141 in a shell, no message) when `code` says standard
    /// output's reader went away, as Unix filters do; returns for any other failure.
    static func endIfReaderWentAway(_ code: Int32?) {
        guard code == EPIPE else { return }
        ProcessSignals.endAsBrokenPipe()
    }

    /// The text of errno for messages.
    static func lastErrorText() -> String {
        String(cString: strerror(errno))
    }

    /// The process's environment, split at the first `=`, entries without one skipped, the
    /// first of a repeated name winning (as `getenv`, which reads `SIGNUP_DB`, takes it), read
    /// from `environ` directly: Foundation's `ProcessInfo` is not worth its start-up cost
    /// before the first prompt. Read after `EnvironmentPassword.taken` removed the password.
    static func environment() -> [String: String] {
        var variables: [String: String] = [:]
        var entry = signup_environment()
        while let pointer = entry?.pointee {
            let text = String(cString: pointer)
            // The first of a duplicated name wins, as getenv(3) (which reads SIGNUP_DB and
            // SIGNUP_PASSWORD) and sh take it: one variable never means two things in one run.
            if let equals = text.utf8.firstIndex(of: UInt8(ascii: "=")), variables[String(text[..<equals])] == nil {
                variables[String(text[..<equals])] = String(text[text.utf8.index(after: equals)...])
            }
            entry = entry?.successor()
        }
        return variables
    }

    /// Removes a variable from the environment (the password must not outlive its reading).
    static func unsetEnvironment(_ name: String) {
        unsetenv(name)
    }
}
