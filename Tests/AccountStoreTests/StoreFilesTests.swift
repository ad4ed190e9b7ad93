import AccountStore
import Foundation
import SignupCore
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("Database files on disk")
struct StoreFilesTests {
    /// The umask is the process's: set in a process of its own (an exit test), so that no
    /// other test's files are made under it meanwhile. A failed check is its exit status.
    @Test("new folders are 0700 and the file, -wal and -shm are 0600 under umask 022")
    func permissions() async {
        await #expect(processExitsWith: .success) {
            umask(0o022)
            try withTemporaryFolder { folder throws in
                let path = folder.file("data/signup/accounts.sqlite")
                let store = try AccountStore(path: path)
                _ = try store.create(email: "alice@example.com", passwordHash: fakeHash)
                guard try mode(folder.file("data")) == 0o700 else { exit(10) }
                guard try mode(folder.file("data/signup")) == 0o700 else { exit(11) }
                guard try mode(path) == 0o600 else { exit(12) }
                let wal = path + "-wal"
                guard FileManager.default.fileExists(atPath: wal) else { exit(13) }  // WAL mode keeps a -wal file while open
                for sidecar in [wal, path + "-shm"] where FileManager.default.fileExists(atPath: sidecar) {
                    guard try mode(sidecar) == 0o600 else { exit(14) }
                }
                guard try sqliteRows(path, "PRAGMA journal_mode") == ["wal"] else { exit(15) }
            }
        }
    }

    @Test("an existing folder keeps its mode")
    func existingFolderUntouched() throws {
        try withTemporaryFolder { folder throws in
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
            _ = try AccountStore(path: folder.file("accounts.sqlite"))
            #expect(try mode(folder.path) == 0o755)
        }
    }

    @Test("the plaintext password appears in no database file")
    func noPlaintext() throws {
        try withTemporaryFolder { folder throws in
            let password = "Plaintext-Zebra-4417"
            let path = folder.file("accounts.sqlite")
            let store = try AccountStore(path: path)
            _ = try store.create(email: "alice@example.com", passwordHash: try PasswordHasher.hash(Secret(password)))

            func files() throws -> [String] {
                try FileManager.default.contentsOfDirectory(atPath: folder.path).map(folder.file)
            }
            let needles = [Data(password.utf8), Data(password.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })]
            let open = try files()
            #expect(open.contains(path + "-wal"))
            for file in open {
                let contents = try Data(contentsOf: URL(fileURLWithPath: file))
                for needle in needles {
                    #expect(contents.firstRange(of: needle) == nil, "password found in \(file)")
                }
            }
            #expect(try store.passwordHash(forEmail: "alice@example.com")?.contains(password) == false)
        }
    }
}
