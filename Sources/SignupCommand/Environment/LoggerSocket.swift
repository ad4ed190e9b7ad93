import Glibc
import Synchronization
import WizardTerminal

/// The audit log's connection to the system logger: a datagram socket to `/dev/log`, as
/// syslog(3) opens one, but never blocking.
///
/// syslog(3) waits in `send` for as long as the logger's queue is full: a logger that stopped
/// reading (a stopped rsyslogd behind journald, a full queue) held every command after its
/// change was stored, for ever, with its signals held. Here a line waits at most ``bound`` for
/// room in the queue, then it is given up; once one was given up, the process's later lines
/// are tried once, without waiting. A logger that is not there at all (no socket, nobody bound
/// to it) loses the line at once, as syslog(3) does. A signal that arrives while a line waits
/// ends the wait: one that is held (a change was just stored) stays held, and the change is
/// reported as after any commit; one that is not held ends the process in its handler.
///
/// The message is syslog(3)'s, byte for byte: `<PRI>Mmm dd hh:mm:ss signup[PID]: LINE`, on a
/// datagram socket, or with a NUL after it on a stream socket (a logger that listens on one).
/// ``sendPrepared(_:count:)`` is async-signal-safe: it allocates nothing and calls only
/// `socket`, `connect`, `send`, `poll`, `clock_gettime` and `close`.
///
/// `@unchecked Sendable`: the path is written once, by `init`; the rest is atomics and a mutex.
final class LoggerSocket: @unchecked Sendable {
    /// How long one line waits for the logger to take it.
    static let bound: Int = 1000  // milliseconds

    /// The system logger's socket.
    static let system = LoggerSocket(path: "/dev/log")

    /// What became of a line.
    enum Outcome: Equatable {
        /// The logger has it.
        case sent
        /// No logger listens there: lost, as syslog(3) loses it.
        case noLogger
        /// The logger did not take it within the bound (or at once, after an earlier one it did not take).
        case notTaken
        /// A held signal arrived while it waited: lost, and the signal is still held.
        case interrupted
    }

    /// The socket's path (at most 107 bytes), NUL-terminated, in memory that is never freed.
    private let path: UnsafeMutablePointer<CChar>
    private let pathLength: Int
    /// The connected socket, or -1; only ``deliver(_:waitingAtMost:)`` uses, opens and closes it, under ``lock``.
    private let socket = Atomic<Int32>(-1)
    private let isStream = Atomic<Bool>(false)
    /// Whether a line was given up: later lines do not wait.
    private let stuck = Atomic<Bool>(false)
    private let lock = Mutex<Void>(())

    init(path: String) {
        let bytes = Array(path.utf8.prefix(107))
        self.path = .allocate(capacity: bytes.count + 1)
        for (index, byte) in bytes.enumerated() { self.path[index] = CChar(bitPattern: byte) }
        self.path[bytes.count] = 0
        pathLength = bytes.count
    }

    /// Hands `message` (a whole syslog message, ``AuditLog/message(_:line:at:)``) to the logger,
    /// waiting at most `milliseconds` for room in its queue; not at all once a line was given up.
    func deliver(_ message: [UInt8], waitingAtMost milliseconds: Int = LoggerSocket.bound) -> Outcome {
        lock.withLock { _ in
            let heldBefore = TerminalGuard.heldSignal != nil
            let wait = stuck.load(ordering: .sequentiallyConsistent) ? 0 : milliseconds
            let deadline = Self.now() + wait
            // A logger restarted since the last line refuses the old connection: connect again, once.
            for attempt in 0..<2 {
                var fd = socket.load(ordering: .sequentiallyConsistent)
                if fd < 0 || attempt > 0 {
                    if fd >= 0 { close(fd) }
                    var stream = false
                    fd = connect(stream: &stream)
                    socket.store(fd, ordering: .sequentiallyConsistent)
                    isStream.store(stream, ordering: .sequentiallyConsistent)
                    if fd == Self.full { socket.store(-1, ordering: .sequentiallyConsistent) }
                }
                if fd == Self.full { return give(.notTaken) }
                guard fd >= 0 else { return .noLogger }
                let stream = isStream.load(ordering: .sequentiallyConsistent)
                let result = message.withUnsafeBufferPointer { bytes in
                    Self.send(fd, bytes.baseAddress!, bytes.count, stream: stream, until: deadline, watchingHeldSignals: !heldBefore)
                }
                switch result {
                case .sent: return .sent
                case .notTaken, .interrupted:
                    // A stream may hold part of the message: the next line starts on a new connection.
                    if stream {
                        close(fd)
                        socket.store(-1, ordering: .sequentiallyConsistent)
                    }
                    return give(result)
                case .noLogger: continue
                }
            }
            return .noLogger
        }
    }

    /// Sends a prepared message from a signal handler, on a socket of its own (the shared one
    /// may be closed, and its number reused, by the thread the handler interrupted), waiting at
    /// most ``bound``. Async-signal-safe.
    func sendPrepared(_ bytes: UnsafePointer<UInt8>, count: Int) {
        var stream = false
        let fd = connect(stream: &stream)
        guard fd >= 0 else { return }
        let wait = stuck.load(ordering: .sequentiallyConsistent) ? 0 : Self.bound
        _ = Self.send(fd, bytes, count, stream: stream, until: Self.now() + wait, watchingHeldSignals: false)
        close(fd)
    }

    private func give(_ outcome: Outcome) -> Outcome {
        stuck.store(true, ordering: .sequentiallyConsistent)
        return outcome
    }

    /// What ``connect(stream:)`` returns for a stream socket whose listener takes no connection now.
    private static let full: Int32 = -2

    /// A non-blocking socket connected to the path: a datagram socket, or a stream socket when
    /// the logger listens on one (`stream` then true); -1 when nobody listens there, ``full``
    /// when a stream listener's backlog is full. Async-signal-safe.
    private func connect(stream: inout Bool) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for index in 0..<pathLength { raw[index] = UInt8(bitPattern: path[index]) }
        }
        // sun_path follows sun_family.
        let length = socklen_t(MemoryLayout<sa_family_t>.size + pathLength + 1)
        for attempt in 0..<2 {
            let type = attempt == 0 ? SOCK_DGRAM : SOCK_STREAM
            let fd = Glibc.socket(AF_UNIX, Int32(type.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { return -1 }
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) }
            }
            let code = errno
            if connected == 0 {
                stream = type == SOCK_STREAM
                return fd
            }
            close(fd)
            if code == EPROTOTYPE && type == SOCK_DGRAM { continue }
            return type == SOCK_STREAM && (code == EAGAIN || code == EINPROGRESS) ? Self.full : -1
        }
        return -1
    }

    /// Sends `count` bytes on `fd` (and a NUL after them on a stream socket), waiting in poll(2)
    /// while the queue is full, until `deadline`. With `watchingHeldSignals`, a signal held
    /// meanwhile ends the wait (``Outcome/interrupted``). Async-signal-safe without it.
    private static func send(_ fd: Int32, _ bytes: UnsafePointer<UInt8>, _ count: Int, stream: Bool, until deadline: Int,
                             watchingHeldSignals: Bool) -> Outcome {
        let total = stream ? count + 1 : count
        var offset = 0
        while true {
            let sent: Int
            if offset < count {
                sent = Glibc.send(fd, bytes + offset, count - offset, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
            } else {
                var nul: UInt8 = 0
                sent = Glibc.send(fd, &nul, 1, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
            }
            if sent >= 0 {
                offset += sent
                if offset >= total { return .sent }
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: break
            default: return offset == 0 ? .noLogger : .notTaken
            }
            // The queue is full: wait for room, in slices, so that a held signal is seen at once.
            while true {
                if watchingHeldSignals && TerminalGuard.heldSignal != nil { return .interrupted }
                let left = deadline - now()
                guard left > 0 else { return .notTaken }
                var wanted = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                let ready = poll(&wanted, 1, Int32(min(left, 50)))
                if ready > 0 { break }
            }
        }
    }

    /// Milliseconds on a clock that never jumps. Async-signal-safe.
    static func now() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time.tv_sec * 1000 + time.tv_nsec / 1_000_000
    }
}
