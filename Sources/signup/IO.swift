import Glibc

/// The program's one door to file descriptors: whole writes and line reads, retrying EINTR.
enum IO {
    /// Why the last write to standard output failed, if one did: the result is then lost.
    nonisolated(unsafe) private(set) static var outputFailure: String?

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
                if fd == 1 { outputFailure = lastErrorText() }
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

    /// Whether `fd` is open.
    static func isOpen(_ fd: Int32) -> Bool {
        fcntl(fd, F_GETFD) != -1
    }

    /// Ignores SIGPIPE so that a closed output pipe is a failed write, not a killed process.
    static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// The text of errno for messages.
    static func lastErrorText() -> String {
        String(cString: strerror(errno))
    }

    /// Removes a variable from the environment (the password must not outlive its reading).
    static func unsetEnvironment(_ name: String) {
        unsetenv(name)
    }
}
