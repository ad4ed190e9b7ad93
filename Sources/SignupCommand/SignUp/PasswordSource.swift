import Glibc
import SignupCore
import WizardTerminal

/// Where the password comes from, decided once before the conversation starts.
enum PasswordSource: Equatable {
    /// No source: the password fields are asked like any other.
    case asked
    /// The source is standard input itself (`--password-fd 0`, a duplicate of it such as
    /// `3<&0`, `/dev/stdin`, `/proc/self/fd/0`, the same terminal): its line is read at the
    /// password's own place in the field order, never before, and answers the confirmation too.
    case standardInput
    /// Read already, from a file, another descriptor or the environment: answers both fields.
    case preset(LineInput.Line)

    /// The source chosen by the options, `--password-file` or `--password-fd` before the environment.
    ///
    /// A source that cannot be read (a folder, a write-only or closed descriptor, a listening
    /// socket, a pipe or FIFO that sends nothing, an empty file) is a usage error naming the
    /// option, never its value. A FIFO is opened without waiting for a writer.
    static func resolve(file: [UInt8]?, fd: Int32?, environment: LineInput.Line?) throws(UsageError) -> PasswordSource {
        if let file {
            let descriptor = IO.open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
            guard descriptor >= 0 else { throw UsageError(.english("the --password-file file cannot be opened"), errno: errno) }
            defer { close(descriptor) }
            return try read(descriptor, .file)
        }
        if let fd { return try read(fd, .descriptor) }
        return environment.map(PasswordSource.preset) ?? .asked
    }

    /// Whether descriptor `fd` is open: call before the process opens any of its own.
    static func isInherited(_ fd: Int32) -> Bool {
        fd >= 0 && IO.isOpen(fd)
    }

    private enum Option { case file, descriptor }

    /// How long a socket source may stay silent before it counts as sending nothing.
    static let socketPatience: Int32 = 5_000

    private static func read(_ fd: Int32, _ option: Option) throws(UsageError) -> PasswordSource {
        func refuse(_ file: StaticString, _ descriptor: StaticString, errno code: Int32? = nil) -> UsageError {
            let message = option == .file ? file : descriptor
            return code.map { UsageError(message, errno: $0) } ?? UsageError(message)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw refuse(.english("the --password-file file cannot be read"), .english("the --password-fd descriptor cannot be read"), errno: errno)
        }
        let kind = info.st_mode & S_IFMT
        if kind == S_IFDIR {
            throw refuse(.english("the --password-file path is a folder, not a file"), .english("the --password-fd descriptor is a folder, not a file"))
        }
        if fcntl(fd, F_GETFL) & O_ACCMODE == O_WRONLY {
            throw refuse(.english("the --password-file file is open for writing only"), .english("the --password-fd descriptor is open for writing only"))
        }
        if kind == S_IFSOCK && IO.isListeningSocket(fd) {
            throw refuse(.english("the --password-file path is a listening socket, which sends nothing"),
                         .english("the --password-fd descriptor is a listening socket, which sends nothing"))
        }
        // `/dev/tty` is the terminal standard input may be too, under another device number.
        if IO.isSameFile(info, as: 0) || IO.isSameTerminal(fd, 0) { return .standardInput }
        if IO.isSameFile(info, as: 1) || IO.isSameFile(info, as: 2) {
            // `/dev/stderr` opened for reading is the read end of the pipe signup writes its
            // conversation to: it would wait for its own output, or take it for the password.
            throw refuse(.english("the --password-file file is signup's own standard output or error"), .english("the --password-fd descriptor is signup's own standard output or error"))
        }

        // A pipe whose writer is signup itself ends only when signup closes it: never.
        if kind == S_IFIFO && IO.holdsWriteEnd(of: info) {
            throw refuse(.english("the --password-file FIFO is open for writing in signup itself, so it never ends: open it read-only"),
                         .english("the --password-fd descriptor is a pipe open for writing in signup itself, so it never ends: open it read-only (3<, not 3<>)"))
        }
        // A socket that sends nothing is a source that cannot be read, not one to wait for
        // for ever (a pipe with a writer is waited for: its writer is a process of this pipeline).
        if kind == S_IFSOCK && !IO.waitForInput(fd, milliseconds: Self.socketPatience) {
            throw refuse(.english("the --password-file socket sent nothing"), .english("the --password-fd socket sent nothing"))
        }
        let input = LineInput(fd: fd, oneLine: true)
        let line = input.nextSecret()
        if let code = input.readError {
            throw refuse(.english("the --password-file file cannot be read"), .english("the --password-fd descriptor cannot be read"), errno: code)
        }
        guard line != .endOfInput else {
            throw refuse(
                .english("the --password-file file sent nothing (it is empty, or no process writes to it)"),
                .english("the --password-fd descriptor sent nothing (it is empty, or no process writes to it)")
            )
        }
        return .preset(line)
    }
}

/// With the password read from standard input, the one line given at the password's place
/// answers the confirmation too, as a password file's line does: the confirmation is not asked.
final class ConfirmationFromPassword {
    private var password: WizardInput<CreatedAccount>?

    /// Reads as `read` does, except that the confirmation gets the last answer to the password.
    func intercept(_ prompt: Prompt, _ read: () -> WizardInput<CreatedAccount>) -> WizardInput<CreatedAccount> {
        if prompt.question == .field(SignupForm.confirm.name), let password { return password }
        let input = read()
        if prompt.question == .field(SignupForm.password.name) { password = input }
        return input
    }
}
