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
            CSV starts with the header email,password or email,password_hash; JSON Lines has one \
            object a line with "email" and "password" or "password_hash". Each row is one line, of at \
            most 64 KiB: a CSV field that begins with a quote ends at its closing quote on the same \
            line (else the row is rejected: "csv.unterminatedQuote"), and a quote anywhere else is an \
            ordinary character. Every row is checked by the rules and policy of a sign-up (a \
            password_hash must be an Argon2id PHC string), and a row with the email of an earlier row \
            is rejected ("email.duplicate"). Each rejected row is reported on standard error by its line \
            number and codes, with its email only when it is a valid address beside a field that is \
            not one, never a password. Rows are taken {batch} at a time: the store is asked which \
            emails it has (those rows are already there, reported together in one line and never \
            hashed), the other passwords are hashed on every core, and the batch is stored in one \
            transaction. With --update an email already there gets the row's password, unless its \
            stored hash is of that password already. --dry-run counts every row as the import would \
            and writes nothing. SIGINT, SIGTERM, SIGHUP or SIGQUIT stops the import between two \
            transactions: it prints what is stored and the line to go on from with --from-line, then \
            ends by that signal.
            Exit codes: 0 every row created, updated or already there, 64 usage, 65 some rows were \
            rejected (the others were imported), 66 the file cannot be read, 74 storage failure (the \
            transactions committed before it stay: go on with the --from-line it names), 130 \
            stopped by SIGINT (143 SIGTERM, 129 SIGHUP, 131 SIGQUIT), after naming the --from-line to go on with.
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

    @Option(name: .customLong("from-line"),
            help: .english("Go on from this line, as a stopped import said: earlier lines are only read again to find duplicates.",
                           value: Translation.english("line")))
    var fromLine: Int?

    @OptionGroup var policy: PolicyOptions

    func run() throws {
        let settings = try policy.settings()
        let passwordPolicy = try policy.load(settings)
        let location = try settings.location(given: db).value
        if let fromLine, fromLine < 1 { throw UsageError(.english("--from-line takes a line number, 1 or more")) }
        let fd = try openInput()
        let progress = isTerminal(2) && !json
        let report = ImportReport(json: json, dryRun: dryRun, progress: progress)
        var run = ImportRun(location: location, policy: passwordPolicy, update: update, dryRun: dryRun, report: report,
                            fromLine: fromLine ?? 1, total: progress ? Self.rowCount(fd, from: fromLine ?? 1) : nil)
        // Held for the whole run: the watch ends it with a summary, never in the middle of a commit.
        TerminalGuard.install()
        TerminalGuard.holdSignals()
        let watch = report.watchSignals()
        // Rows typed or pasted at a terminal hold passwords: the terminal echoes none of them
        // (as for every secret read without a masked prompt), and a signal puts its mode back.
        let readError: Int32?
        // Every line is accounted for: in a regular file the rest of an over-long line is read
        // to its end, however long, so the lines after it are still imported. A pipe or a
        // terminal may never end a line (`< /dev/zero`): its reading stops 4 MiB into one, and
        // the import says so below instead of ending as if the input had.
        let input = LineInput(fd: fd, skipLimit: Self.isRegularFile(fd) ? Int.max : LineInput.skipLimit)
        if isTerminal(fd) {
            readError = withEchoOff(fd) { run.importing(from: input) }
        } else {
            readError = run.importing(from: input)
        }
        let summary = report.finish()
        watch.cancel()
        try end(summary, progress: progress, readError: readError, abandonedAtLine: input.abandonedAtLine)
    }

    /// The descriptor of the file to import: standard input for `-`. Ends the command when it cannot be read.
    private func openInput() throws -> Int32 {
        if file == "-" {
            // A closed standard input is no input at all, not an empty file.
            guard !IO.standardInputWasClosed else {
                IO.write("error: " + Translation.signup(Translation.english("cannot read the file to import: {reason}", ["reason": String(cString: strerror(EBADF))])) + "\n", to: 2)
                throw ExitCode(ExitStatus.incomplete)
            }
            return 0
        }
        let fd = IO.open(Array(file.utf8), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            IO.write("error: " + Translation.signup(Translation.english("cannot open the file to import: {reason}", ["reason": String(cString: strerror(errno))])) + "\n", to: 2)
            throw ExitCode(ExitStatus.incomplete)
        }
        return fd
    }

    /// Shows how the import ended (what stopped it, the summary, the audit line) and ends the
    /// command with its status: 74 storage or output, 66 input cut short, 65 rows refused, else 0.
    private func end(_ summary: ImportSummary, progress: Bool, readError: Int32?, abandonedAtLine: Int?) throws -> Never {
        if progress { IO.write("\n", to: 2) }
        summary.showAlreadyThere()
        if let readError {
            let reason = Translation.signup(Translation.english("cannot read the file to import: {reason}", ["reason": String(cString: strerror(readError))]))
            IO.write("error: " + reason + "; " + summary.resumeHint + "\n", to: 2)
        }
        if let line = abandonedAtLine {
            IO.write("error: " + Translation.signup(Translation.english(
                "line {line} goes on for more than 4 MiB: nothing after it was read; import the rest from a file, or mend that line",
                ["line": "\(line)"])) + "\n", to: 2)
        }
        if let storage = summary.storageFailure {
            IO.write("error: " + VisibleText.of(storage) + "; " + summary.resumeHint + "\n", to: 2)
        }
        summary.show(summary.storageFailure == nil ? .finished : .storageFailure, json: json, dryRun: dryRun)
        summary.audit(dryRun: dryRun)
        if let failure = IO.outputFailure {
            IO.write("error: " + Translation.signup(Translation.english("cannot write to standard output: {reason}", ["reason": "\(failure)"])) + "\n", to: 2)
            throw ExitCode(ExitStatus.unwritable)
        }
        if summary.storageFailure != nil { throw ExitCode(ExitStatus.storage) }
        if readError != nil || abandonedAtLine != nil { throw ExitCode(ExitStatus.incomplete) }
        throw ExitCode(summary.rejected > 0 ? ExitStatus.invalid : 0)
    }
}

extension ImportCommand {
    /// Whether `fd` is a regular file (whose end is not far off), not a pipe, socket or terminal.
    static func isRegularFile(_ fd: Int32) -> Bool {
        var info = stat()
        return fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// The rows of a regular file from line `first` on (for the progress line's total and time
    /// left), read from its start and rewound; nil for a pipe or a terminal, which cannot be read twice.
    static func rowCount(_ fd: Int32, from first: Int) -> Int? {
        guard isRegularFile(fd) else { return nil }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var lines = 0
        while true {
            let got = IO.read(fd, into: &buffer, count: buffer.count)
            if got <= 0 { break }
            lines += buffer[..<got].count(where: { $0 == UInt8(ascii: "\n") })
        }
        guard lseek(fd, 0, SEEK_SET) == 0 else { return nil }
        // Less the header (JSON Lines has none, but its last line may have no line feed) and the lines before `first`.
        return max(0, lines - max(1, first - 1))
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
    /// Where counts and reports go, shared with the signal watch.
    let report: ImportReport
    /// Rows on earlier lines are only checked, to know the emails they hold: an earlier run did them.
    let fromLine: Int
    /// The rows the file holds from `fromLine` on, when they could be counted, for "done/total" and the time left.
    let total: Int?
    private var store: (any AccountBackend)?
    private var opened = false
    private var started = DispatchTime.now()
    /// Each email key among the rows that passed their checks, with its first line.
    private var seen = Set<SeenKey>()

    init(location: StoreLocation, policy: PasswordPolicy, update: Bool, dryRun: Bool, report: ImportReport, fromLine: Int, total: Int?) {
        self.location = location
        self.policy = policy
        self.update = update
        self.dryRun = dryRun
        self.report = report
        self.fromLine = fromLine
        self.total = total
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
        /// An export's line: the account's state, origin and dates, stored as they were.
        var whole: WholeAccount?
    }

    /// Why a row is not imported: its codes, and the email when it may be shown.
    struct Rejection: Error {
        var email: String?
        var codes: [String]
    }

    /// Imports every record of `input` into the report; the store is opened at the first batch,
    /// so a file with no row to store creates no database. Returns the errno of a read that
    /// failed: the rows read before it are settled.
    mutating func importing(from input: LineInput) -> Int32? {
        var reader = RecordReader(input)
        let form = SignupForm.make(policy: policy, strength: .command)
        var batch: [Row] = []
        batch.reserveCapacity(Self.batchSize)
        while report.record({ $0.storageFailure == nil }), let record = reader.next() {
            let line: Int
            let checked: Result<Row, Rejection>
            switch record {
            case .problem(let at, let code):
                (line, checked) = (at, .failure(Rejection(codes: [code])))
            case .row(let at, let email, let secret, let isHash, let whole):
                line = at
                checked = check(line: line, email: email, secret: secret, isHash: isHash, form: form)
                    .map { row in var row = row; row.whole = whole; return row }
                    .flatMap { remember($0, secret: secret) }
            }
            guard line >= fromLine else { continue }
            switch checked {
            case .success(let row):
                if batch.isEmpty { report.record { $0.batchStart = line } }
                batch.append(row)
            case .failure(let rejection):
                report.reject(line: line, email: rejection.email, codes: rejection.codes)
            }
            report.record { $0.nextLine = line + 1 }
            if batch.count == Self.batchSize { settle(&batch) }
        }
        if !batch.isEmpty && report.record({ $0.storageFailure == nil }) { settle(&batch) }
        return input.readError
    }

    /// The row to store, or why not: every failing code of its email and password (or hash).
    private func check(line: Int, email: String, secret: String, isHash: Bool, form: Form) -> Result<Row, Rejection> {
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
            return .failure(Rejection(email: Self.showable(email, emailPassed: emailPassed, besides: secret), codes: codes))
        }
        return .success(row)
    }

    /// `row` when it is the first row of the file with its email's key; a later one is rejected
    /// (`email.duplicate`, naming the first line), in a dry run as in a real one: which of two
    /// passwords an account should get is the file's author's to say, and two accounts of an
    /// earlier system that became one key must not merge unnoticed.
    private mutating func remember(_ row: Row, secret: String) -> Result<Row, Rejection> {
        let (isNew, first) = seen.insert(SeenKey(AccountStore.key(forEmail: row.email), line: row.line))
        if isNew { return .success(row) }
        let code = Translation.english("email.duplicate (the email of line {first})", ["first": "\(first.line)"])
        return .failure(Rejection(email: Self.showable(row.email, emailPassed: true, besides: secret), codes: [Translation.signup(code)]))
    }

    /// The email to show beside a rejected row's line number, or nil. Only an address that passed
    /// every email rule is shown, and not when the row's other field holds an `@` at all (columns
    /// swapped: the "email" is then the password, and the other field an address, valid or not:
    /// `Zx9@Secret-Pw.org,bob@example`). A row split at the wrong place or joined
    /// (`email:password`, a tab, a semicolon) puts part of its password into the email column,
    /// which then fails the email's rules, and a quoted field is one field: so no part of a
    /// password or hash is ever shown, only the line number and the codes.
    static func showable(_ email: String, emailPassed: Bool, besides secret: String) -> String? {
        guard emailPassed, !secret.contains("@") else { return nil }
        return email
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
            report.record { $0.storageFailure = error.description }
            return
        }
        let decisions = Self.decide(batch, plans, hashing: !dryRun, costs: policy.argon2)
        var writes: [(index: Int, account: NewAccount)] = []
        var outcomes = [BatchOutcome?](repeating: nil, count: batch.count)
        for (index, (row, decision)) in zip(batch, decisions).enumerated() {
            switch decision {
            case .alreadyThere:
                break
            case .write(let hash?):
                if let whole = row.whole {
                    writes.append((index, NewAccount(email: row.email, passwordHash: hash, state: whole.state, origin: whole.origin,
                                                     createdAt: whole.createdAt, passwordChangedAt: whole.passwordChangedAt)))
                } else {
                    writes.append((index, NewAccount(email: row.email, passwordHash: hash)))
                }
            case .write(nil):  // a dry run's: what the write would have been
                if case .update = plans[index] { outcomes[index] = .updated } else { outcomes[index] = .created(id: 0) }
            case .unhashable:
                report.record { $0.storageFailure = "a password could not be hashed (line \(row.line))" }
                return
            }
        }
        let (store, update) = (store, update)
        do throws(StoreError) {
            // The commit and its count are one step for the signal watch: it reports either both or neither.
            try report.update { (summary: inout ImportSummary) throws(StoreError) in
                if let store, !writes.isEmpty {
                    let stored = try store.insertBatch(writes.map(\.account), update: update, at: Date())
                    for (write, outcome) in zip(writes, stored) { outcomes[write.index] = outcome }
                }
                for (row, outcome) in zip(batch, outcomes) {
                    switch outcome {
                    case .created?: summary.created += 1
                    case .updated?: summary.updated += 1
                    // Already there when looked up, or created by another writer since.
                    case .taken?, nil: summary.alreadyThere.add(row.line)
                    }
                }
                summary.batchStart = nil
                summary.rejectedInBatch = 0
                showProgress(summary)
            }
        } catch {
            report.record { $0.storageFailure = error.description }
        }
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
            // An export's line is written whole even with the same hash: its state and dates count too.
            case .update(let stored) where row.whole == nil && row.hash.map({ $0.phc == stored })
                    ?? (PasswordHasher.check(row.password ?? Secret(""), against: stored) == .matches):
                decision = .alreadyThere
            case .create, .update:
                if !hashing {
                    decision = .write(nil)  // a dry run writes nothing, a row's own hash included
                } else if let hash = row.hash {
                    decision = .write(hash)
                } else {
                    decision = (try? PasswordHasher.hash(row.password ?? Secret(""), costs: costs)).map(Decision.write) ?? .unhashable
                }
            }
            results.set(index, decision)
        }
        return results.values
    }

    private func showProgress(_ summary: ImportSummary) {
        guard report.progress else { return }
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
        IO.write("\r" + Translation.signup(text) + "   ", to: 2)
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
