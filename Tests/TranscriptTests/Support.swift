import Foundation
import Testing
import WizardTesting

/// The `signup` binary built beside this test bundle (or `$SIGNUP_BIN`).
let signupBinary: String = {
    if let path = ProcessInfo.processInfo.environment["SIGNUP_BIN"], !path.isEmpty { return path }
    let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var folder = bundle.deletingLastPathComponent()
    while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("signup").path), folder.path != "/" {
        folder = folder.deletingLastPathComponent()
    }
    compileCatalogs(beside: folder)
    return folder.appendingPathComponent("signup").path
}()

/// The German catalog where the built binary looks for it (`../share/locale` from its file), as
/// scripts/test makes it: `swift test` alone then runs the tests of the conversation in German.
private func compileCatalogs(beside folder: URL) {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = [root.appendingPathComponent("scripts/po").path, "compile", folder.appendingPathComponent("../share/locale").path]
    try? process.run()
    process.waitUntilExit()
}

/// The password of accounts a scenario creates before it starts (`account:`).
let existingAccountPassword = "Existing-Granite-4711"

/// A temporary folder for one scenario; removed (after undoing any `chattr +i`) when it goes away.
final class ScratchFolder {
    let path: String
    var database: String { path + "/accounts.sqlite" }
    private var immutable: [String] = []

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/signup-tx-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw PseudoTerminal.Failure(message: "mkdtemp failed") }
        path = String(cString: made)
    }

    deinit {
        makeMutable()
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Creates an account through the script protocol, so the database exists with that email taken.
    func createAccount(email: String) throws {
        let run = try runProcess(signupBinary, ["--db", database, "--no-interactive", "--quiet"],
                                 input: "\(email)\n\(existingAccountPassword)\n\(existingAccountPassword)\n",
                                 environment: ["HOME": path, "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin", "SWIFT_BACKTRACE": "enable=no", "SIGNUP_CONFIG": "/dev/null"])
        guard run.status == 0 else {
            throw PseudoTerminal.Failure(message: "could not create the account \(email): status \(run.status), \(run.output)")
        }
    }

    /// The emails in the database, in id order, as `signup list --json` prints them ([] without a database).
    func storedEmails() throws -> [String] {
        let run = try runProcess(signupBinary, ["list", "--json", "--db", database],
                                 environment: ["HOME": path, "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin", "SWIFT_BACKTRACE": "enable=no", "SIGNUP_CONFIG": "/dev/null"])
        let rows = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [[String: Any]] ?? []
        return rows.compactMap { $0["email"] as? String }
    }

    /// Whether `signup verify` accepts `password` for `email`.
    func verify(email: String, password: String) throws -> Bool {
        try runProcess(signupBinary, ["verify", email, "--db", database], input: password + "\n",
                       environment: ["HOME": path, "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin", "SWIFT_BACKTRACE": "enable=no", "SIGNUP_CONFIG": "/dev/null"]).status == 0
    }

    /// `chattr +i` on the database and this folder: even root cannot write them (NOTES-terminal.md).
    func makeImmutable() throws {
        let targets = [database, path].filter { FileManager.default.fileExists(atPath: $0) }
        let run = try runProcess("/usr/bin/chattr", ["+i"] + targets)
        guard run.status == 0 else {
            throw PseudoTerminal.Failure(message: "chattr +i is not supported here: \(run.output)")
        }
        immutable = targets
    }

    /// Undoes `makeImmutable()`; safe to call any number of times.
    func makeMutable() {
        guard !immutable.isEmpty else { return }
        _ = try? runProcess("/usr/bin/chattr", ["-i"] + immutable)
        immutable = []
    }
}

/// Runs a program to its end with pipes; returns its status and its merged output.
func runProcess(_ executable: String, _ arguments: [String], input: String = "",
                environment: [String: String]? = nil) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let stdin = Pipe(), output = Pipe()
    process.standardInput = stdin
    process.standardOutput = output
    process.standardError = output
    try process.run()
    try stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
