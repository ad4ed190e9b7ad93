import Foundation
import Glibc
import Testing
import WizardTesting

/// A terminal session that cannot start is said, not taken for end of input; a terminal other
/// than standard input that signup changed is put back by a signal.
@Suite struct TerminalStartTests {
    /// A folder for `LD_LIBRARY_PATH` holding a libedit.so.2 whose `el_init` returns NULL, as
    /// libedit's does when memory runs out (the only way it fails: an unknown TERM, a missing
    /// terminfo and a huge window all start). signup loads libedit with dlopen and finds its
    /// functions with dlsym, so the library must have every function signup asks for; none but
    /// `el_init` is reached.
    static func failingEditLine(in scratch: ScratchFolder) throws -> String {
        let folder = scratch.path + "/no-el-init"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let source = folder + "/no-el-init.c", library = folder + "/libedit.so.2"
        let others = ["el_end", "el_gets", "el_line", "el_push", "el_resize", "el_set", "el_get", "history", "history_init", "history_end"]
        let code = "void *el_init(const char *p, void *i, void *o, void *e) { return 0; }\n"
            + others.map { "void \($0)(void) {}\n" }.joined()
        try code.write(toFile: source, atomically: true, encoding: .utf8)
        let compiler = ["/usr/bin/cc", "/usr/bin/clang"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/bin/cc"
        let run = try runProcess(compiler, ["-shared", "-fPIC", "-Wl,-soname,libedit.so.2", "-o", library, source])
        guard run.status == 0 else { throw PseudoTerminal.Failure(message: "cannot build the stand-in libedit: \(run.output)") }
        return folder
    }

    @Test(arguments: [false, true])
    func whenLineEditingCannotStartSignupSaysSoAndExits66(json: Bool) throws {
        let scratch = try ScratchFolder()
        let library = try Self.failingEditLine(in: scratch)
        // Colour on: with NO_COLOR signup edits without libedit and never calls el_init.
        let shell = try SignalTests.underShell(json ? "--json" : "", scratch: scratch, environment: ["LD_LIBRARY_PATH": library, "NO_COLOR": nil])
        defer { shell.kill(SIGKILL) }
        try SignalTests.expectRestored(shell, status: 66, "el_init failing")
        let output = shell.text(normalizingLineEndings: true)
        #expect(output.contains("error: cannot start line editing: libedit could not start an editor (el_init failed)\n"
            + "Nothing was saved. Run with --no-interactive to answer line by line.\n"), "\(output)")
        #expect(!output.contains("Email:"), "a prompt was shown that nothing could answer: \(output)")
        #expect(output.contains(#"{"status":"terminal_error","reason":"cannot start line editing: libedit could not start an editor (el_init failed)"}"#) == json,
                "\(output)")
    }

    /// A child of ``PseudoTerminal`` holds its terminal and nothing else of the test runner's,
    /// not even a descriptor opened without close-on-exec (as another test's thread may be
    /// doing at that moment): the test below, under `ulimit -n 6`, counts on it, and once saw
    /// signup fall back to its scrolling editor because one more descriptor had come along.
    @Test func aChildInheritsNoDescriptorButItsTerminal() throws {
        let leaked = open("/dev/null", O_RDONLY)  // without O_CLOEXEC
        defer { close(leaked) }
        #expect(leaked > 2)
        let shell = try PseudoTerminal(executable: "/bin/sh", arguments: ["-c", "ls -1 /proc/$$/fd; echo end-of-list"])
        try shell.expect("end-of-list")
        let listed = shell.text(normalizingLineEndings: true).split(separator: "\n").compactMap { Int32($0) }
        #expect(listed.contains(0) && listed.contains(2), "\(listed)")
        #expect(!listed.contains(leaked), "descriptor \(leaked) was inherited: \(listed)")
    }

    /// Too few descriptors to duplicate the terminal for libedit: said with the system's reason, exit 66.
    @Test func withNoDescriptorLeftSignupSaysSo() throws {
        let scratch = try ScratchFolder()
        let script = #"trap : INT TERM HUP QUIT; (ulimit -n 6; exec "$SIGNUP_BIN" --db "$DB"); echo "status=$?"; stty -a; echo "end-of-stty""#
        let shell = try PseudoTerminal(executable: "/bin/sh", arguments: ["-c", script], environment: PseudoTerminal.environment([
            "HOME": scratch.path, "SIGNUP_BIN": signupBinary, "DB": scratch.database, "NO_COLOR": nil,
        ]))
        defer { shell.kill(SIGKILL) }
        try SignalTests.expectRestored(shell, status: 66, "descriptor limit")
        let output = shell.text(normalizingLineEndings: true)
        #expect(output.contains("error: cannot start line editing: ") && output.contains("Too many open files\n"), "\(output)")
        #expect(!output.contains("Email:"), "\(output)")
    }

    /// The same for `signup verify`: said, exit 66, never "Nothing was checked" as if Ctrl-D was typed.
    @Test func whenLineEditingCannotStartVerifySaysSo() throws {
        let scratch = try ScratchFolder()
        let library = try Self.failingEditLine(in: scratch)
        let script = #"trap : INT TERM HUP QUIT; "$SIGNUP_BIN" verify zed@example.com --db "$DB"; echo "status=$?"; stty -a; echo "end-of-stty""#
        let shell = try PseudoTerminal(executable: "/bin/sh", arguments: ["-c", script], environment: PseudoTerminal.environment([
            "HOME": scratch.path, "SIGNUP_BIN": signupBinary, "DB": scratch.database, "LD_LIBRARY_PATH": library, "NO_COLOR": nil,
        ]))
        defer { shell.kill(SIGKILL) }
        try SignalTests.expectRestored(shell, status: 66, "el_init failing in verify")
        let output = shell.text(normalizingLineEndings: true)
        #expect(output.contains("error: cannot start line editing: libedit could not start an editor (el_init failed)\n"), "\(output)")
        #expect(!output.contains("Password for"), "\(output)")
    }

    /// `--password-file /dev/tty` with standard input a file: echo is off on /dev/tty, not on
    /// descriptor 0, and a SIGINT while it is read puts back /dev/tty's mode.
    @Test func aSignalWhileAPasswordIsReadFromDevTtyRestoresThatTerminal() throws {
        let scratch = try ScratchFolder()
        let answers = scratch.path + "/answers"
        try "zed@example.com\n".write(toFile: answers, atomically: true, encoding: .utf8)
        let shell = try SignalTests.underShell("--password-file /dev/tty < '\(answers)'", scratch: scratch)
        defer { shell.kill(SIGKILL) }
        let child = try TerminalRestoreTests.child(of: shell.pid)
        // Its standard error is the terminal: wait until echo is off there, i.e. the read started.
        let terminal = open("/proc/\(child)/fd/2", O_RDWR | O_NOCTTY)
        #expect(terminal >= 0)
        defer { close(terminal) }
        var mode = termios()
        var echoOff = false
        for _ in 0..<500 where !echoOff {
            echoOff = tcgetattr(terminal, &mode) == 0 && mode.c_lflag & tcflag_t(ECHO) == 0
            if !echoOff { usleep(20_000) }
        }
        #expect(echoOff, "echo never went off while the password was read from /dev/tty")
        try shell.send("Quartz-Lan")
        usleep(100_000)
        Glibc.kill(child, SIGINT)
        try SignalTests.expectRestored(shell, status: 130, "SIGINT reading /dev/tty")
        #expect(!shell.transcript.containsBytes("Quartz-Lan".utf8), "the half-typed password was echoed")
    }
}
