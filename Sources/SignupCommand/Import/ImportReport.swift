import AccountStore
import Dispatch
import Glibc
import SignupCore
import Synchronization
import WizardTerminal

/// What an import has done, row by row counted, and where it stands in its file.
struct ImportSummary {
    var created = 0
    var updated = 0
    /// Rows whose account was there already and was left as it is: one line of report for all.
    var alreadyThere = LineRanges()
    var rejected = 0
    var storageFailure: String?
    /// The first line of the batch being settled: nothing from it on is stored yet.
    var batchStart: Int?
    /// Rows rejected since `batchStart`: a run that goes on from there reports them again.
    var rejectedInBatch = 0
    /// The line after the last one read.
    var nextLine = 1

    /// The line a run must go on from to finish: the first one not settled.
    var resumeLine: Int { batchStart ?? nextLine }

    /// How a run ended, for its result.
    enum Ending {
        case finished
        case storageFailure
        case signal(Int32)
    }

    /// The result on standard output: one line, or one JSON object. An unfinished run counts
    /// only the lines before ``resumeLine``.
    func show(_ ending: Ending, json: Bool, dryRun: Bool) {
        let rejected = rejected - (batchStart == nil ? 0 : rejectedInBatch)
        if json {
            var members: [(String, Any)]
            switch ending {
            case .finished: members = [("status", "imported")]
            case .storageFailure: members = [("status", "storage_error"), ("resume_line", resumeLine)]
            case .signal(let sig): members = [("status", "interrupted"), ("signal", Self.name(sig)), ("resume_line", resumeLine)]
            }
            members += [("created", created), ("updated", updated), ("taken", alreadyThere.count), ("rejected", rejected), ("dry_run", dryRun)]
            IO.write(JSONText.object(members) + "\n", to: 1)
            return
        }
        let counts = ["created": "\(created)", "updated": "\(updated)", "taken": "\(alreadyThere.count)", "rejected": "\(rejected)"]
        let line: String
        switch (ending, dryRun) {
        case (.signal, true):
            line = Translation.english("Dry run interrupted, nothing was stored: would create {created}, update {updated}; already there {taken}, rejected {rejected}", counts)
        case (.signal, false):
            line = Translation.english("Interrupted: created {created}, updated {updated}, already there {taken}, rejected {rejected}", counts)
        case (_, true):
            line = Translation.english("Dry run, nothing was stored: would create {created}, update {updated}; already there {taken}, rejected {rejected}", counts)
        case (_, false):
            line = Translation.english("Imported: created {created}, updated {updated}, already there {taken}, rejected {rejected}", counts)
        }
        IO.write(Translation.signup(line) + "\n", to: 1)
    }

    /// The audit log's one line for the run, when it stored anything (a dry run never does).
    func audit(dryRun: Bool) {
        guard !dryRun, created + updated > 0 else { return }
        let rejected = rejected - (batchStart == nil ? 0 : rejectedInBatch)
        AuditLog.record(.imported(created: created, updated: updated, alreadyThere: alreadyThere.count, rejected: rejected))
    }

    /// The one line on standard error for every row already there, when there is one.
    func showAlreadyThere() {
        guard alreadyThere.count > 0 else { return }
        let text = alreadyThere.count == 1
            ? Translation.english("Already there, not changed: 1 (line {line})", ["line": alreadyThere.text])
            : Translation.english("Already there, not changed: {count} (lines {lines})", ["count": "\(alreadyThere.count)", "lines": alreadyThere.text])
        IO.write(Translation.signup(text) + "\n", to: 2)
    }

    /// What to do to finish, after a run that stopped early: `the lines before 258 are done: …`.
    var resumeHint: String {
        Translation.signup(Translation.english("the lines before {line} are done: to finish, run the same import again with --from-line {line}",
                                               ["line": "\(resumeLine)"]))
    }

    /// `SIGINT`, `SIGTERM`…: the name a shell's `kill -s` takes, the same in every language.
    static func name(_ sig: Int32) -> String {
        let names: [Int32: String] = [SIGINT: "SIGINT", SIGTERM: "SIGTERM", SIGHUP: "SIGHUP", SIGQUIT: "SIGQUIT"]
        return names[sig] ?? "signal \(sig)"
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

/// An import's summary and everything it writes to standard error, shared by the import and its
/// signal watch, one at a time.
///
/// The import holds SIGINT, SIGTERM, SIGHUP and SIGQUIT for its whole run (``TerminalGuard``'s
/// `holdSignals`). Every 20 ms the watch looks for one; when it finds one, it waits for the batch
/// being committed, if any (the import holds the summary while it commits and counts), writes
/// the summary of what is stored and the line to go on from, and lets the signal end the process.
/// A signal therefore never cuts a batch in two or makes the summary lie, and the import stops
/// within moments, even while it waits for input or hashes.
final class ImportReport: Sendable {
    private let summary = Mutex(ImportSummary())
    private let finished = Atomic<Bool>(false)
    let json: Bool
    let dryRun: Bool
    /// Whether a progress line is kept on standard error (at a terminal): other lines start with `\r`.
    let progress: Bool

    init(json: Bool, dryRun: Bool, progress: Bool) {
        self.json = json
        self.dryRun = dryRun
        self.progress = progress
    }

    /// Runs `body` on the summary, with nothing else writing or ending the process meanwhile.
    func update<T>(_ body: (inout ImportSummary) throws(StoreError) -> T) throws(StoreError) -> T {
        try summary.withLock { (summary: inout ImportSummary) throws(StoreError) -> T in try body(&summary) }
    }

    /// ``update(_:)`` for a body that cannot fail.
    func record<T>(_ body: (inout ImportSummary) -> T) -> T {
        summary.withLock { body(&$0) }
    }

    /// Writes `text` as a line of standard error, after the progress line if there is one.
    func say(_ text: String) {
        IO.write((progress ? "\r" : "") + text + "\n", to: 2)
    }

    /// Counts a rejected row and reports it: its line number, the email when it may be shown,
    /// and its codes.
    func reject(line: Int, email: String?, codes: [String]) {
        record { summary in
            summary.rejected += 1
            if summary.batchStart != nil { summary.rejectedInBatch += 1 }
            let shown = email.map { " \(VisibleText.of($0))" } ?? ""
            say(Translation.signup(Translation.english("line {line}{email}: {codes}",
                                                       ["line": "\(line)", "email": shown, "codes": codes.joined(separator: ", ")])))
        }
    }

    /// Starts watching for a held signal; cancel what it returns once the run is over.
    func watchSignals() -> any DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "signup.import.signals"))
        timer.schedule(deadline: .now(), repeating: .milliseconds(20))
        timer.setEventHandler { [self] in
            if let sig = TerminalGuard.heldSignal { end(by: sig) }
        }
        timer.resume()
        return timer
    }

    /// Ends the run: after this a signal no longer stops it (what it did is reported whole, as
    /// `create` reports an account a signal arrived too late to cancel). Returns the summary.
    func finish() -> ImportSummary {
        record { summary in
            finished.store(true, ordering: .sequentiallyConsistent)
            return summary
        }
    }

    /// Reports what is done and the line to go on from, then lets `sig` end the process.
    private func end(by sig: Int32) {
        record { summary in
            guard !finished.load(ordering: .sequentiallyConsistent) else { return }
            if progress { IO.write("\n", to: 2) }
            summary.showAlreadyThere()
            let stopped = Translation.signup(Translation.english("Interrupted by {signal}", ["signal": ImportSummary.name(sig)]))
            IO.write(stopped + "; " + summary.resumeHint + "\n", to: 2)
            summary.show(.signal(sig), json: json, dryRun: dryRun)
            summary.audit(dryRun: dryRun)
            TerminalGuard.releaseSignals()
        }
    }
}
