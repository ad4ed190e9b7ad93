import AccountStore
import ArgumentParser
import Dispatch
import FoundationEssentials
import Glibc
import PasswordStrength
import SignupCore
import Synchronization
import WizardTerminal

/// `signup import FILE|-`: many accounts in one run, each row checked as a sign-up is.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: About.english("Create many accounts from a CSV or JSON Lines file (or - for standard input)."),
        discussion: About.english("""
            CSV (RFC 4180) starts with the header email,password or email,password_hash; JSON Lines \
            has one object a line with "email" and "password" or "password_hash". Every row is checked \
            by the rules and policy of a sign-up (a password_hash must be an Argon2id PHC string); each \
            rejected row is reported on standard error with its line number, its email made visible \
            and every failing code, never its password, and the other rows are still imported. \
            Passwords are hashed on every core, and rows are stored in transactions of \
            {batch}: an email that is already taken is reported and skipped, or with \
            --update its password is changed. Interrupted at any moment, every stored row is whole, \
            and running the same import again finishes the rest without duplicates. --dry-run checks \
            every row and writes nothing. A line may be at most 64 KiB.
            Exit codes: 0 every row created, updated or already there, 64 usage, 65 some rows were \
            rejected (the others were imported), 66 the file cannot be read, 74 storage failure (the \
            transactions committed before it stay: run the import again).
            """, ["batch": "\(ImportRun.batchSize)"])
    )

    @Argument(help: .english("The file to import, or - for standard input.", value: Translation.english("file")), completion: .file())
    var file: String

    @Option(help: About.databaseHelp, completion: .file())
    var db: String?

    @Flag(help: .english("Change the password of an account whose email is already taken, instead of skipping it."))
    var update = false

    @Flag(help: .english("Check every row, store nothing."))
    var dryRun = false

    @Flag(help: .english("Print a summary as one JSON object on standard output."))
    var json = false

    @OptionGroup var policy: PolicyOptions

    func run() throws {
        let passwordPolicy = try policy.load()
        let location = try StoreOption.location(given: db)
        let fd: Int32
        if file == "-" {
            fd = 0
            // A closed standard input is no input at all, not an empty file.
            guard !IO.standardInputWasClosed else {
                IO.write("error: " + Translation.signup(Translation.english("cannot read the file to import: {reason}", ["reason": String(cString: strerror(EBADF))])) + "\n", to: 2)
                throw ExitCode(ExitStatus.incomplete)
            }
        } else {
            fd = IO.open(Array(file.utf8), O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                IO.write("error: " + Translation.signup(Translation.english("cannot open the file to import: {reason}", ["reason": String(cString: strerror(errno))])) + "\n", to: 2)
                throw ExitCode(ExitStatus.incomplete)
            }
        }
        let progress = isTerminal(2) && !json
        var run = ImportRun(location: location, policy: passwordPolicy, update: update, dryRun: dryRun,
                            progress: progress, total: progress ? Self.lineCount(fd) : nil)
        // Rows typed or pasted at a terminal hold passwords: the terminal echoes none of them
        // (as for every secret read without a masked prompt), and a signal puts its mode back.
        let summary: ImportSummary
        if isTerminal(fd) {
            TerminalGuard.install()
            summary = try withEchoOff(fd) { Result { try run.importing(from: LineInput(fd: fd)) } }.get()
        } else {
            summary = try run.importing(from: LineInput(fd: fd))
        }
        summary.show(json: json, dryRun: dryRun)
        if let failure = IO.outputFailure {
            IO.write("error: " + Translation.signup(Translation.english("cannot write to standard output: {reason}", ["reason": "\(failure)"])) + "\n", to: 2)
            throw ExitCode(ExitStatus.unwritable)
        }
        if let storage = summary.storageFailure {
            IO.write("error: " + Translation.signup(Translation.english("{reason}; the rows stored before it stay: run the same import again to finish", ["reason": VisibleText.of(storage)])) + "\n", to: 2)
            throw ExitCode(ExitStatus.storage)
        }
        throw ExitCode(summary.rejected > 0 ? ExitStatus.invalid : 0)
    }
}

extension ImportCommand {
    /// The lines of a regular file (for the progress line's total and time left), read from its
    /// start and rewound; nil for a pipe or a terminal, which cannot be read twice.
    static func lineCount(_ fd: Int32) -> Int? {
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var lines = 0
        while true {
            let got = IO.read(fd, into: &buffer, count: buffer.count)
            if got <= 0 { break }
            lines += buffer[..<got].count(where: { $0 == UInt8(ascii: "\n") })
        }
        guard lseek(fd, 0, SEEK_SET) == 0 else { return nil }
        return max(0, lines - 1)  // the header, or (JSON Lines) one more row that the count may miss at the end
    }
}

/// What an import did, row by row counted.
struct ImportSummary {
    var created = 0
    var updated = 0
    /// Rows whose account was there already and was left as it is: one line of report for all.
    var alreadyThere = LineRanges()
    var rejected = 0
    var storageFailure: String?

    func show(json: Bool, dryRun: Bool) {
        if json {
            var members: [(String, Any)] = [("status", storageFailure == nil ? "imported" : "storage_error")]
            members += [("created", created), ("updated", updated), ("taken", alreadyThere.count), ("rejected", rejected), ("dry_run", dryRun)]
            IO.write(JSONText.object(members) + "\n", to: 1)
        } else {
            let counts = ["created": "\(created)", "updated": "\(updated)", "taken": "\(alreadyThere.count)", "rejected": "\(rejected)"]
            let line = dryRun
                ? Translation.english("Dry run, nothing was stored: would create {created}, update {updated}; already there {taken}, rejected {rejected}", counts)
                : Translation.english("Imported: created {created}, updated {updated}, already there {taken}, rejected {rejected}", counts)
            IO.write(Translation.signup(line) + "\n", to: 1)
        }
    }
}

/// Line numbers counted, and the first few kept as ranges (`2-257, 300`), for a report of one line
/// however many there are.
struct LineRanges {
    private(set) var count = 0
    private var ranges: [ClosedRange<Int>] = []
    private var more = false
    /// The ranges shown; after them, "…".
    static let shown = 5

    mutating func add(_ line: Int) {
        count += 1
        if let last = ranges.last, last.upperBound + 1 == line {
            ranges[ranges.count - 1] = last.lowerBound...line
        } else if ranges.count < Self.shown {
            ranges.append(line...line)
        } else {
            more = true
        }
    }

    /// `2-257, 300, …`
    var text: String {
        ranges.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ", ") + (more ? ", …" : "")
    }
}

/// The import's pipeline: rows read and checked one at a time; a batch at a time looked up in the
/// store, hashed on every core (only what is to be written) and stored in one transaction.
/// Memory holds one batch and 16 bytes for each row seen (``SeenKey``).
struct ImportRun {
    /// Rows a transaction stores, and a batch hashes: enough to keep every core busy and a
    /// commit's cost small, few enough that an interrupted run loses little work.
    static let batchSize = 256

    let location: StoreLocation
    let policy: PasswordPolicy
    let update: Bool
    let dryRun: Bool
    let progress: Bool
    /// The rows the file holds, when it could be counted, for "done/total" and the time left.
    let total: Int?
    private var summary = ImportSummary()
    private var store: (any AccountBackend)?
    private var opened = false
    private var started = DispatchTime.now()
    /// Each email key among the rows that passed their checks, with its first line.
    private var seen = Set<SeenKey>()

    init(location: StoreLocation, policy: PasswordPolicy, update: Bool, dryRun: Bool, progress: Bool, total: Int?) {
        self.total = total
        self.location = location
        self.policy = policy
        self.update = update
        self.dryRun = dryRun
        self.progress = progress
    }

    /// The most an imported hash may cost: 256 MiB, 16 passes and 16 lanes (argon2-cffi's and
    /// PHP's defaults fit), or the policy's own costs where they are higher.
    static func importedCostLimit(_ policy: PasswordPolicy.Argon2Costs) -> PasswordPolicy.Argon2Costs {
        PasswordPolicy.Argon2Costs(memoryKiB: max(policy.memoryKiB, 262_144), iterations: max(policy.iterations, 16),
                                   parallelism: max(policy.parallelism, 16))
    }

    /// One row that passed its checks: a password to hash, or a hash to store as it is.
    struct Row {
        var line: Int
        var email: String
        var password: Secret?
        var hash: PasswordHash?
    }

    /// Imports every record of `input`; the store is opened at the first batch, so a file with
    /// no row to store creates no database.
    mutating func importing(from input: LineInput) throws -> ImportSummary {
        var reader = RecordReader(input)
        let form = SignupForm.make(policy: policy, strength: .zxcvbn)
        var batch: [Row] = []
        batch.reserveCapacity(Self.batchSize)
        while summary.storageFailure == nil, let record = reader.next() {
            switch record {
            case .problem(let line, let text):
                reject(line: line, email: nil, codes: [text])
            case .row(let line, let email, let secret, let isHash):
                if let row = check(line: line, email: email, secret: secret, isHash: isHash, form: form), isFirst(row, secret: secret) {
                    batch.append(row)
                }
            }
            if batch.count == Self.batchSize { settle(&batch) }
        }
        if !batch.isEmpty && summary.storageFailure == nil { settle(&batch) }
        if progress { IO.write("\n", to: 2) }
        if summary.alreadyThere.count > 0 {
            let text = Translation.english("Already there, not changed: {count} (lines {lines})",
                                           ["count": "\(summary.alreadyThere.count)", "lines": summary.alreadyThere.text])
            IO.write(Translation.signup(text) + "\n", to: 2)
        }
        if let code = input.readError {
            let reason = ["reason": String(cString: strerror(code))]
            IO.write("error: " + Translation.signup(summary.created + summary.updated > 0
                ? Translation.english("cannot read the file to import: {reason}; the rows read before were stored", reason)
                : Translation.english("cannot read the file to import: {reason}", reason)) + "\n", to: 2)
            throw ExitCode(ExitStatus.incomplete)
        }
        return summary
    }

    /// The row's failing codes are reported and nil returned, or the row to store.
    private mutating func check(line: Int, email: String, secret: String, isHash: Bool, form: Form) -> Row? {
        var form = form
        let email = SignupForm.normalizeEmail(email)
        form.answer(SignupForm.email, with: email)
        var codes = form.errors(for: SignupForm.email).map(\.code)
        var row = Row(line: line, email: email)
        if isHash {
            do {
                let hash = try PasswordHash(parsing: secret)
                // A hash may come from another system's costs, but not one that makes every later
                // check of it (verify, Dovecot, a guesser's) take a gigabyte or seconds.
                if hash.costsAtMost(Self.importedCostLimit(policy.argon2)) { row.hash = hash } else { codes.append("password_hash.tooCostly") }
            } catch {
                codes.append("password_hash.invalid")
            }
        } else {
            let password = SignupForm.normalizePassword(secret)
            form.answer(SignupForm.password, with: password)
            form.answer(SignupForm.confirm, with: password)
            codes += form.errors(for: SignupForm.password).map(\.code)
            row.password = Secret(password)
        }
        guard codes.isEmpty else {
            let emailPassed = !codes.contains { $0.hasPrefix("email.") }
            reject(line: line, email: Self.showable(email, emailPassed: emailPassed, besides: secret), codes: codes)
            return nil
        }
        return row
    }

    /// Whether `row` is the first row of the file with its email's key; a later one is rejected
    /// (`email.duplicate`, naming the first line), in a dry run as in a real one: which of two
    /// passwords an account should get is the file's author's to say, and two accounts of an
    /// earlier system that became one key must not merge unnoticed.
    private mutating func isFirst(_ row: Row, secret: String) -> Bool {
        let (isNew, first) = seen.insert(SeenKey(AccountStore.key(forEmail: row.email), line: row.line))
        if isNew { return true }
        let code = Translation.english("email.duplicate (the email of line {first})", ["first": "\(first.line)"])
        reject(line: row.line, email: Self.showable(row.email, emailPassed: true, besides: secret), codes: [Translation.signup(code)])
        return false
    }

    /// The email to show beside a rejected row's line number, or nil. Only an address that passed
    /// every email rule is shown, and not when the row's other field is an address too (columns
    /// swapped: the "email" is then the password). A row split at the wrong place or joined
    /// (`email:password`, a tab, a semicolon) puts part of its password into the email column,
    /// which then fails the email's rules, and a quoted field is one field: so no part of a
    /// password or hash is ever shown, only the line number and the codes.
    static func showable(_ email: String, emailPassed: Bool, besides secret: String) -> String? {
        guard emailPassed, EmailSyntax.check(secret.trimmingBlanks()) != .valid else { return nil }
        return email
    }

    private mutating func reject(line: Int, email: String?, codes: [String]) {
        summary.rejected += 1
        let shown = email.map { " \(VisibleText.of($0))" } ?? ""
        IO.write((progress ? "\r" : "") + Translation.signup(Translation.english("line {line}{email}: {codes}", ["line": "\(line)", "email": shown, "codes": codes.joined(separator: ", ")])) + "\n", to: 2)
    }

    /// What a batch's row will be, from one look-up of its email before anything is hashed.
    private enum Plan {
        /// No account has the email: hash the password and create it.
        case create
        /// An account has it and, without `--update`, keeps it as it is.
        case alreadyThere
        /// `--update` and an account has it, with this stored hash: changed, unless the hash is
        /// already this row's (the row's own PHC string, or one its password verifies against).
        case update(stored: String)
    }

    /// What the work on every core decided for a row.
    private enum Decision {
        case alreadyThere
        /// To be written: its hash, or nil in a dry run, which hashes nothing.
        case write(PasswordHash?)
        /// The password could not be hashed (memory ran out).
        case unhashable
    }

    /// Settles a batch, in a dry run as in a real one: looks up every row's email, decides on
    /// every core what each row is (checking an update against its stored hash, and, in a real
    /// run, hashing what is written), then counts each row; a real run writes what it decided
    /// in one transaction first. Rows already there are never hashed. Empties the batch.
    private mutating func settle(_ batch: inout [Row]) {
        defer { batch.removeAll(keepingCapacity: true) }
        let plans: [Plan]
        do throws(StoreError) {
            plans = try lookUp(batch)
        } catch {
            summary.storageFailure = error.description
            return
        }
        let decisions = Self.decide(batch, plans, hashing: !dryRun, costs: policy.argon2)
        var writes: [(index: Int, hash: PasswordHash?)] = []
        for (index, (row, decision)) in zip(batch, decisions).enumerated() {
            switch decision {
            case .alreadyThere: break
            case .write(let hash): writes.append((index, hash))
            case .unhashable:
                summary.storageFailure = "a password could not be hashed (line \(row.line))"
                return
            }
        }
        var outcomes = [BatchOutcome?](repeating: nil, count: batch.count)
        if dryRun {
            for write in writes {
                if case .update = plans[write.index] { outcomes[write.index] = .updated } else { outcomes[write.index] = .created(id: 0) }
            }
        } else if let store, !writes.isEmpty {
            let accounts = writes.compactMap { write in write.hash.map { (write.index, NewAccount(email: batch[write.index].email, passwordHash: $0)) } }
            do throws(StoreError) {
                let stored = try store.insertBatch(accounts.map(\.1), update: update, at: Date())
                for ((index, _), outcome) in zip(accounts, stored) { outcomes[index] = outcome }
            } catch {
                summary.storageFailure = error.description
                return
            }
        }
        for (row, outcome) in zip(batch, outcomes) {
            switch outcome {
            case .created?: summary.created += 1
            case .updated?: summary.updated += 1
            // Already there when looked up, or created by another writer since.
            case .taken?, nil: summary.alreadyThere.add(row.line)
            }
        }
        showProgress()
    }

    /// Each row's plan, from one look-up of its email (the store is opened at the first batch:
    /// a dry run opens only an existing one, and with none every row is created).
    private mutating func lookUp(_ batch: [Row]) throws(StoreError) -> [Plan] {
        if !opened {
            opened = true
            store = dryRun ? try location.openExisting() : try location.openForWriting()
        }
        guard let store else { return batch.map { _ in .create } }
        var plans: [Plan] = []
        plans.reserveCapacity(batch.count)
        for row in batch {
            if update {
                plans.append(try store.passwordHash(forEmail: row.email).map { .update(stored: $0) } ?? .create)
            } else {
                plans.append(try store.isTaken(email: row.email) ? .alreadyThere : .create)
            }
        }
        return plans
    }

    /// What each row is, worked out on every core at once: an update whose stored hash is already
    /// the row's is already there (one Argon2 verification for a password); with `hashing`, each
    /// password to write is hashed.
    private static func decide(_ batch: [Row], _ plans: [Plan], hashing: Bool, costs: PasswordPolicy.Argon2Costs) -> [Decision] {
        let results = Slots<Decision>(count: batch.count, initial: .unhashable)
        DispatchQueue.concurrentPerform(iterations: batch.count) { index in
            let row = batch[index]
            let decision: Decision
            switch plans[index] {
            case .alreadyThere:
                decision = .alreadyThere
            case .update(let stored) where row.hash.map({ $0.phc == stored })
                    ?? (PasswordHasher.check(row.password ?? Secret(""), against: stored) == .matches):
                decision = .alreadyThere
            case .create, .update:
                if let hash = row.hash {
                    decision = .write(hash)
                } else if !hashing {
                    decision = .write(nil)
                } else {
                    decision = (try? PasswordHasher.hash(row.password ?? Secret(""), costs: costs)).map(Decision.write) ?? .unhashable
                }
            }
            results.set(index, decision)
        }
        return results.values
    }

    private func showProgress() {
        guard progress else { return }
        let done = summary.created + summary.updated + summary.alreadyThere.count + summary.rejected
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        let rate = seconds > 0 ? Double(done) / seconds : 0
        let text: String
        if let total, total >= done {
            let counts = ["done": "\(done)", "total": "\(total)", "rate": "\(Int(rate))"]
            text = rate > 0
                ? Translation.english("{done}/{total} rows, {rate}/s, about {left} s left",
                                      counts.merging(["left": "\(Int((Double(total - done) / rate).rounded(.up)))"]) { a, _ in a })
                : Translation.english("{done}/{total} rows, {rate}/s", counts)
        } else {
            text = Translation.english("{done} rows, {rate}/s", ["done": "\(done)", "rate": "\(Int(rate))"])
        }
        let line = "\r" + Translation.signup(text)
        IO.write(line + "   ", to: 2)
    }
}

/// Where work on every core puts its results: each slot written by one iteration only.
private final class Slots<Value: Sendable>: Sendable {
    private let slots: Mutex<[Value]>

    init(count: Int, initial: Value) { slots = Mutex(Array(repeating: initial, count: count)) }

    var values: [Value] { slots.withLock { $0 } }

    func set(_ index: Int, _ value: Value) {
        slots.withLock { $0[index] = value }
    }
}

/// What a run keeps of each email key it has seen, to find the file's own duplicates: 96 bits
/// of the key, from two differently seeded hashes, and the line it was first on. 16 bytes,
/// whatever the email's length. Two keys share a digest with odds of about n²/2⁹⁷ for n keys
/// (one in 10¹⁷ for a million rows).
struct SeenKey: Hashable {
    private let high: UInt64
    private let low: UInt32
    /// The line the key was first on; equality and hashing ignore it. A line past 2³²−1 is kept as that.
    let line: UInt32

    init(_ key: String, line: Int) {
        var first = Hasher(), second = Hasher()
        first.combine(0 as UInt8)
        second.combine(1 as UInt8)
        first.combine(key)
        second.combine(key)
        (high, low) = (UInt64(truncatingIfNeeded: first.finalize()), UInt32(truncatingIfNeeded: second.finalize()))
        self.line = UInt32(clamping: line)
    }

    static func == (a: SeenKey, b: SeenKey) -> Bool { a.high == b.high && a.low == b.low }

    func hash(into hasher: inout Hasher) {
        hasher.combine(high)
        hasher.combine(low)
    }
}
