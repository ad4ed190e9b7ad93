// wizard-example: the tutorials' sign-up form, built only on the library products.
// Usage: wizard-example [--taken FILE] [--lookup-delay MS] [--no-interactive]   (README.md beside this file)
import Glibc
import PasswordStrength
import SignupCore
import WizardTerminal

/// The exit codes of this program's own, after sysexits(3); the form's are the one call's.
enum Exit {
    static let usage: Int32 = 64, unwritable: Int32 = 74
}

/// Writes all of `text` to the descriptor `fd`; false when a write failed (a full disk, a closed pipe).
func write(_ text: String, to fd: Int32) -> Bool {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return false }
        offset += written
    }
    return true
}

func fail(_ message: String, _ code: Int32) -> Never {
    _ = write("wizard-example: \(VisibleText.of(message))\n", to: 2)
    exit(code)
}

/// The UTF-8 text of the regular file at `path` of at most `limit` bytes, or nil when it cannot be read.
func readText(_ path: String, limit: Int) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    var bytes = [UInt8](repeating: 0, count: limit + 1)
    var count = 0
    while count <= limit {
        let got = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, limit + 1 - count) }
        if got < 0 && errno == EINTR { continue }
        guard got > 0 else {
            if got < 0 { return nil }
            break
        }
        count += got
    }
    return count <= limit ? String(validating: bytes[..<count], as: UTF8.self) : nil
}

// Options: the taken usernames (one a line) and whether to read a script even at a terminal.
var taken: Set<String> = ["admin", "root", "taken"]
var options = RunnerOptions(programName: "wizard-example")
var lookupDelay = 0  // milliseconds a lookup of the taken names takes: a slow availability service
// The conversation in the reader's language (LANGUAGE, LC_ALL, LC_MESSAGES, LANG): this program's
// own catalog first, then the libraries' own texts, both in ../share/locale beside the program
// (wizard-example.mo, signup-forms.mo); English where neither has a text. Not signup.mo: it holds
// the signup command's own words too ("Password"), which would translate this program's.
options.translation = .gettext([MessageCatalog.besideProgram(domain: "wizard-example"), MessageCatalog.forms].compactMap { $0 })
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--taken":
        guard let path = arguments.popFirst() else { fail("--taken needs a file", Exit.usage) }
        // A regular file of at most 1 MiB: a FIFO would wait for ever, `/dev/zero` never end, and a
        // longer list cut short would let a taken name through.
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size <= 1 << 20 else {
            fail("cannot read \(path): not a regular file of at most 1 MiB", Exit.usage)
        }
        guard let text = readText(path, limit: 1 << 20) else { fail("cannot read \(path)", Exit.usage) }
        taken = Set(text.split(whereSeparator: \.isNewline).map { Field.trimmingWhiteSpace(String($0)) })
    case "--lookup-delay":
        guard let text = arguments.popFirst(), let milliseconds = Int(text), (0...600_000).contains(milliseconds) else {
            fail("--lookup-delay needs a number of milliseconds from 0 to 600000", Exit.usage)
        }
        lookupDelay = milliseconds
    case "--no-interactive": options.interactive = false
    default: fail("unknown option (use --taken FILE, --lookup-delay MS or --no-interactive)", Exit.usage)
    }
}

// The form: a username, a password under the standard policy, its confirmation, an age. Each
// field is named by its key, declared once: a misspelt key does not compile.
enum Keys {
    static let username = FieldKey<String>("username")
    static let password = FieldKey<String>("password")
    static let confirm = FieldKey<String>("confirm")
    static let age = FieldKey<Int>("age")
}
let passwordRules = PasswordPolicy.standard.rules(strength: .zxcvbn)
let form = Form(fields: [
    Field(Keys.username, label: "Username",
          rules: [.required(message: "Pick a username"), .minLength(3),
                  .pattern("[a-z0-9_]+", .wholeMatch, message: "Use only a-z, 0-9 and _", label: "only a-z, 0-9 and _")],
          normalize: Field.trimmingWhiteSpace),
    Field(Keys.password, label: "Password", rules: passwordRules, isSecret: true,
          hint: "Password requirements: " + Rule.requirements(of: passwordRules, leavingOut: ["tooLong"])),
    Field(Keys.confirm, label: "Confirm password",
          rules: [.required(message: "Enter the password again"), .equals(Keys.password)],
          isSecret: true, dependsOn: [Keys.password]),
    Field(Keys.age, label: "Age", rules: [.required(message: "Enter your age"), .range(13...120)]),
])

let usernameTaken = FieldError(field: Keys.username.name, code: "username.taken", message: "This username is taken")

// After the password: a ✓/✗ line per check (not the length limit no one reaches), then its strength.
let afterAnswer: Wizard<String>.AfterAnswer = { name, form in
    guard name == Keys.password.name, let password = form.value(Keys.password), !password.isEmpty else { return [] }
    let checks = form.checklist(for: Keys.password, leavingOut: ["tooLong"])
    let level = StrengthEstimator.zxcvbn.estimate(password, [form.text(Keys.username)]).level
    return [.checklist(checks), .strength(level)]
}

var texts = WizardTexts(banner: "Create your account (Ctrl-C to cancel)")
texts.reviewQuestion = "Sign up? [Y/n/e] "
texts.reviewHelp = "Answer y to sign up, n to cancel, or e to change an answer."
// The one call runs the form at a terminal or over a script, and on any ending but a sign-up
// prints the errors and exits with the outcome's code (65 invalid, 66 input ended, 1 declined,
// 130 cancelled). The username is checked right after it is answered, as a sign-up page asks
// its server: a taken one is said at once and asked again, before the password. The submit
// checks again (two people may race for a name); a Ctrl-C during the lookup cancels it.
let username = await form.runOrExit(options, texts: texts, afterAnswer: afterAnswer, checking: [Keys.username]) { _, form in
    if lookupDelay > 0 { try? await Task.sleep(for: .milliseconds(lookupDelay)) }
    if Task.isCancelled { return [] }
    return taken.contains(form.text(Keys.username)) ? [usernameTaken] : []
} submit: { form in
    let username = form.text(Keys.username)
    guard !taken.contains(username) else { throw usernameTaken }
    return username
}
// The result line must really be written: `> /dev/full` is a failure, not a welcome.
guard write("Welcome, \(VisibleText.of(username))\n", to: 1) else {
    fail("the result could not be written to standard output", Exit.unwritable)
}
