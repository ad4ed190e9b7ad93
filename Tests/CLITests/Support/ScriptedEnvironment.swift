import AccountStore
import ArgumentParser
import Foundation
import Glibc
@testable import SignupCommand
import Synchronization
import Testing
import WizardTerminal

/// A ``CommandEnvironment`` for a flow run in the test's own process: its answers are lines
/// written to a pipe (a mailed code among them, typed once the mail is sent), its standard output
/// and error are files, its audit lines and mails are kept in lists, its clock is fixed.
final class ScriptedEnvironment: @unchecked Sendable {
    /// One line of the script, or the code of the last mail (written once a mail holds one).
    enum Line: ExpressibleByStringLiteral {
        case bytes(Data)
        case mailedCode

        init(stringLiteral text: String) { self = .bytes(Data(text.utf8)) }

        /// `text`'s bytes: any number of lines, the last one's newline optional.
        static func text(_ text: String) -> Line { .bytes(Data(text.utf8)) }
    }

    /// The time every write of the run is stamped with.
    static let fixedNow = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z

    let variables: [String: String]
    let password: LineInput.Line?
    let mailFailure: Mailer.Failure?
    private let input: Int32
    private let inputWriteEnd: Int32
    private let output: Int32
    private let errors: Int32
    private let outputPath: String
    private let errorsPath: String
    private let state = Mutex(State())

    private struct State {
        var pending: [Line] = []
        var writeEndOpen = true
        var audit: [(priority: Int32, line: String)] = []
        var mails: [MailMessage] = []
    }

    /// `lines` answer the questions in order (nil: no input at all, as `< /dev/null`); `variables`
    /// are the whole environment; `password` is `SIGNUP_PASSWORD` as start-up took it.
    init(folder: URL, lines: [Line]?, variables: [String: String], password: String? = nil, mailFailure: Mailer.Failure? = nil) {
        self.variables = variables
        self.password = password.map { LineInput.judge(Array($0.utf8)) }
        self.mailFailure = mailFailure
        var ends: [Int32] = [0, 0]
        precondition(pipe(&ends) == 0)
        (input, inputWriteEnd) = (ends[0], ends[1])
        _ = fcntl(input, F_SETFD, FD_CLOEXEC)
        _ = fcntl(inputWriteEnd, F_SETFD, FD_CLOEXEC)
        let id = UUID().uuidString
        outputPath = folder.appendingPathComponent("stdout-\(id)").path
        errorsPath = folder.appendingPathComponent("stderr-\(id)").path
        output = open(outputPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        errors = open(errorsPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        state.withLock { $0.pending = lines ?? [] }
        // On a thread of its own: a script longer than a pipe holds is read while it is written.
        let writeEnd = inputWriteEnd
        Thread { [self] in state.withLock { Self.feed(&$0, to: writeEnd, code: nil) } }.start()
    }

    deinit {
        for fd in [output, errors] { close(fd) }
    }

    /// Ends the script once the flow is over: lines it did not read are dropped (their writer
    /// sees a broken pipe), and the input's descriptors are closed.
    func finish() {
        close(input)
        let writeEnd = inputWriteEnd
        state.withLock { state in
            state.pending.removeAll()
            if state.writeEndOpen {
                close(writeEnd)
                state.writeEndOpen = false
            }
        }
    }

    /// Writes the lines up to the next `.mailedCode` (that one too when `code` is given); closes
    /// the pipe after the last, so that the reader sees the input's end.
    private static func feed(_ state: inout State, to fd: Int32, code: String?) {
        var code = code
        while let line = state.pending.first {
            let bytes: Data
            switch line {
            case .bytes(let data): bytes = data
            case .mailedCode:
                guard let given = code else { return }
                bytes = Data((given + "\n").utf8)
                code = nil
            }
            state.pending.removeFirst()
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
                guard written > 0 else { break }  // the flow stopped reading and the pipe is gone
                offset += written
            }
        }
        if state.writeEndOpen {
            close(fd)
            state.writeEndOpen = false
        }
    }

    /// The environment the flow is given.
    var environment: CommandEnvironment {
        let (input, output, errors, variables) = (input, output, errors, variables)
        let audit = AuditSink(environment: variables) { [self] priority, line, _ in
            state.withLock { $0.audit.append((priority, line)) }
        }
        return CommandEnvironment(
            variables: variables,
            variable: { variables[$0].map { Array($0.utf8) } },
            passwordVariable: password,
            isTerminal: { _ in false },
            standardInputIsAFolder: { false },
            write: { text, fd in
                let bytes = Array(text.utf8)
                _ = bytes.withUnsafeBytes { Glibc.write(fd == 1 ? output : errors, $0.baseAddress, bytes.count) }
            },
            outputFailure: { nil },
            now: { Self.fixedNow },
            audit: audit,
            sendMail: { [self] message, _ throws(Mailer.Failure) in
                if let mailFailure { throw mailFailure }
                let code = message.body.split(whereSeparator: { !$0.isNumber }).first { $0.count == 6 }.map(String.init)
                let writeEnd = inputWriteEnd
                state.withLock { state in
                    state.mails.append(message)
                    if code != nil { Self.feed(&state, to: writeEnd, code: code) }
                }
            },
            clientOrigin: { PublicSession.origin(environment: variables) },
            runner: { options throws(TerminalError) in
                var options = options
                options.input = input
                options.output = errors
                return try TerminalRunner(options)
            },
            // The test process's signals stay its own: no guard, no timer.
            guardSignals: { _, _ in },
            armDeadline: { _, _, _ in },
            disarmDeadline: {}
        )
    }

    /// The audit lines written, in order.
    var auditLines: [String] { state.withLock { $0.audit.map(\.line) } }
    /// The audit lines with their priorities.
    var auditEntries: [(priority: Int32, line: String)] { state.withLock { $0.audit } }
    /// The mails handed to the mail command, in order.
    var mails: [MailMessage] { state.withLock { $0.mails } }
    var stdoutBytes: Data { FileManager.default.contents(atPath: outputPath) ?? Data() }
    var stderrBytes: Data { FileManager.default.contents(atPath: errorsPath) ?? Data() }
}

/// Arguments the parser reads as another command than `create`, `passwd` or `reset`.
struct NotASignUp: Error {
    var arguments: [String]
}

/// What one flow run in the test's process did, as ``Run`` says it for the binary.
struct FlowRun {
    var status: Int32
    var stdout: String
    var stderr: String
    var stdoutBytes: Data
    var stderrBytes: Data
    /// The audit log's lines, in order.
    var audit: [String]
    /// The priorities of those lines.
    var priorities: [Int32]
    var mails: [MailMessage]

    /// The JSON object printed on standard output.
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: stdoutBytes)) as? [String: Any] ?? [:]
    }

    /// Mail `n` as the mail command reads it: headers, a blank line, the body.
    func mailText(_ n: Int) -> String {
        guard mails.indices.contains(n) else { return "" }
        return (try? mails[n].text(date: MailMessage.date(), messageID: MailMessage.messageID(host: "test.example"))) ?? ""
    }
}

extension Sandbox {
    /// Runs the sign-up flow that `arguments` name (`create`'s, `passwd`'s or `reset`'s, as the
    /// entry point reads them) in this process over a ``ScriptedEnvironment``, and ends as the
    /// entry point would: a thrown error's message and status. The environment is `Sandbox.run`'s.
    @discardableResult
    func flow(
        _ arguments: [String],
        lines: [ScriptedEnvironment.Line]? = nil,
        environment extra: [String: String] = [:],
        password: String? = nil,
        mailFailure: Mailer.Failure? = nil,
        secrets: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> FlowRun {
        var variables = ["PATH": "/usr/bin:/bin", "HOME": folder.path, "LANG": "C.UTF-8", "TERM": "dumb", "SIGNUP_CONFIG": "/dev/null"]
        variables.merge(extra) { $1 }
        let scripted = ScriptedEnvironment(folder: folder, lines: lines, variables: variables, password: password, mailFailure: mailFailure)
        ignoreBrokenPipes()
        var status: Int32 = 0
        defer { scripted.finish() }
        do {
            try SignUpFlow(plan: Self.plan(arguments), environment: scripted.environment).run()
        } catch let error as UsageError {
            scripted.environment.write("error: \(error.text)\n", 2)
            status = ExitStatus.usage
        } catch let error as ConfigError {
            scripted.environment.write("error: \(error.text)\n", 2)
            status = ExitStatus.usage
        } catch let code as ExitCode {
            status = code.rawValue
        } catch {
            Issue.record("the flow threw \(error)", sourceLocation: sourceLocation)
            status = -1
        }
        let run = FlowRun(
            status: status, stdout: String(decoding: scripted.stdoutBytes, as: UTF8.self), stderr: String(decoding: scripted.stderrBytes, as: UTF8.self),
            stdoutBytes: scripted.stdoutBytes, stderrBytes: scripted.stderrBytes, audit: scripted.auditLines, priorities: scripted.auditEntries.map(\.priority), mails: scripted.mails
        )
        for secret in Set(secrets + [goodPassword]) where !secret.isEmpty {
            #expect(!run.stdout.contains(secret), "a password reached standard output", sourceLocation: sourceLocation)
            #expect(!run.stderr.contains(secret), "a password reached standard error", sourceLocation: sourceLocation)
            #expect(!run.audit.contains { $0.contains(secret) }, "a password reached the audit log", sourceLocation: sourceLocation)
        }
        return run
    }

    /// The plan of `arguments`: the entry point's own reading of the everyday options, else the parser's.
    static func plan(_ arguments: [String]) throws -> SignUpPlan {
        if let plan = SignUpPlan(everydayArguments: arguments[...]) { return plan }
        guard let command = try Signup.parseAsRoot(arguments) as? any SignUpCommand else {
            throw NotASignUp(arguments: arguments)
        }
        return try command.plan()
    }

    /// The accounts of the sandbox's database, read in this process, oldest first.
    func storedAccounts() -> [Account] {
        var accounts: [Account] = []
        try? StoreLocation.chosen(option: db, environment: [:]).openExisting()?.streamAccounts(inState: nil) { accounts.append($0); return true }
        return accounts
    }
}

extension [ScriptedEnvironment.Line] {
    /// A script of `text`'s lines, all written at once.
    static func script(_ text: String) -> Self { [.text(text)] }
}
