import Foundation
import Glibc
import SignupCore
import Testing
import WizardTerminal

/// A pseudo-terminal pair opened in this process; the session gets the slave side.
final class PseudoTerminalPair {
    let master: Int32
    let slave: Int32

    init() throws {
        var master: Int32 = -1, slave: Int32 = -1
        var size = winsize(ws_row: 24, ws_col: 80, ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&master, &slave, nil, nil, &size) == 0 else { throw TerminalError.notATerminal(descriptor: -1) }
        self.master = master
        self.slave = slave
    }

    deinit {
        close(master)
        close(slave)
    }

    func type(_ text: String) { _ = text.withCString { write(master, $0, strlen($0)) } }

    /// Everything the program wrote so far, waiting up to 5 s for `needle`.
    func output(waitingFor needle: String) -> String {
        var bytes: [UInt8] = []
        for _ in 0..<250 {
            var entry = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, 20) > 0 {
                var buffer = [UInt8](repeating: 0, count: 4096)
                let n = read(master, &buffer, buffer.count)
                if n > 0 { bytes += buffer[0..<n] }
            }
            if String(decoding: bytes, as: UTF8.self).contains(needle) { break }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    var echoes: Bool {
        var mode = termios()
        tcgetattr(slave, &mode)
        return mode.c_lflag & tcflag_t(ECHO) != 0
    }
}

@Suite(.serialized, .signalStateLock) struct TerminalSessionTests {
    /// Descriptors other than 0 and 2: read from and drawn on, their mode changed and put back, never closed.
    @Test(arguments: [false, true])
    func aSessionUsesTheDescriptorsItIsGiven(escapeSequences: Bool) throws {
        let pair = try PseudoTerminalPair()
        #expect(pair.echoes)
        let session = try TerminalSession(programName: "test", escapeSequences: escapeSequences, input: pair.slave, output: pair.slave)
        #expect(session.input == pair.slave && session.output == pair.slave)
        #expect(!pair.echoes, "the session mode is not on the given terminal")
        pair.type("Ada\r")
        #expect(session.readLine(prompt: "Name: ") == .line("Ada"))
        #expect(pair.output(waitingFor: "Name: ").contains("Name: "))
        session.write("Hello\n")
        #expect(pair.output(waitingFor: "Hello").contains("Hello"))
        session.close()
        #expect(pair.echoes, "close() did not put the given terminal's mode back")
        #expect(fcntl(pair.slave, F_GETFD) >= 0, "close() closed a descriptor the caller owns")
    }

    /// Enter on an initial value shown visible (a tab as `^I`, an RLM as `<U+200F>`) keeps the value
    /// itself: `tab^Ihere` was once submitted for `tab\there`.
    @Test(arguments: [false, true], ["tab\there", "של\u{200F}ום"])
    func enterOnAnInitialValueKeepsItByteForByte(escapeSequences: Bool, initial: String) throws {
        let pair = try PseudoTerminalPair()
        let session = try TerminalSession(programName: "test", escapeSequences: escapeSequences, input: pair.slave, output: pair.slave)
        defer { session.close() }
        pair.type("\r")
        #expect(session.readLine(prompt: "City: ", initial: initial) == .line(initial))
        pair.type("\u{1}x\r")  // Ctrl-A, then x: an edit keeps what is shown
        #expect(session.readLine(prompt: "City: ", initial: initial) == .line("x" + VisibleText.of(initial)))
    }

    /// What was typed and not read while echo was off never reaches whoever reads the terminal next.
    @Test func withEchoOffDiscardsWhatWasNotRead() throws {
        let pair = try PseudoTerminalPair()
        pair.type("first\nQuartz-Lantern-58\n")
        usleep(50_000)
        var byte: UInt8 = 0
        withEchoOff(pair.slave) {
            while read(pair.slave, &byte, 1) == 1, byte != 0x0A {}  // reads only the first line
        }
        var waiting: Int32 = 0
        _ = ioctl(pair.slave, UInt(FIONREAD), &waiting)
        #expect(waiting == 0, "\(waiting) unread bytes were left for the shell")
    }

    /// While a session is open, the guard restores that session's terminal, not standard input.
    @Test func theGuardRestoresTheTerminalOfTheOpenSession() throws {
        let pair = try PseudoTerminalPair()
        let session = try TerminalSession(programName: "test", escapeSequences: false, input: pair.slave, output: pair.slave)
        defer { session.close() }
        #expect(!pair.echoes)
        TerminalGuard.restore()  // what a signal handler does first
        #expect(pair.echoes, "the guard put back some other terminal's mode")
    }

    /// `withEchoOff` on a second terminal inside a session: each is restored while it is the one in use.
    @Test func nestedModeChangesAreEachRestored() throws {
        let outer = try PseudoTerminalPair(), inner = try PseudoTerminalPair()
        let session = try TerminalSession(programName: "test", escapeSequences: false, input: outer.slave, output: outer.slave)
        defer { session.close() }
        withEchoOff(inner.slave) {
            #expect(!inner.echoes)
            TerminalGuard.restore()
            #expect(inner.echoes, "the inner terminal was not the guarded one")
        }
        #expect(!outer.echoes)
        TerminalGuard.restore()
        #expect(outer.echoes, "after the inner change ended, the session's terminal was not guarded again")
    }

    @Test func aDescriptorThatIsNotATerminalIsRefused() throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { ends.forEach { close($0) } }
        #expect(throws: TerminalError.notATerminal(descriptor: ends[0])) {
            try TerminalSession(programName: "test", input: ends[0], output: ends[1])
        }
    }

    /// Without a controlling terminal (CI, a service) `/dev/tty` is refused with the system's reason.
    @Test func theControllingTerminalIsOpenedOrItsAbsenceSaid() throws {
        let probe = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        if probe >= 0 {
            close(probe)
            let session = try TerminalSession.controllingTerminal(programName: "test", escapeSequences: false)
            #expect(session.input == session.output && session.input > 2)
            session.close()
            #expect(fcntl(session.input, F_GETFD) < 0, "close() left /dev/tty open")
        } else {
            #expect(throws: TerminalError.noControllingTerminal(reason: String(cString: strerror(errno)))) {
                try TerminalSession.controllingTerminal(programName: "test")
            }
        }
    }

    /// Keys still coming after a secret's read ended, however it ended, never reach the visible read
    /// that follows (a person finishing a password: keys 30–200 ms apart): it reads only what is
    /// typed once they stopped.
    @Test(arguments: [false, true], ["\u{FF}\r", "\u{04}"])
    func keysStillComingAfterASecretNeverAnswerTheNextVisibleRead(escapeSequences: Bool, ending: String) throws {
        let pair = try PseudoTerminalPair()
        let session = try TerminalSession(programName: "test", escapeSequences: escapeSequences, input: pair.slave, output: pair.slave)
        defer { session.close() }
        // "\u{FF}" stands for the byte 0xFF: not UTF-8.
        let endingBytes = ending.unicodeScalars.map { UInt8($0.value) }
        _ = endingBytes.withUnsafeBytes { write(pair.master, $0.baseAddress, $0.count) }
        #expect(session.readSecret(prompt: "Password: ") == (ending == "\u{04}" ? .endOfInput : .unreadable(.invalidUTF8)))
        let master = pair.master
        let typist = Thread {
            for (index, key) in "Qx7-zq\r".utf8.enumerated() {
                usleep([30, 200, 120, 60, 170, 90, 200][index % 7] * 1000)
                _ = [key].withUnsafeBytes { write(master, $0.baseAddress, 1) }
            }
            usleep(700_000)
            _ = "Ada\r".withCString { write(master, $0, 4) }
        }
        typist.start()
        #expect(session.readLine(prompt: "Name: ") == .line("Ada"))
        #expect(!pair.output(waitingFor: "Ada").contains("Qx7"))
    }

    @Test func errorsSayWhatFailed() {
        #expect(TerminalError.editorUnavailable.description == "libedit could not start an editor (el_init failed)")
        #expect(TerminalError.notATerminal(descriptor: 5).description == "descriptor 5 is not a terminal")
    }
}
