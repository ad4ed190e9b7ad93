import AccountStore
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Files and folders another local user could have planted at the database path (SECURITY.md).
///
/// As root, `nobody` plays the other user: files are given to it with `lchown`, and
/// `/tmp`-like folders are made with mode 1777.
@Suite("Hostile files at the database path", .enabled(if: getuid() == 0, "needs root to give files to nobody"))
struct HostileFileTests {
    @Test("a dangling symbolic link at the path is refused and its target never created")
    func danglingLink() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            let target = folder.file("elsewhere.sqlite")
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
            let error = #expect(throws: StoreError.self) { try AccountStore(path: path) }
            #expect(error?.description.contains("symbolic link") == true)
            #expect(throws: StoreError.self) { try AccountStore.openExisting(path: path) }
            #expect(!FileManager.default.fileExists(atPath: target))
        }
    }

    @Test("a link to another user's empty file is refused, and that file is neither changed nor chmod-ed")
    func linkToAnotherUsersFile() throws {
        try withTemporaryFolder { folder throws in
            let theirs = folder.file("theirs")
            #expect(FileManager.default.createFile(atPath: theirs, contents: Data()))
            try giveToNobody(theirs)
            try setMode(theirs, 0o644)
            let path = folder.file("accounts.sqlite")
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: theirs)
            #expect(throws: StoreError.self) { try AccountStore(path: path) }
            #expect(try mode(theirs) == 0o644)
            #expect(try Data(contentsOf: URL(fileURLWithPath: theirs)).isEmpty)
        }
    }

    @Test("in a sticky world-writable folder, a file planted by another user is refused, naming them")
    func plantedInStickyFolder() throws {
        try withTemporaryFolder { folder throws in
            let shared = try stickyFolder(in: folder)
            let path = shared + "/accounts.sqlite"
            #expect(FileManager.default.createFile(atPath: path, contents: Data()))
            try giveToNobody(path)
            try setMode(path, 0o644)

            let error = #expect(throws: StoreError.self) { try AccountStore(path: path) }
            #expect(error?.description.contains("belongs to user nobody") == true)
            #expect(throws: StoreError.self) { try AccountStore.openExisting(path: path) }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)).isEmpty, "the planted file received nothing")
        }
    }

    @Test("in a sticky folder, a folder planted by another user is refused; one we make there ourselves works")
    func foldersInStickyFolder() throws {
        try withTemporaryFolder { folder throws in
            let shared = try stickyFolder(in: folder)
            try FileManager.default.createDirectory(atPath: shared + "/theirs", withIntermediateDirectories: false)
            try giveToNobody(shared + "/theirs")
            let error = #expect(throws: StoreError.self) { try AccountStore(path: shared + "/theirs/accounts.sqlite") }
            #expect(error?.description.contains("belongs to user nobody") == true)
            #expect(try names(in: shared + "/theirs").isEmpty)

            let store = try AccountStore(path: shared + "/ours/accounts.sqlite")
            _ = try store.create(email: "alice@example.com", passwordHash: fakeHash)
            #expect(try mode(shared + "/ours") == 0o700)
        }
    }

    @Test("a database folder others can write is refused even with the sticky bit: -wal and -shm could be planted")
    func databaseInStickyFolder() throws {
        try withTemporaryFolder { folder throws in
            let shared = try stickyFolder(in: folder)
            let error = #expect(throws: StoreError.self) { try AccountStore(path: shared + "/accounts.sqlite") }
            #expect(error?.description.contains("can be written by other users") == true)
            #expect(try names(in: shared).isEmpty)
        }
    }

    @Test("a group-writable folder on the way is refused")
    func groupWritableFolder() throws {
        try withTemporaryFolder { folder throws in
            let open = folder.file("open")
            try FileManager.default.createDirectory(atPath: open + "/inner", withIntermediateDirectories: true)
            try setMode(open, 0o775)
            let error = #expect(throws: StoreError.self) { try AccountStore(path: open + "/inner/accounts.sqlite") }
            #expect(error?.description.contains("mode 0775") == true)
            #expect(try names(in: open + "/inner").isEmpty)
        }
    }

    @Test("a folder link planted by another user in a sticky folder is refused")
    func plantedFolderLink() throws {
        try withTemporaryFolder { folder throws in
            let shared = try stickyFolder(in: folder)
            let theirs = folder.file("theirs")
            try FileManager.default.createDirectory(atPath: theirs, withIntermediateDirectories: false)
            try giveToNobody(theirs)
            let link = shared + "/data"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: theirs)
            try giveToNobody(link)
            let error = #expect(throws: StoreError.self) { try AccountStore(path: link + "/accounts.sqlite") }
            #expect(error?.description.contains("belongs to user nobody") == true)
            #expect(try names(in: theirs).isEmpty)
        }
    }

    @Test("a folder link of our own is followed and its target checked like any folder")
    func ownFolderLink() throws {
        try withTemporaryFolder { folder throws in
            let real = folder.file("real")
            try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: false)
            try FileManager.default.createSymbolicLink(atPath: folder.file("link"), withDestinationPath: "real")
            let store = try AccountStore(path: folder.file("link/accounts.sqlite"))
            _ = try store.create(email: "alice@example.com", passwordHash: fakeHash)
            #expect(FileManager.default.fileExists(atPath: real + "/accounts.sqlite"))
        }
    }

    @Test("a -wal, -shm or -journal that is a symbolic link is refused and its target untouched", arguments: ["-wal", "-shm", "-journal"])
    func sideFileLink(suffix: String) throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            do { _ = try AccountStore(path: path).create(email: "alice@example.com", passwordHash: fakeHash) }
            let target = folder.file("target")
            // signup keeps the -wal and -shm beside the file: the link takes the place of one.
            try? FileManager.default.removeItem(atPath: path + suffix)
            try FileManager.default.createSymbolicLink(atPath: path + suffix, withDestinationPath: target)
            let error = #expect(throws: StoreError.self) { try AccountStore(path: path) }
            #expect(error?.description.contains("its \(suffix) file is a symbolic link") == true)
            #expect(throws: StoreError.self) { try AccountStore.openExisting(path: path) }
            #expect(!FileManager.default.fileExists(atPath: target))
        }
    }

    // Outside review: SQLite replays a -wal into the database, so a -wal another user owns, or
    // that others can write, let them rewrite accounts; only its type used to be checked.
    @Test("a -wal, -shm or -journal another user owns or others can write is refused, the file untouched",
          arguments: ["-wal", "-shm", "-journal"], [true, false])
    func sideFileOfAnotherUser(suffix: String, givenToNobody: Bool) throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            do { _ = try AccountStore(path: path).create(email: "alice@example.com", passwordHash: fakeHash) }
            let before = try sha256(path)  // before the side file: reading it through SQLite would replay it
            let side = path + suffix
            _ = unlink(side)
            #expect(FileManager.default.createFile(atPath: side, contents: Data()))
            if givenToNobody {
                try giveToNobody(side)
                #expect(chmod(side, 0o600) == 0)
            } else {
                #expect(chmod(side, 0o666) == 0)
            }
            let error = #expect(throws: StoreError.self) { try AccountStore(path: path) }
            #expect(error?.description.contains("its \(suffix) file") == true, "\(String(describing: error))")
            #expect(throws: StoreError.self) { try AccountStore.openExisting(path: path) }
            #expect(try sha256(path) == before)
        }
    }

    @Test("a named pipe at the path is refused without blocking")
    func fifoAtPath() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            try #require(mkfifo(path, 0o600) == 0)
            let error = #expect(throws: StoreError.self) { try AccountStore(path: path) }
            #expect(error?.description.contains("named pipe") == true)
            #expect(throws: StoreError.self) { try AccountStore.openExisting(path: path) }
        }
    }

    @Test("a device at the path is refused")
    func deviceAtPath() throws {
        #expect(throws: StoreError.unavailable(reason: "cannot open /dev/null: it is a device, not a file")) {
            try AccountStore(path: "/dev/null")
        }
        #expect(throws: StoreError.self) { try AccountStore.openExisting(path: "/dev/zero") }
    }

    @Test("a database file others can write is refused")
    func worldWritableFile() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            do { _ = try AccountStore(path: path) }
            try setMode(path, 0o666)
            let error = #expect(throws: StoreError.self) { try AccountStore(path: path) }
            #expect(error?.description.contains("other users can write it (mode 0666)") == true)
        }
    }

    @Test("root writes a service account's database in its own 0700 folder, and the file keeps owner and mode 0640")
    func serviceAccountDatabase() throws {
        try withTemporaryFolder { folder throws in
            let service = folder.file("service")
            let path = service + "/accounts.sqlite"
            do { _ = try AccountStore(path: path).create(email: "alice@example.com", passwordHash: fakeHash) }
            try giveToNobody(service)
            try giveToNobody(path)
            try setMode(path, 0o640)

            let store = try AccountStore(path: path)
            _ = try store.create(email: "bob@example.com", passwordHash: fakeHash)
            #expect(try store.accounts().map(\.email) == ["alice@example.com", "bob@example.com"])
            #expect(try AccountStore.openExisting(path: path)?.accounts().count == 2)
            #expect(try mode(path) == 0o640)
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.ownerAccountID] as? Int) == Int(nobody.uid))
        }
    }

    @Test("a path whose bytes are not UTF-8 names exactly those bytes, side files included")
    func nonUTF8Path() throws {
        try withTemporaryFolder { folder throws in
            let bytes = Array(folder.path.utf8) + Array("/caf".utf8) + [0xE9] + Array("/d".utf8) + [0xFF] + Array(".sqlite".utf8)
            let path = try DatabasePath(bytes)
            do {
                let store = try AccountStore(at: path)
                _ = try store.create(email: "alice@example.com", passwordHash: fakeHash)
                #expect(try store.accounts().count == 1)
            }
            var info = stat()
            #expect(bytes.withUnsafeBufferPointer { buffer in
                (Array(buffer) + [0]).withUnsafeBufferPointer { stat(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), &info) }
            } == 0)
            #expect(info.st_mode & 0o777 == 0o600)
            #expect(try AccountStore.openExisting(at: path)?.accounts().count == 1)
        }
    }

    /// Changes the current folder, which is the process's: while it is changed, every child any
    /// other test spawns starts in it, and in a folder already removed when parallel cases
    /// restored each other's (psql then said "could not identify current directory" and swiftc
    /// trapped, failing tests of other suites). So it runs in a process of its own (an exit test),
    /// each name in turn. A failed check is its exit status: 10, 20, 30 or 40 for the name, plus
    /// 1 to 5 for the check.
    @Test("URI-looking paths are plain file names")
    func uriLookingNames() async {
        await #expect(processExitsWith: .success) {
            for (index, name) in [":memory:", "file:accounts.sqlite", "accounts.sqlite?nolock=1", "file:x.sqlite?mode=memory"].enumerated() {
                let code = Int32(10 + 10 * index)
                let folder = try TemporaryFolder(base: NSTemporaryDirectory())
                defer { folder.remove() }
                guard FileManager.default.changeCurrentDirectoryPath(folder.path) else { exit(code) }
                let path = try DatabasePath(name)
                let resolved = String(decoding: path.bytes, as: UTF8.self)
                guard resolved == folder.path + "/" + name || resolved.hasSuffix("/" + name) else { exit(code + 1) }
                do {
                    let store = try AccountStore(at: path)
                    _ = try store.create(email: "alice@example.com", passwordHash: fakeHash)
                    do {
                        _ = try store.create(email: "alice@example.com", passwordHash: fakeHash)
                        exit(code + 2)
                    } catch StoreError.emailTaken {}
                }
                // The file has exactly that name, and so have the -wal and -shm signup keeps beside it.
                guard try Set(names(in: folder.path)) == [name, name + "-wal", name + "-shm"] else { exit(code + 3) }
                // Python's sqlite3 without uri=True reads an absolute name as a plain file too.
                let script = "import os, sqlite3; print(sqlite3.connect(os.environ['DB']).execute('SELECT email FROM account').fetchall())"
                let read = try run(["python3", "-c", script], environment: ["DB": folder.file(name)])
                guard read.output == "[('alice@example.com',)]\n" else { exit(code + 4) }
                guard FileManager.default.changeCurrentDirectoryPath("/") else { exit(code + 5) }
            }
        }
    }
}

/// A `/tmp`-like folder (mode 1777) named `shared` in `folder`.
private func stickyFolder(in folder: TemporaryFolder) throws -> String {
    let shared = folder.file("shared")
    try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
    try setMode(shared, 0o1777)
    return shared
}
