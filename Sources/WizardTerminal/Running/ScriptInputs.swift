import Synchronization

/// The script readers of this process, one for each pipe or terminal answers come from, shared
/// by every wizard that reads it: two `runOrExit` calls in one program, or two wizards on one
/// runner. A reader reads ahead (a pipe gives what was written, many lines at once); the lines it
/// read but did not hand out belong to the next wizard, so the reader outlives its run instead of
/// taking them with it.
///
/// A regular file needs no keeping: its offset is moved back to just after the last line handed
/// out, so the next reader, ours or another program's, starts there.
enum ScriptInputs {
    /// A reader and the file it reads: a descriptor closed and opened again on something else
    /// gets a reader of its own.
    private struct Entry: @unchecked Sendable {
        var fd: Int32
        var file: FileIdentity
        var reader: LineInput
    }

    /// Used from one thread at a time (a runner is not `Sendable`); the lock keeps the table whole.
    /// A list, not a dictionary keyed by descriptor: a process reads from one or two descriptors,
    /// and the first `[Int32: …]` of a process costs the runtime a scan of every conformance
    /// record (`Int32: Hashable`, about 236,000 instructions) before the first prompt.
    private static let readers = Mutex<[Entry]>([])

    /// The reader of `fd`: the one an earlier wizard left with lines still unread, or a new one.
    static func reader(for fd: Int32) -> LineInput {
        guard let file = Sys.fileIdentity(fd) else { return LineInput(fd: fd) }
        return readers.withLock { table in
            if let index = table.firstIndex(where: { $0.fd == fd }) {
                if table[index].file == file { return UnsafeTransfer(table[index].reader) }
                table.remove(at: index)
            }
            let reader = LineInput(fd: fd)
            table.append(Entry(fd: fd, file: file, reader: reader))
            return UnsafeTransfer(reader)
        }.value
    }

    /// Ends a wizard's reading: a file gets its unread bytes back and the reader is dropped; a
    /// pipe's or terminal's reader is kept, its used lines zeroed, until its input ends.
    static func release(_ reader: LineInput) {
        let keep: Bool
        if Sys.isSeekable(reader.fd) {
            _ = reader.giveBackUnread()
            keep = false
        } else {
            reader.forgetConsumed()
            keep = !reader.isAtEnd
        }
        guard !keep else { return }
        readers.withLock { table in
            table.removeAll { $0.fd == reader.fd && $0.reader === reader }
        }
    }
}

/// A value handed out of a lock that is not `Sendable`: the table keeps the reader, and one thread uses it.
private struct UnsafeTransfer<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
