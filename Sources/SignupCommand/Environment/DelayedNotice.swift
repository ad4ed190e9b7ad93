import Glibc
import Synchronization

/// Runs an action once, after a delay, on a thread of its own, unless cancelled first: the
/// "Waiting for the database" notice of a write that waits for another writer's lock.
///
/// Not a Dispatch timer: libdispatch runs timers on its manager thread, which on Linux asks for
/// the highest priority as it starts (`setpriority` to nice -4). Every user but root is refused
/// (`EACCES`), and libdispatch reports that through syslog(3), which, once signup has opened its
/// audit log, put "Failed to set thread priority for worker thread" under signup's ident on every
/// public session. This thread asks for nothing: it keeps the process's priority.
final class DelayedNotice: Sendable {
    private enum State { case waiting, cancelled, done }

    private let state = Mutex(State.waiting)
    private let seconds: Double
    private let action: @Sendable () -> Void

    /// Starts waiting now: `action` runs after `seconds` unless ``cancel()`` came first.
    init(after seconds: Double, _ action: @escaping @Sendable () -> Void) {
        self.seconds = seconds
        self.action = action
        // Every signal blocked in the thread (it inherits the mask it is made with): they stay the main thread's.
        var all = sigset_t(), old = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_SETMASK, &all, &old)
        defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        if pthread_create(&thread, nil, { context in
            Unmanaged<DelayedNotice>.fromOpaque(context!).takeRetainedValue().wait()
            return nil
        }, context) == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<DelayedNotice>.fromOpaque(context).release()  // no thread: no notice, as if the write was quick
        }
    }

    /// The action will not run (unless it is running already).
    func cancel() {
        state.withLock { if $0 == .waiting { $0 = .cancelled } }
    }

    private func wait() {
        var left = seconds
        while left > 0 {
            guard state.withLock({ $0 == .waiting }) else { return }
            let step = min(left, 0.05)
            var pause = timespec(tv_sec: 0, tv_nsec: Int(step * 1e9)), rest = timespec()
            while nanosleep(&pause, &rest) != 0 && errno == EINTR { pause = rest }
            left -= step
        }
        let fire = state.withLock { state -> Bool in
            guard state == .waiting else { return false }
            state = .done
            return true
        }
        if fire { action() }
    }
}
