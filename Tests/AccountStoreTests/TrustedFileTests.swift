import AccountStore
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `TrustedFile`: a file of settings is trusted by the database path's rules, and more strictly
/// about its owner (SECURITY.md, "The configuration files").
@Suite struct TrustedFileTests {
    /// A 0644 file `signup.conf` in a 0755 folder, written by this process.
    static func settingsFile(in folder: TemporaryFolder) -> String {
        chmod(folder.path, 0o755)
        let path = folder.file("signup.conf")
        _ = FileManager.default.createFile(atPath: path, contents: Data("policy = strict\n".utf8))
        chmod(path, 0o644)
        return path
    }

    @Test func ourOwnFileIsTrustedAndNamedByItsDeviceAndInode() throws {
        try withTemporaryFolder { folder throws in
            let path = Self.settingsFile(in: folder)
            let identity = try TrustedFile.check(Array(path.utf8))
            var info = stat()
            #expect(lstat(path, &info) == 0)
            #expect(identity.device == UInt64(info.st_dev) && identity.inode == UInt64(info.st_ino))
        }
    }

    @Test func aFileOrFolderOthersCanWriteIsRefused() throws {
        try withTemporaryFolder { folder throws in
            let path = Self.settingsFile(in: folder)
            chmod(path, 0o664)
            var error = #expect(throws: StoreError.self) { try TrustedFile.check(Array(path.utf8)) }
            #expect(error?.description == "cannot use \(path): other users can write it (mode 0664)")
            chmod(path, 0o644)
            chmod(folder.path, 0o1777)
            error = #expect(throws: StoreError.self) { try TrustedFile.check(Array(path.utf8)) }
            #expect(error?.description.contains("who could replace the file") == true, "\(String(describing: error))")
            #expect(error?.description.contains("SQLite") == false)
        }
    }

    @Test func aLinkAMissingFileAndAFolderAreRefused() throws {
        try withTemporaryFolder { folder throws in
            let path = Self.settingsFile(in: folder)
            let link = folder.file("link.conf")
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
            var error = #expect(throws: StoreError.self) { try TrustedFile.check(Array(link.utf8)) }
            #expect(error?.description.contains("symbolic link") == true && error?.description.contains("database") == false)
            error = #expect(throws: StoreError.self) { try TrustedFile.check(Array(folder.file("none.conf").utf8)) }
            #expect(error?.description.hasSuffix("No such file or directory") == true)
            #expect(throws: StoreError.self) { try TrustedFile.check(Array(folder.path.utf8)) }
        }
    }

    @Test(.enabled(if: getuid() == 0, "needs root to give a folder to nobody"))
    func aFolderAnotherUserOwnsIsRefusedOnTheWayAndThroughALink() throws {
        try withTemporaryFolder { folder throws in
            let owned = folder.file("theirs")
            mkdir(owned, 0o755)
            mkdir(owned + "/mine", 0o755)
            let path = owned + "/mine/signup.conf"
            _ = FileManager.default.createFile(atPath: path, contents: Data("a = b\n".utf8))
            chmod(path, 0o644)
            #expect(throws: Never.self) { try TrustedFile.check(Array(path.utf8)) }
            lchown(owned, 65534, 65534)
            var error = #expect(throws: StoreError.self) { try TrustedFile.check(Array(path.utf8)) }
            #expect(error?.description == "cannot use \(path): its folder \(owned) belongs to user nobody (65534), who could remove or replace the file",
                    "\(String(describing: error))")
            // A link on the way in a folder of ours, to a folder of theirs: theirs is still looked in.
            let link = folder.file("link")
            symlink(owned + "/mine", link)
            error = #expect(throws: StoreError.self) { try TrustedFile.check(Array((link + "/signup.conf").utf8)) }
            #expect(error?.description.contains("its folder \(owned) belongs to user nobody (65534)") == true, "\(String(describing: error))")
            // Its own folder.
            lchown(owned, 0, 0)
            lchown(owned + "/mine", 65534, 65534)
            error = #expect(throws: StoreError.self) { try TrustedFile.check(Array(path.utf8)) }
            #expect(error?.description.contains("its folder \(owned)/mine belongs to user nobody (65534)") == true, "\(String(describing: error))")
        }
    }

    @Test(.enabled(if: getuid() == 0, "needs root to give the file to nobody"))
    func aFileAnotherUserOwnsIsRefusedWhateverItsMode() throws {
        try withTemporaryFolder { folder throws in
            let path = Self.settingsFile(in: folder)
            lchown(path, 65534, 65534)
            let error = #expect(throws: StoreError.self) { try TrustedFile.check(Array(path.utf8)) }
            #expect(error?.description.contains("belongs to user nobody (65534), who can change it") == true, "\(String(describing: error))")
        }
    }
}
