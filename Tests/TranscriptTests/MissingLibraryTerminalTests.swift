import Foundation
import Glibc
import Testing

/// A library loaded on first use that cannot be loaded, met at a terminal in the middle of a
/// masked read: the process says which and exits 74, and the terminal is usable again.
@Suite struct MissingLibraryTerminalTests {
    @Test func aMissingLibzxcvbnAtThePasswordPromptExits74WithTheTerminalRestored() throws {
        let scratch = try ScratchFolder()
        let libraries = scratch.path + "/broken-lib"
        try FileManager.default.createDirectory(atPath: libraries, withIntermediateDirectories: true)
        try Data("not a library".utf8).write(to: URL(fileURLWithPath: libraries + "/libzxcvbn.so.0"))
        let shell = try SignalTests.underShell("", scratch: scratch, environment: ["LD_LIBRARY_PATH": libraries])
        defer { shell.kill(SIGKILL) }
        try shell.expect("Email: ", timeout: 10)
        try shell.send("zed@example.com\r")
        try shell.expect("Password: ", timeout: 10)
        try shell.send("Quartz-Lantern-58\r")
        try shell.expect("libzxcvbn cannot be loaded (Debian: libzxcvbn0)", timeout: 10)
        try SignalTests.expectRestored(shell, status: 74, "libzxcvbn")
        #expect(!shell.text().contains("Quartz-Lantern-58"), "the password was shown")
    }
}
