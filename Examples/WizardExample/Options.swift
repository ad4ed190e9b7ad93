import Glibc
import WizardTerminal

/// The command line: `wizard-example [--taken FILE] [--lookup-delay MS] [--no-interactive]`.
struct Options {
    /// How the form runs: this program's name and catalogs, and `--no-interactive`.
    var runner = RunnerOptions(programName: "wizard-example")
    /// The taken usernames (`--taken`) and how slowly they are looked up (`--lookup-delay`).
    var usernames = Usernames()

    /// The options `arguments` ask for; a usage error ends the program with 64 (`EX_USAGE`).
    static func parse(_ arguments: ArraySlice<String>) -> Options {
        var options = Options()
        // The conversation in the reader's language (LANGUAGE, LC_ALL, LC_MESSAGES, LANG): this
        // program's own catalog first, then the libraries' own texts, both in ../share/locale beside
        // the program (wizard-example.mo, signup-forms.mo); English where neither has a text. Not
        // signup.mo: it holds the signup command's own words too ("Password"), which would
        // translate this program's.
        options.runner.translation = .gettext([MessageCatalog.besideProgram(domain: "wizard-example"), MessageCatalog.forms].compactMap { $0 })
        var arguments = arguments
        while let argument = arguments.popFirst() {
            switch argument {
            case "--taken":
                guard let path = arguments.popFirst() else { usageError("--taken needs a file") }
                guard let names = readTakenNames(path) else { usageError("cannot read \(path): not a regular file of at most 1 MiB") }
                options.usernames.taken = names
            case "--lookup-delay":
                guard let text = arguments.popFirst(), let milliseconds = Int(text), (0...600_000).contains(milliseconds) else {
                    usageError("--lookup-delay needs a number of milliseconds from 0 to 600000")
                }
                options.usernames.lookupDelay = .milliseconds(milliseconds)
            case "--no-interactive": options.runner.interactive = false
            default: usageError("unknown option (use --taken FILE, --lookup-delay MS or --no-interactive)")
            }
        }
        return options
    }
}

/// Says `message` on standard error and exits with 64 (`EX_USAGE`): only the program ends itself.
func usageError(_ message: String) -> Never {
    let line = Array("wizard-example: \(VisibleText.of(message))\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(64)
}

/// The names of the file at `path`, one a line, blanks around each trimmed; nil unless it is a
/// regular file of at most 1 MiB of UTF-8. A FIFO would wait for ever, `/dev/zero` never end,
/// and a longer list cut short would let a taken name through.
func readTakenNames(_ path: String) -> Set<String>? {
    let limit = 1 << 20
    var info = stat()
    guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size <= limit else { return nil }
    // Checked again on the descriptor: the path may have been replaced since.
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    var bytes = [UInt8](repeating: 0, count: limit + 1)
    var count = 0
    while count <= limit {
        let got = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, limit + 1 - count) }
        if got < 0 && errno == EINTR { continue }
        if got < 0 { return nil }
        if got == 0 { break }
        count += got
    }
    guard count <= limit, let text = String(validating: bytes[..<count], as: UTF8.self) else { return nil }
    return Set(text.split(whereSeparator: \.isNewline).map { Field.trimmingWhiteSpace(String($0)) })
}
