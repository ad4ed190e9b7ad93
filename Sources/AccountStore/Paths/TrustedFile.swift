import SignupCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file that settings are read from, trusted by the rules the database path follows.
///
/// signup's configuration decides where accounts go and how hard their hashes are: whoever
/// can write it can weaken both. So it is walked from `/` as a database is (``StoreLocation``'s
/// rules, after OpenSSH's StrictModes): no folder on the way writable by its group or others
/// unless sticky, its own folder not writable by them at all, the file a regular file (never a
/// symbolic link) that its group and others cannot write; and, stricter than for a database,
/// the file and every folder it is looked up in (its own, those on the way, those holding a
/// link on the way) belong to root or to the user running signup: the owner of any of them
/// could remove the file or put another in its place.
public enum TrustedFile {
    /// The file's identity when it can be trusted, to compare with the descriptor then opened.
    public struct Identity: Sendable, Equatable {
        /// The device the file is on (`st_dev`).
        public let device: UInt64
        /// The file's inode (`st_ino`).
        public let inode: UInt64
    }

    /// Checks the file at `path` (raw bytes) and returns its identity, or throws a reason that
    /// names the path and what another user could do; a missing file is `ENOENT`'s reason.
    public static func check(_ path: [UInt8]) throws(StoreError) -> Identity {
        let file = try DatabasePath(path)
        let resolved = try FileSystem.resolve(file, creatingFolders: false, database: false)
        var info = stat()
        guard resolved.entry != .missing, FileSystem.lstatBytes(resolved.canonical, &info) == 0 else {
            throw .cannotUse(file, FileSystem.describe(ENOENT))
        }
        if info.st_uid != 0 && info.st_uid != geteuid() {
            throw .cannotUse(file, "it belongs to \(FileSystem.userName(info.st_uid)), who can change it")
        }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}
