@testable import SignupCommand
import Foundation
import Testing

/// `SIGNUP_PASSWORD` is read once, then gone from the environment, from the block
/// `/proc/PID/environ` shows, and from every child.
@Suite struct EnvironmentPasswordTests {
    @Test func theVariableIsGoneFromProcEnvironWhileSignupRuns() throws {
        let secret = "Zebra-Environ-Token-93"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: signupBinary)
        process.arguments = ["--dry-run", "--db", "/nonexistent/accounts.sqlite"]
        process.environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TERM": "dumb", "SWIFT_BACKTRACE": "enable=no", "SIGNUP_CONFIG": "/dev/null", "SIGNUP_PASSWORD": secret]
        let input = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Wait for the email prompt: by then signup is running and waiting on its standard input.
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("Email: ") {
            let chunk = errors.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += chunk
        }
        #expect(String(decoding: seen, as: UTF8.self).contains("Email: "))
        // Read as root here: root can read a non-dumpable process's environ; the same user cannot.
        let environ = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(process.processIdentifier)/environ"))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        #expect(!environ.isEmpty)
        #expect(environ.range(of: Data(secret.utf8)) == nil, "the password is still in /proc/PID/environ")
        #expect(environ.range(of: Data("LANG=C.UTF-8".utf8)) != nil)  // the rest of the block is intact
    }

    /// These change the environment, which is not safe while other tests spawn processes:
    /// each runs in a process of its own (an exit test).
    @Test func takingTheVariableKeepsItFromChildren() async {
        await #expect(processExitsWith: .success) {
            setenv("SIGNUP_TEST_SECRET", "Zebra-Child-Token-94", 1)
            guard EnvironmentPassword.take("SIGNUP_TEST_SECRET") == .text("Zebra-Child-Token-94"),
                  getenv("SIGNUP_TEST_SECRET") == nil,
                  EnvironmentPassword.take("SIGNUP_TEST_SECRET") == nil  // read once
            else { exit(1) }
            let child = Process()
            child.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            let output = Pipe()
            child.standardOutput = output
            try? child.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            child.waitUntilExit()
            exit(text.contains("PATH=") && !text.contains("Zebra-Child-Token-94") && !text.contains("SIGNUP_TEST_SECRET") ? 0 : 2)
        }
    }

    @Test func aValidNonASCIIValueIsKeptAsItIs() async {
        await #expect(processExitsWith: .success) {
            setenv("SIGNUP_TEST_BYTES", "Quartz-Lantern-58\u{FF}", 1)
            exit(EnvironmentPassword.take("SIGNUP_TEST_BYTES") == .text("Quartz-Lantern-58\u{FF}") ? 0 : 1)
        }
    }
}

/// Units of the signup target that the binary's tests cannot reach with a valid account.
@Suite struct OutputTextTests {
    @Test func jsonEscapesWhatATerminalWouldActOnAndStaysValid() throws {
        let email = "a\u{1B}]0;PWNED\u{7}\u{9B}2J\u{202E}\u{2028}\u{E0001}b@example.com"
        let text = JSONText.object([("email", email)])
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || [0x202E, 0x2028, 0xE0001].contains($0.value) })
        let decoded = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String]
        #expect(decoded?["email"] == email)
    }

    @Test(arguments: [
        "Unknown option '-pSECRET'", "Unexpected argument 'SECRET'", "2 unexpected arguments: 'SECRET', 'x'",
        "The value 'SECRET' is invalid for '--password-fd <n>'", "The option '--json' does not take any value, but 'SECRET' was specified.",
        "Missing value for '--SECRET <x>'", "The value 'x' is invalid for '--SECRET'", "Something new 'SECRET'",
    ])
    func parseErrorsKeepOnlyTheKindAndKnownNames(message: String) {
        let text = ParseErrorText.kind(of: message, known: ParseErrorText.knownNames())
        #expect(!text.contains("SECRET"))
        #expect(!text.isEmpty)
    }

    @Test func knownNamesAreTheProgramsOwn() {
        let names = ParseErrorText.knownNames()
        for name in ["--password-fd <n>", "--password-fd", "--json", "--email <address>", "<email>", "--db <path>"] {
            #expect(names.contains(name), "\(name)")
        }
    }
}
