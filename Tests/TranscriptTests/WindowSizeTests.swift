import Foundation
import Glibc
import Testing
import WizardTesting

/// The window size comes from outside (an SSH client chooses it, and changes it at will): a
/// hostile one neither exhausts memory nor ends the run. libedit sized its screen buffers from it
/// (65535 × 65535: 9.2 GiB before the first prompt, or SIGSEGV under a memory limit).
@Suite struct WindowSizeTests {
    /// The run is held to 2 GiB of address space, so a regression fails instead of taking the machine.
    private static func start(rows: UInt16, columns: UInt16, scratch: ScratchFolder,
                              environment: [String: String?] = [:]) throws -> PseudoTerminal {
        var overrides = environment
        overrides["HOME"] = .some(scratch.path)
        overrides["NO_COLOR"] = .some(nil)  // libedit edits the lines, as for most people
        return try PseudoTerminal(
            executable: "/bin/sh", arguments: ["-c", "ulimit -v 2097152; exec \"$0\" \"$@\"", signupBinary, "--db", scratch.database, "--dry-run"],
            environment: PseudoTerminal.environment(overrides), rows: rows, columns: columns)
    }

    private static func signUp(_ terminal: PseudoTerminal) throws {
        try terminal.send("wide@example.com\r")
        try terminal.expect("Password: ", timeout: 10)
        try terminal.send("Quartz-Lantern-58\r")
        try terminal.expect("Confirm password: ", timeout: 10)
        try terminal.send("Quartz-Lantern-58\r")
        try terminal.expect("[Y/n/e] ", timeout: 10)
        try terminal.send("y\r")
        #expect(try terminal.wait(timeout: 10) == .exited(0), "\(terminal.text())")
        #expect(!terminal.transcript.containsBytes("Quartz-Lantern-58".utf8))
    }

    /// Peak memory of the run so far, in KiB (`VmHWM`).
    private static func peakKiB(_ pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return -1 }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
        return line.flatMap { Int($0.split(separator: " ")[1]) } ?? -1
    }

    @Test(arguments: [(UInt16(65535), UInt16(65535)), (UInt16(24), UInt16(65535)), (UInt16(65535), UInt16(80))])
    func aHugeWindowAtTheStartIsEditedWithinBounds(rows: UInt16, columns: UInt16) throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.start(rows: rows, columns: columns, scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        let peak = Self.peakKiB(terminal.pid)
        #expect(peak > 0 && peak < 100 * 1024, "peak memory at the first prompt: \(peak) KiB")
        try Self.signUp(terminal)
    }

    /// An SSH `window-change` to a hostile size between two prompts (libedit reads the size again
    /// at every line) and in the middle of one.
    @Test func aWindowThatGrowsHugeDuringTheRunIsEditedWithinBounds() throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.start(rows: 24, columns: 80, scratch: scratch)
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        try terminal.send("wide@exa")
        try terminal.setWindowSize(rows: 65535, columns: 65535)
        usleep(200_000)
        try terminal.send("mple.com\r")
        try terminal.expect("Password: ", timeout: 10)
        try terminal.send("Quartz-Lantern-58\r")
        try terminal.expect("Confirm password: ", timeout: 10)
        let peak = Self.peakKiB(terminal.pid)
        #expect(peak > 0 && peak < 100 * 1024, "peak memory after the window grew: \(peak) KiB")
        try terminal.send("Quartz-Lantern-58\r")
        try terminal.expect("[Y/n/e] ", timeout: 10)
        try terminal.send("y\r")
        #expect(try terminal.wait(timeout: 10) == .exited(0), "\(terminal.text())")
    }

    /// `COLUMNS` and `LINES`, which ncurses takes when the terminal reports no size.
    @Test func hugeColumnsAndLinesWithNoWindowSizeAreEditedWithinBounds() throws {
        let scratch = try ScratchFolder()
        let terminal = try Self.start(rows: 0, columns: 0, scratch: scratch, environment: ["COLUMNS": "65535", "LINES": "65535"])
        defer { terminal.kill(SIGKILL) }
        try terminal.expect("Email: ", timeout: 10)
        try Self.signUp(terminal)
    }
}
