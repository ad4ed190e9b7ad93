import Foundation
import Testing

/// The `signup` binary built beside this test bundle (or `$SIGNUP_BIN`).
let signupBinary: String = {
    if let path = ProcessInfo.processInfo.environment["SIGNUP_BIN"] { return path }
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

/// What one run of the binary did.
struct Run {
    var status: Int32
    var stdout: String
    var stderr: String
    var stdoutBytes: Data
    var stderrBytes: Data

    /// The JSON object printed on standard output.
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: stdoutBytes)) as? [String: Any] ?? [:]
    }
}

/// A temporary folder for one test, removed when the test ends.
final class Sandbox: @unchecked Sendable {
    let folder: URL
    var db: String { folder.appendingPathComponent("accounts.sqlite").path }

    init() {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("signup-cli-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// Writes `data` to a file in the sandbox and returns its path.
    func file(_ name: String, _ data: Data) -> String {
        let url = folder.appendingPathComponent(name)
        try! data.write(to: url)
        return url.path
    }

    /// Runs `signup` with `arguments`, `input` on standard input (none: /dev/null), and an
    /// environment pinned for repeatability. `secrets` (and always `goodPassword`) must
    /// appear in neither output.
    @discardableResult
    func run(
        _ arguments: [String],
        input: Data? = nil,
        environment extra: [String: String] = [:],
        secrets: [String] = [],
        via shell: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Run {
        let process = Process()
        var environment = [
            "PATH": "/usr/bin:/bin", "HOME": folder.path, "LANG": "C.UTF-8", "TERM": "dumb",
            "SWIFT_BACKTRACE": "enable=no",
            // No /etc/signup/signup.conf of this machine's may change what a test sees.
            "SIGNUP_CONFIG": "/dev/null",
        ]
        environment.merge(extra) { $1 }
        process.environment = environment
        var shell = shell
        if shell == nil, environment["SIGNUP_CONFIG"] == "", getuid() == 0 {
            // A test of the user's and the system's files: the system's is this machine's
            // /etc/signup/signup.conf, which an administrator (or a package) may have written.
            // The run gets a mount namespace of its own with an empty /etc/signup, so the test
            // sees no system file whatever the machine holds (Tests/integration/config.sh tests
            // the system file itself the same way).
            shell = "if [ -d /etc/signup ]; then mount -t tmpfs -o mode=0755,size=64k signup-test /etc/signup || exit 125; fi; exec \"$0\" \"$@\""
            process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
            process.arguments = ["--mount", "--propagation", "private", "/bin/sh", "-c", shell!, signupBinary] + arguments
        } else if let shell {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", shell, signupBinary] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: signupBinary)
            process.arguments = arguments
        }
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = input == nil ? FileHandle(forReadingAtPath: "/dev/null") : stdin
        process.standardOutput = stdout
        process.standardError = stderr
        ignoreBrokenPipes()
        try! process.run()
        // Feed and drain on other threads so a large input or output cannot deadlock.
        let writer = Thread {
            if let input {
                try? stdin.fileHandleForWriting.write(contentsOf: input)
            }
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let errors = AsyncData(stderr.fileHandleForReading)
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let run = Run(
            status: process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus,
            stdout: String(decoding: output, as: UTF8.self),
            stderr: String(decoding: errors.wait(), as: UTF8.self),
            stdoutBytes: output,
            stderrBytes: errors.wait()
        )
        // The usual test password is checked on every run, whatever the test named.
        for secret in Set(secrets + [goodPassword]) where !secret.isEmpty {
            #expect(!run.stdout.contains(secret), "a password reached standard output", sourceLocation: sourceLocation)
            #expect(!run.stderr.contains(secret), "a password reached standard error", sourceLocation: sourceLocation)
        }
        return run
    }

    /// The accounts in the sandbox's database, as `signup list --json` prints them.
    func accounts() -> [[String: Any]] {
        let run = run(["list", "--db", db, "--json"])
        return (try? JSONSerialization.jsonObject(with: run.stdoutBytes)) as? [[String: Any]] ?? []
    }
}

/// Reads a pipe to its end on a thread of its own.
final class AsyncData: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)
    private var finished = false

    init(_ handle: FileHandle) {
        Thread {
            self.data = handle.readDataToEndOfFile()
            self.done.signal()
        }.start()
    }

    func wait() -> Data {
        if !finished {
            done.wait()
            finished = true
        }
        return data
    }
}

func lines(_ text: String) -> Data { Data(text.utf8) }

let goodPassword = "Quartz-Lantern-58"
let answers = "alice@example.com\n\(goodPassword)\n\(goodPassword)\n"

/// A run that exits before reading its input (a usage error) closes the pipe the writer
/// thread feeds: without this, that write raised SIGPIPE and killed the whole test process
/// silently, mid-run, whenever the race went that way.
func ignoreBrokenPipes() {
    _ = brokenPipesIgnored
}

private let brokenPipesIgnored: Void = { signal(SIGPIPE, SIG_IGN) }()
