import AccountStore
import Foundation
import Testing

/// Whoever may write the database's folder (a service account that owns it, with root running
/// signup) swaps a symbolic link in at the database path between signup's check of the path and
/// SQLite's open. SQLite used to follow it: root then created, or wrote an account into, a file
/// the link named in a folder only root may write. The check and the open must agree: a link
/// that appears after the check is refused by the open itself.
@Suite("A link swapped in at the database path after its check")
struct LinkSwapTests {
    /// Another process swaps `a.sqlite` between a link to `target` and a hard link to a real
    /// database, as fast as it can, until `stop` appears or 60 s pass.
    private static let swapper = """
        import os, sys, time
        folder, target = sys.argv[1], sys.argv[2]
        end = time.time() + 60
        swaps = 0
        while time.time() < end and not os.path.exists(os.path.join(folder, "stop")):
            os.symlink(target, os.path.join(folder, "l"))
            os.rename(os.path.join(folder, "l"), os.path.join(folder, "a.sqlite"))
            os.link(os.path.join(folder, "real.sqlite"), os.path.join(folder, "r2"))
            os.rename(os.path.join(folder, "r2"), os.path.join(folder, "a.sqlite"))
            swaps += 1
            if swaps == 10:
                open(os.path.join(folder, "started"), "w").close()
        """

    @Test("is never followed: the file it names is never created nor written", arguments: ["missing", "empty", "database"])
    func aLinkSwappedInIsNeverFollowed(target kind: String) throws {
        try withTemporaryFolder { folder throws in
            try FileManager.default.createDirectory(atPath: folder.file("service"), withIntermediateDirectories: false)
            try FileManager.default.createDirectory(atPath: folder.file("rootonly"), withIntermediateDirectories: false)
            let target = folder.file("rootonly/" + kind)
            switch kind {
            case "empty": #expect(FileManager.default.createFile(atPath: target, contents: nil))
            case "database": _ = try AccountStore(path: target).create(email: "private@example.com", passwordHash: fakeHash)
            default: break
            }
            let real = folder.file("service/real.sqlite")
            _ = try AccountStore(path: real).create(email: "service@example.com", passwordHash: fakeHash)
            try FileManager.default.linkItem(atPath: real, toPath: folder.file("service/a.sqlite"))
            let swapping = Process()
            swapping.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            swapping.arguments = ["python3", "-c", Self.swapper, folder.file("service"), target]
            try swapping.run()
            defer {
                _ = FileManager.default.createFile(atPath: folder.file("service/stop"), contents: nil)
                swapping.waitUntilExit()
            }
            let started = Date()
            while !FileManager.default.fileExists(atPath: folder.file("service/started")) && Date().timeIntervalSince(started) < 30 {
                Thread.sleep(forTimeInterval: 0.01)
            }
            try #require(FileManager.default.fileExists(atPath: folder.file("service/started")), "the swapping process never started")
            var stored = 0
            for attempt in 0..<1_000 {
                // A store of its own each time: the file is opened anew, as by a new signup process.
                if let store = try? AccountStore(path: folder.file("service/a.sqlite")),
                   (try? store.create(email: "r\(attempt)@example.com", passwordHash: fakeHash)) != nil {
                    stored += 1
                }
                let followed = switch kind {
                case "missing": FileManager.default.fileExists(atPath: target)
                case "empty": (try? FileManager.default.attributesOfItem(atPath: target)[.size] as? Int) != 0
                default: (try? AccountStore(path: target).accounts().count) != 1
                }
                #expect(!followed, "the link was followed after \(attempt + 1) opens")
                if followed { break }
            }
            #expect(stored > 0, "no open went through while the real file was in place: the test proved nothing")
            if kind == "database" {
                #expect(try AccountStore(path: target).accounts().map(\.email) == ["private@example.com"])
            }
        }
    }
}
