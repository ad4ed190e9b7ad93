import AccountStore
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("Full disks")
struct DiskFullTests {
    @Test("a full disk is unavailable with a reason, not a crash", .enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
    func diskFull() throws {
        try withTemporaryFolder { folder throws in
            let mountPoint = folder.file("tiny")
            try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
            let mount = try run(["mount", "-t", "tmpfs", "-o", "size=256k,mode=0755", "tmpfs", mountPoint])
            try #require(mount.status == 0, "mount -t tmpfs failed: \(mount.error)")
            defer { _ = try? run(["umount", mountPoint]) }

            let path = (mountPoint as NSString).appendingPathComponent("accounts.sqlite")
            let bulky = bulkyHash(characters: 8 * 1024)
            var failure: StoreError?
            do {
                let store = try AccountStore(path: path)
                for number in 0..<128 {
                    do throws(StoreError) {
                        _ = try store.create(email: "n\(number)@example.com", passwordHash: bulky)
                    } catch {
                        failure = error
                        break
                    }
                }
                #expect(failure != nil)
            }
            let error = try #require(failure, "128 inserts of 8 KiB fitted in 256 KiB")
            #expect(error == .unavailable(reason: "the disk is full (database \(path))", problem: .diskFull))
        }
    }
}
