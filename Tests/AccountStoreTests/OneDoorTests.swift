import AccountStore
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// One door to the database file: a process holds one connection to a file, and nothing of
/// signup's own closes a descriptor of it while that connection holds SQLite's locks (closing any
/// descriptor of a file drops every POSIX lock the process holds on it).
@Suite("One connection to a database file per process")
struct OneDoorTests {
    /// Whether another process can take the write lock on the byte range SQLite's SHARED locks
    /// use: a WAL connection holds a SHARED lock for as long as it is open, and another process
    /// that closes its last connection checkpoints and deletes the -wal when it can take this.
    private func sharedRangeIsFree(_ path: String) throws -> Bool {
        let script = """
            import fcntl, os, sys
            fd = os.open(os.environ["DB"], os.O_RDWR)
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 510, 0x40000002)
            except OSError:
                print("held")
                sys.exit(0)
            print("free")
            """
        let probe = try run(["python3", "-c", script], environment: ["DB": path])
        try #require(probe.status == 0, "lock probe failed: \(probe.error)")
        return probe.output == "free\n"
    }

    /// How many of this process's descriptors name `file` (as `/proc/self/fd` resolves them).
    private func descriptors(of file: String) -> Int {
        let real = URL(fileURLWithPath: file).resolvingSymlinksInPath().path
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == real }.count
    }

    @Test("stores of one file share its connection, whatever path names it, and keep SQLite's lock while any is open")
    func storesShareOneConnection() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            try FileManager.default.createSymbolicLink(atPath: folder.file("link"), withDestinationPath: folder.path)
            var first: AccountStore? = try AccountStore(path: path)
            _ = try first?.create(email: "alice@example.com", passwordHash: fakeHash)
            #expect(try !sharedRangeIsFree(path))

            // What verify's upgrade, passwd and a script's sign-up do: open the same file again while it is open.
            var others: [AccountStore] = []
            for _ in 0..<3 {
                others.append(try #require(try AccountStore.openExisting(path: path)))
                others.append(try AccountStore(path: path))
                others.append(try #require(try AccountStore.openExisting(path: folder.file("link/accounts.sqlite"))))
            }
            #expect(descriptors(of: path) == 1)
            #expect(try !sharedRangeIsFree(path))
            _ = try others[1].create(email: "bob@example.com", passwordHash: fakeHash)
            #expect(try others[0].accounts().map(\.email) == ["alice@example.com", "bob@example.com"])

            others.removeAll()
            #expect(try !sharedRangeIsFree(path), "the first store's connection lost its lock when the others closed")
            first = nil
            #expect(descriptors(of: path) == 0)
            #expect(try sharedRangeIsFree(path))
        }
    }

    @Test("another process's last close does not delete the -wal under a connection this process still has open")
    func anotherProcessCannotTakeTheFileAway() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            let store = try AccountStore(path: path)
            _ = try store.create(email: "alice@example.com", passwordHash: fakeHash)
            do { _ = try AccountStore.openExisting(path: path)?.accounts() }
            let before = try FileManager.default.attributesOfItem(atPath: path + "-shm")[.systemFileNumber] as? Int
            // Python's connection does not keep side files: if it were the last, it would remove them.
            try sqliteScript(path, "INSERT INTO account (email, email_key, password_hash, created_at) VALUES ('x@example.com', 'x@example.com', 'h', 't');")
            let after = try FileManager.default.attributesOfItem(atPath: path + "-shm")[.systemFileNumber] as? Int
            #expect(before != nil && before == after)
            _ = try store.create(email: "bob@example.com", passwordHash: fakeHash)
            #expect(try sqliteRows(path, "PRAGMA integrity_check") == ["ok"])
            #expect(try sqliteRows(path, "SELECT email FROM account ORDER BY id") == ["alice@example.com", "x@example.com", "bob@example.com"])
        }
    }

    @Test("a reader holding a lock of the -shm keeps writers out, and they say the database is locked")
    func aLockOfTheSharedMemoryIsReportedAsALock() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            _ = try AccountStore(path: path).create(email: "alice@example.com", passwordHash: fakeHash)
            // What any process that may read the -shm can do: a read lock on SQLite's write-lock byte.
            let script = """
                import fcntl, os, sys, time
                fd = os.open(os.environ["SHM"], os.O_RDONLY)
                fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, 120)
                print("locked", flush=True)
                sys.stdin.read()
                """
            let holder = Process()
            holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            holder.arguments = ["python3", "-c", script]
            holder.environment = ProcessInfo.processInfo.environment.merging(["SHM": path + "-shm"]) { _, new in new }
            let input = Pipe(), output = Pipe()
            holder.standardInput = input
            holder.standardOutput = output
            try holder.run()
            defer { try? input.fileHandleForWriting.close(); holder.waitUntilExit() }
            _ = output.fileHandleForReading.availableData  // "locked"
            let error = #expect(throws: StoreError.self) {
                _ = try AccountStore(path: path).create(email: "bob@example.com", passwordHash: fakeHash)
            }
            #expect(error?.description.contains("locked by another program") == true, "\(String(describing: error))")
            if case .unavailable(_, let problem) = error { #expect(problem == .locked) } else { Issue.record("not unavailable: \(String(describing: error))") }
        }
    }

    @Test("a file its group may read is kept in the rollback journal: another user's reader that may only read it reads it, also after another program closed it last",
          .enabled(if: getuid() == 0, "changing owners needs root"))
    func groupReaderReadsWhoeverClosedLast() throws {
        try withTemporaryFolder { folder throws in
            let shared = folder.file("shared")
            try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
            let path = shared + "/accounts.sqlite"
            _ = try AccountStore(path: path).create(email: "alice@example.com", passwordHash: fakeHash)
            // The documented set-up: the reader's group on a 0640 file in a 0750 folder.
            try #require(chown(folder.path, 0, nobody.gid) == 0 && chmod(folder.path, 0o750) == 0)
            try #require(chown(shared, 0, nobody.gid) == 0 && chmod(shared, 0o750) == 0)
            try #require(chown(path, 0, nobody.gid) == 0 && chmod(path, 0o640) == 0)
            // The next run puts it in the rollback journal: no side file a reader would need.
            _ = try AccountStore(path: path).create(email: "bob@example.com", passwordHash: fakeHash)
            for suffix in ["-wal", "-shm", "-journal"] {
                #expect(!FileManager.default.fileExists(atPath: path + suffix), "\(suffix) is left beside the file")
            }
            let script = "import os, sqlite3; print(sqlite3.connect(os.environ['DB']).execute('SELECT email FROM account ORDER BY id').fetchall())"
            let read = try run(["setpriv", "--reuid=\(nobody.uid)", "--regid=\(nobody.gid)", "--clear-groups", "/usr/bin/python3", "-c", script],
                               environment: ["DB": path])
            #expect(read.output == "[('alice@example.com',), ('bob@example.com',)]\n", "\(read.error)")
            // Another program writes and closes it last (in WAL it deleted the -wal and -shm the reader needed).
            let writer = try run(["/usr/bin/python3", "-c",
                                  "import os, sqlite3; c = sqlite3.connect(os.environ['DB']); c.execute('UPDATE account SET state = state'); c.commit(); c.close()"],
                                 environment: ["DB": path])
            #expect(writer.error.isEmpty, "\(writer.error)")
            let again = try run(["setpriv", "--reuid=\(nobody.uid)", "--regid=\(nobody.gid)", "--clear-groups", "/usr/bin/python3", "-c", script],
                                environment: ["DB": path])
            #expect(again.output == "[('alice@example.com',), ('bob@example.com',)]\n", "\(again.error)")
        }
    }
}
