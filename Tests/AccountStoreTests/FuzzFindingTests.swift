import AccountStore
import Foundation
import Testing

/// Defects the fuzz targets found (Fuzz/Regressions/FuzzStore), kept as plain tests.
@Suite struct FuzzFindingTests {
    // Fuzz/Regressions/FuzzStore/foreign-wal-checkpointed-by-reader: SQLite's checkpoint on
    // close wrote the -wal into the foreign file and removed the -wal, after which the store
    // said "not a signup database".
    @Test("a reader refuses another program's WAL database with a -wal beside it and leaves both byte for byte")
    func foreignWALUntouchedByReader() throws {
        try withTemporaryFolder { folder throws in
            let path = folder.file("other.sqlite")
            // Another program that stopped before a checkpoint: its last commit is only in the -wal.
            let script = """
                import os, shutil, sqlite3
                path = os.environ["DB"]
                db = sqlite3.connect(path + ".live", isolation_level=None)
                db.execute("PRAGMA journal_mode = WAL")
                db.execute("PRAGMA wal_autocheckpoint = 0")
                db.execute("CREATE TABLE notes (body TEXT)")
                db.execute("INSERT INTO notes VALUES ('only in the wal')")
                shutil.copy(path + ".live", path)
                shutil.copy(path + ".live-wal", path + "-wal")
                """
            let made = try run(["python3", "-c", script], environment: ["DB": path])
            try #require(made.status == 0, "python3 failed: \(made.error)")
            let database = try Data(contentsOf: URL(fileURLWithPath: path))
            let wal = try Data(contentsOf: URL(fileURLWithPath: path + "-wal"))

            #expect(throws: StoreError.self) { try AccountStore.openExisting(path: path) }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == database)
            #expect(FileManager.default.contents(atPath: path + "-wal") == wal)
            #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
        }
    }

    // Fuzz/Regressions/FuzzStore/damaged-file-switched-to-wal-by-writer: the writer switched the
    // file to WAL (rewriting its header) before a migration found it damaged and refused it.
    @Test("a writer refuses a damaged file and leaves it byte for byte")
    func damagedFileUntouchedByWriter() throws {
        let regression = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fuzz/Regressions/FuzzStore/damaged-file-switched-to-wal-by-writer").standardized
        let input = try Data(contentsOf: regression)
        try #require(input.first == 1, "the input's flags byte asks for a writer alone")
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            let file = input.dropFirst()
            try file.write(to: URL(fileURLWithPath: path))
            #expect(throws: StoreError.self) { try AccountStore(path: path) }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == file)
            for suffix in ["-wal", "-shm", "-journal"] {
                #expect(!FileManager.default.fileExists(atPath: path + suffix), "\(suffix) left behind")
            }
        }
    }

    // Fuzz/Regressions/FuzzStore/damaged-file-with-wal-replayed-by-writer: with a crash-left -wal
    // beside a damaged file, the writer's connection replayed and removed the -wal before a
    // migration found the file damaged and refused it.
    // …/damaged-wal-removed-by-a-refusing-writer: the same, refused as read-only by the writer's
    // WAL recovery; what the writer does is now rehearsed on the private copy first.
    @Test("a writer refuses a damaged file with a crash-left -wal and leaves both byte for byte",
          arguments: ["damaged-file-with-wal-replayed-by-writer", "damaged-wal-removed-by-a-refusing-writer"])
    func damagedFileWithWALUntouchedByWriter(regressionName: String) throws {
        let regression = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fuzz/Regressions/FuzzStore/" + regressionName).standardized
        let input = [UInt8](try Data(contentsOf: regression))
        try #require(input.count > 2 && input[0] == 9, "flags: a writer alone, the bytes split into a -wal")
        let bytes = input[2...]
        let split = bytes.startIndex + Int(input[1]) * 64
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            let file = Data(bytes[..<split]), wal = Data(bytes[split...])
            try file.write(to: URL(fileURLWithPath: path))
            try wal.write(to: URL(fileURLWithPath: path + "-wal"))
            #expect(throws: StoreError.self) { try AccountStore(path: path) }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == file)
            #expect(FileManager.default.contents(atPath: path + "-wal") == wal)
            #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
        }
    }

    // Fuzz/Regressions/FuzzStore/damaged-file-cut-to-whole-pages-by-writer: a file that is not a
    // whole number of its pages; the writer's rolled-back migration cut it to whole pages.
    @Test("a writer and a reader refuse a file that is not a whole number of pages, and leave it byte for byte")
    func partialPageUntouched() throws {
        let regression = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fuzz/Regressions/FuzzStore/damaged-file-cut-to-whole-pages-by-writer").standardized
        let input = try Data(contentsOf: regression)
        try #require(input.first == 2, "the input's flags byte asks for a writer, then a reader")
        try withTemporaryFolder { folder throws in
            let path = folder.file("accounts.sqlite")
            let file = input.dropFirst()
            try file.write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: StoreError.self) { try AccountStore(path: path) }
            #expect(error?.description.contains("damaged") == true)
            #expect(throws: StoreError.self) { try AccountStore.openExisting(path: path) }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == file)
        }
    }
}
