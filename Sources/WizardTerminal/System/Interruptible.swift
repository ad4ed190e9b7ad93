/// Awaiting work that Ctrl-C may cut short: an availability check, a submit.
enum Interruptible {
    /// Runs `operation`; a Ctrl-C meanwhile cancels the task it runs in (cooperatively: the
    /// operation sees `Task.isCancelled` or a `CancellationError`). Returns what it returned and
    /// whether an interrupt arrived. Without the signal guard a Ctrl-C ends the process as usual.
    static func run<T>(isolation: isolated (any Actor)? = #isolation, _ operation: () async -> T) async -> (T, interrupted: Bool) {
        guard TerminalGuard.isInstalled else { return (await operation(), false) }
        GuardState.beginReading()  // SIGINT now marks an interrupt instead of ending the process
        defer { GuardState.endReading() }
        // The watcher holds the current task only while `operation` runs: it is cancelled and
        // awaited before this returns, so the unsafe reference never outlives the task.
        let watcher: Task<Void, Never>? = withUnsafeCurrentTask { current in
            guard let current else { return nil }
            let task = Held(task: current)
            return Task.detached {
                while !Task.isCancelled {
                    if GuardState.interruptPending.load(ordering: .sequentiallyConsistent) {
                        task.task.cancel()
                        return
                    }
                    try? await Task.sleep(for: .milliseconds(20))
                }
            }
        }
        let value = await operation()
        watcher?.cancel()
        await watcher?.value
        return (value, GuardState.takeInterrupt())
    }

    /// The task a watcher cancels, handed to it across the task boundary.
    private struct Held: @unchecked Sendable {
        let task: UnsafeCurrentTask
    }
}
