import AccountStore
import Foundation
import SignupCore
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("Database files on disk")
struct StoreFilesTests {
    @Test("new folders are 0700 and the file, -wal and -shm are 0600 under umask 022")
    func permissions() throws {
        let previous = umask(0o022)
        defer { umask(previous) }
        try withTemporaryFolder { folder throws in
            let path = folder.file("data/signup/accounts.sqlite")
            let store = try AccountStore(path: path)
            _ = try store.create(email: "alice@example.com", passwordHash: fakeHash)

            #expect(try mode(folder.file("data")) == 0o700)
            #expect(try mode(folder.file("data/signup")) == 0o700)
            #expect(try mode(path) == 0o600)
            let wal = path + "-wal"
            #expect(FileManager.default.fileExists(atPath: wal), "WAL mode should keep a -wal file while open")
            for sidecar in [wal, path + "-shm"] where FileManager.default.fileExists(atPath: sidecar) {
                #expect(try mode(sidecar) == 0o600, "\(sidecar)")
            }
            let journal = try sqliteRows(path, "PRAGMA journal_mode")
            #expect(journal == ["wal"])
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
