import Foundation
import Glibc
import Testing
import WizardTesting

/// A folder for `LD_LIBRARY_PATH` where `library` is a file that is not a library.
func brokenLibraryFolder(_ library: String, in scratch: ScratchFolder) throws -> String {
    let folder = scratch.path + "/broken-lib"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    try Data("not a library".utf8).write(to: URL(fileURLWithPath: folder + "/" + library))
    return folder
}

/// A library loaded on first use that cannot be loaded, met at a terminal in the middle of a
/// masked read: the process says which and exits 74, and the terminal is usable again.
@Suite struct MissingLibraryTerminalTests {
    @Test func aMissingLibzxcvbnAtThePasswordPromptExits74WithTheTerminalRestored() throws {
        let scratch = try ScratchFolder()
        let libraries = try brokenLibraryFolder("libzxcvbn.so.0", in: scratch)
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

/// libedit is loaded when the first terminal session that draws starts; a system where it cannot
/// be loaded still signs people up, with the line editor that draws without escape sequences.
@Suite struct MissingLibeditTerminalTests {
    @Test func withoutLibeditATerminalSignUpStillEditsAndCreatesTheAccount() throws {
        let scratch = try ScratchFolder()
        let libraries = try brokenLibraryFolder("libedit.so.2", in: scratch)
        let terminal = try PseudoTerminal(
            executable: signupBinary, arguments: ["--db", scratch.database],
            environment: PseudoTerminal.environment(["HOME": scratch.path, "LD_LIBRARY_PATH": libraries, "TERM": "xterm",
                                                     "SIGNUP_PASSWORD": "Quartz-Lantern-58"]))
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        // Left ×4 and a letter: edited in the middle, as any line editor of signup's does.
        try terminal.send("zed@example.om" + String(repeating: "\u{1B}[D", count: 2) + "c\r")
        try terminal.expect("Create account? [Y/n/e] ", timeout: 10)
        try terminal.send("y\r")
        #expect(try terminal.wait(timeout: 10) == .exited(0), "\(terminal.text())")
        #expect(try scratch.storedEmails() == ["zed@example.com"])
        #expect(!terminal.text().contains("libedit"), "the missing library is not the person's business: \(terminal.text())")
    }
}
