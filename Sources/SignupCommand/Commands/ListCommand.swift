import AccountStore
import ArgumentParser
import Glibc
import SignupCore

/// `signup list`: the accounts, never their hashes, streamed row by row.
///
/// Memory does not grow with the number of accounts, so the text table cannot be
/// sized to its widest email: the ID column is 7 wide (a longer id widens its own
/// row), CREATED is always 20 characters, STATE 8, and EMAIL comes last, unpadded. `--json` is
/// one array with one account a line, so `head` and line tools work on it too.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: About.english("List the accounts (never their password hashes)."),
        discussion: About.english("""
            Each account's state is shown: active (may sign in), disabled, or pending (waiting for an \
            administrator: signup list --state pending is the queue to approve with signup enable). \
            The table says the state in the reader's language; --state and --json use these English names.
            Exit codes: 0 listed (also when there is no account), 64 usage, 74 storage failure or \
            standard output failed; a reader that goes away (a closed pipe) ends it as SIGPIPE \
            does (141 in a shell).
            """)
    )

    @Option(help: About.databaseHelp, completion: .file())
    var db: String?

    @Flag(help: .english("Print one JSON array on standard output."))
    var json = false

    @Option(help: .english("Only the accounts in this state: active, disabled or pending.", value: Translation.english("state")),
            completion: .list(AccountState.allCases.map(\.rawValue)))
    var state: AccountState?

    @Flag(help: .english("Print only how many accounts verify would give the policy's Argon2 costs: hashes with less memory or fewer passes, and more of neither."))
    var countOldHashes = false

    @OptionGroup var policy: PolicyOptions

    func run() throws {
        let settings = try policy.settings()
        let location = try settings.location(given: db).value
        if countOldHashes { return try countOld(at: location, settings: settings) }
        // A policy named here is read even though a plain list does not use it: a broken one is
        // reported (exit 64), as every other command reports it, not silently ignored.
        if policy.policy != nil || policy.policyFile != nil { _ = try policy.load(settings) }
        // Read once: a property wrapper's getter per row instantiated generic metadata each time.
        let json = self.json
        var output = StandardOutput()
        let states = StateWords()
        var count = 0
        do throws(StoreError) {
            let store = try location.openExisting()
            if json { output.append("[") }
            if !json, let sqlite = store as? AccountStore {
                // A million rows: SQLite's own bytes, copied as they are when they are printable
                // ASCII (every email signup itself stored), without a String per column.
                try sqlite.streamAccountBytes(inState: state) { id, email, createdAt, state in
                    if count == 0 { output.appendHeader() }
                    output.appendRow(id, createdAt: createdAt, states[state], email: email)
                    count += 1
                    return output.isHealthy
                }
            } else {
                try store?.streamAccounts(inState: state) { account in
                    if json {
                        output.append((count == 0 ? "\n" : ",\n") + "{\"id\":\(account.id),\"email\":" + Self.jsonString(account.email)
                            + ",\"created_at\":" + Self.jsonString(account.createdAt) + ",\"state\":\"" + account.state.rawValue
                            + "\",\"password_changed_at\":" + (account.passwordChangedAt.map(Self.jsonString) ?? "null") + "}")
                    } else {
                        if count == 0 { output.appendHeader() }
                        output.appendRow(account.id, VisibleText.revealingInvisible(account.createdAt), states[account.state],
                                         VisibleText.revealingInvisible(account.email))
                    }
                    count += 1
                    return output.isHealthy
                }
            }
            if json { output.append(count == 0 ? "]\n" : "\n]\n") }
        } catch {
            output.flush()
            IO.write("error: \(error.description)\n", to: 2)
            throw ExitCode(ExitStatus.storage)
        }
        output.flush()
        try output.finish()
        if count == 0 && !json {
            let place = ["place": location.visible]
            let line = switch state {
            case .active: Translation.english("No active accounts in {place}", place)
            case .disabled: Translation.english("No disabled accounts in {place}", place)
            case .pending: Translation.english("No pending accounts in {place}", place)
            case nil: Translation.english("No accounts in {place}", place)
            }
            IO.write(Translation.signup(line) + "\n", to: 2)
        }
    }

    /// `--count-old-hashes`: one number on standard output (a JSON object with `--json`).
    private func countOld(at location: StoreLocation, settings: Settings) throws {
        let costs = try policy.load(settings).argon2
        let count: Int
        do throws(StoreError) {
            count = try location.openExisting()?.countHashes(weakerThan: costs) ?? 0
        } catch {
            IO.write("error: \(error.description)\n", to: 2)
            throw ExitCode(ExitStatus.storage)
        }
        IO.write(json ? JSONText.object([("old_hashes", count)]) + "\n" : "\(count)\n", to: 1)
        if !json {
            IO.write(Translation.signup(Translation.english(
                "accounts whose hash has less memory or fewer passes than m={memory}, t={passes}, and more of neither; each is made again with m={memory}, t={passes}, p={lanes} when its password is next verified",
                ["memory": "\(costs.memoryKiB)", "passes": "\(costs.iterations)", "lanes": "\(costs.parallelism)"])) + "\n", to: 2)
        }
        if let failure = IO.outputFailure {
            IO.write("error: " + About.english("cannot write to standard output: {reason}", ["reason": "\(failure)"]) + "\n", to: 2)
            throw ExitCode(ExitStatus.unwritable)
        }
    }

    /// A JSON string for outside text: valid JSON that keeps every character, with the
    /// ones the table shows as `<U+XXXX>` or `^X` (``VisibleText/revealingInvisible(_:)``: C0,
    /// DEL, C1, bidirectional controls, invisible characters) as `\uXXXX` escapes (a surrogate
    /// pair beyond U+FFFF), so `list --json` at a terminal sends it no escape sequence either
    /// and hides nothing.
    static func jsonString(_ text: String) -> String {
        guard VisibleText.revealingInvisible(text) != text else { return JSONText.string(text) }
        var out = "\""
        for scalar in text.unicodeScalars {
            let single = String(scalar)
            if scalar == "\"" || scalar == "\\" {
                out += "\\" + single
            } else if VisibleText.revealingInvisible(single) != single {
                for unit in single.utf16 { out += JSONText.unicodeEscape(UInt32(unit)) }
            } else {
                out += single
            }
        }
        return out + "\""
    }
}

/// The states as the table shows them, in the reader's language, looked up once a run; `--json`
/// and `--state` keep the English values, which programs read and people type.
private struct StateWords {
    private let active = About.english("active")
    private let disabled = About.english("disabled")
    private let pending = About.english("pending")

    subscript(state: AccountState) -> String {
        switch state {
        case .active: active
        case .disabled: disabled
        case .pending: pending
        }
    }
}

/// Standard output with a buffer, for streams of rows: a failed write stops the stream.
///
/// A closed pipe (`signup list | head -1`) ends the process quietly as SIGPIPE would
/// (status 141 in a shell, no message); any other write error (`> /dev/full`) is exit
/// 74 with a message.
private struct StandardOutput {
    private var buffer: [UInt8] = []
    private var failure: Int32?

    var isHealthy: Bool { failure == nil }

    mutating func append(_ text: String) {
        guard failure == nil else { return }
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 64 * 1024 { flush() }
    }

    /// One row of the text table: ID padded to 7 characters, CREATED to 20, then EMAIL. Written
    /// straight into the buffer, padded by Character count (a row's cost is what `list` costs:
    /// no intermediate strings, no Foundation padding, which goes through UTF-16).
    mutating func appendRow(_ id: String, _ created: String, _ state: String, _ email: String) {
        guard failure == nil else { return }
        appendPadded(id, to: 7)
        appendRest(created, state, email)
    }

    /// The headers in the reader's language.
    mutating func appendHeader() {
        appendRow(About.english("ID"), About.english("CREATED"), About.english("STATE"), About.english("EMAIL"))
    }

    /// A row whose id is written digit by digit, without a String for it.
    mutating func appendRow(_ id: Int64, _ created: String, _ state: String, _ email: String) {
        guard failure == nil else { return }
        appendID(id)
        appendRest(created, state, email)
    }

    /// A row from the store's own bytes (``AccountStore/streamAccountBytes(inState:_:)``): copied
    /// as they are when both are printable ASCII, which needs neither repair nor escaping and
    /// is one byte a column; otherwise made Strings and shown as
    /// ``VisibleText/revealingInvisible(_:)`` shows them, as every other row is.
    mutating func appendRow(_ id: Int64, createdAt: UnsafeBufferPointer<UInt8>, _ state: String, email: UnsafeBufferPointer<UInt8>) {
        guard failure == nil else { return }
        func printable(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool { bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }
        guard printable(createdAt) && printable(email) else {
            return appendRow(id, VisibleText.revealingInvisible(String(decoding: createdAt, as: UTF8.self)), state,
                             VisibleText.revealingInvisible(String(decoding: email, as: UTF8.self)))
        }
        appendID(id)
        buffer.append(contentsOf: createdAt)
        for _ in 0..<(max(0, 20 - createdAt.count) + 2) { buffer.append(UInt8(ascii: " ")) }
        appendPadded(state, to: 8)
        buffer.append(contentsOf: email)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= 64 * 1024 { flush() }
    }

    /// The id, digit by digit, padded to 7 characters and the two spaces between columns.
    private mutating func appendID(_ id: Int64) {
        let start = buffer.count
        var magnitude = id.magnitude
        repeat {
            buffer.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        if id < 0 { buffer.append(UInt8(ascii: "-")) }
        buffer[start...].reverse()
        let count = buffer.count - start
        for _ in 0..<(max(0, 7 - count) + 2) { buffer.append(UInt8(ascii: " ")) }
    }

    /// CREATED and STATE padded, then EMAIL and the line end.
    private mutating func appendRest(_ created: String, _ state: String, _ email: String) {
        appendPadded(created, to: 20)
        appendPadded(state, to: 8)
        appendBytes(of: email)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= 64 * 1024 { flush() }
    }

    /// `text`, then spaces up to `width` characters, then the two spaces between columns.
    private mutating func appendPadded(_ text: String, to width: Int) {
        let ascii = appendBytes(of: text)
        let shown = ascii ? text.utf8.count : text.count
        for _ in 0..<(max(0, width - shown) + 2) { buffer.append(UInt8(ascii: " ")) }
    }

    /// Appends the text's UTF-8 bytes from its own storage (`Array.append(contentsOf: text.utf8)`
    /// goes byte by byte through a generic sequence) and says whether they were all ASCII.
    @discardableResult
    private mutating func appendBytes(of text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            buffer.append(contentsOf: bytes)
            return !bytes.contains { $0 >= 0x80 }
        }
    }

    mutating func flush() {
        var offset = 0
        while failure == nil && offset < buffer.count {
            let written = buffer.withUnsafeBytes { Glibc.write(1, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                failure = errno
            } else {
                offset += written
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    func finish() throws {
        guard let failure else { return }
        IO.endIfReaderWentAway(failure)
        IO.write("error: " + About.english("cannot write the list to standard output: {reason}", ["reason": String(cString: strerror(failure))]) + "\n", to: 2)
        throw ExitCode(ExitStatus.storage)
    }
}

extension AccountState: ExpressibleByArgument {}
