import AccountStore
import CArgon2
import CSodium
import Dispatch
import Glibc
import PasswordStrength
import SignupCore

// Prints the cost of validating one answer per field, with a reference measured in the
// same run, so figures from a noisy shared machine can be compared as ratios.

// `signup-bench stream DB` counts the accounts through the store's streaming read and exits:
// scripts/bench-pg measures its peak memory over a million rows.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "stream" {
    var count = 0
    do {
        try StoreLocation(CommandLine.arguments[2], fromCommandLine: false).openExisting()?.streamAccounts { _ in
            count += 1
            return true
        }
    } catch {
        print("error: \(error)")
        exit(74)
    }
    print(count)
    exit(0)
}

func nanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// This thread's CPU time in nanoseconds: a one-lane hash runs on the calling thread only.
func threadCPU() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// The raw Argon2id (one lane, 16 bytes of salt, 32 of hash) of each library, timed by this thread's CPU.
enum Raw: String, CaseIterable {
    case libsodium, libargon2

    /// CPU nanoseconds of one hash at `memoryKiB` KiB and `passes` passes.
    func hash(memoryKiB: Int, passes: Int) -> UInt64 {
        let password = Array("Quartz-Lantern-58".utf8CString.dropLast())
        let salt = Array("saltsaltsaltsalt".utf8)
        var output = [UInt8](repeating: 0, count: 32)
        let start = threadCPU()
        let code: Int32
        switch self {
        case .libsodium:
            code = csodium_argon2id(&output, output.count, password, password.count, salt, UInt64(passes), memoryKiB)
        case .libargon2:
            var encoded = [CChar](repeating: 0, count: 128)
            code = argon2id_hash_encoded(UInt32(passes), UInt32(memoryKiB), 1, password, password.count, salt, salt.count, 32,
                                         &encoded, encoded.count)
        }
        let spent = threadCPU() - start
        if code != 0 {
            print("error: \(rawValue) failed (\(code)) at m=\(memoryKiB), t=\(passes)")
            exit(70)
        }
        return spent
    }

    /// Median CPU milliseconds of `rounds` hashes (after one to warm up).
    func median(memoryKiB: Int, passes: Int, rounds: Int) -> Double {
        _ = hash(memoryKiB: memoryKiB, passes: passes)
        let samples = (0..<rounds).map { _ in Double(hash(memoryKiB: memoryKiB, passes: passes)) / 1e6 }
        return samples.sorted()[rounds / 2]
    }
}

// `signup-bench hashes N`: N hashes through libsodium at signup's costs (m=19456, t=2, p=1), each
// of another password, and nothing else: scripts/lib/bench-concurrent.py runs several at once for
// the hashing floor that sign-ups at once are measured against.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "hashes", let count = Int(CommandLine.arguments[2]) {
    let salt = Array("saltsaltsaltsalt".utf8)
    var output = [UInt8](repeating: 0, count: 32)
    for index in 0..<count {
        let password = Array("Quartz-Lantern-58-\(index)".utf8CString.dropLast())
        guard csodium_argon2id(&output, output.count, password, password.count, salt, 2, 19456) == 0 else {
            print("error: libsodium failed")
            exit(70)
        }
    }
    exit(0)
}

// `signup-bench raw [ROUNDS]`: the raw hash of libsodium against libargon2's at signup's costs
// (m=19456, t=2, p=1), interleaved, medians of CPU time.
if CommandLine.arguments.count >= 2, CommandLine.arguments[1] == "raw" {
    let rounds = CommandLine.arguments.count > 2 ? max(1, Int(CommandLine.arguments[2]) ?? 21) : 21
    var samples: [Raw: [Double]] = [:]
    for library in Raw.allCases { _ = library.hash(memoryKiB: 19456, passes: 2) }
    for _ in 0..<rounds {
        for library in Raw.allCases { samples[library, default: []].append(Double(library.hash(memoryKiB: 19456, passes: 2)) / 1e6) }
    }
    let medians = samples.mapValues { $0.sorted()[rounds / 2] }
    print("raw Argon2id, m=19456, t=2, p=1 (CPU time of the calling thread; \(rounds) interleaved rounds, medians)")
    for library in Raw.allCases {
        let values = samples[library]!
        print("  \(library.rawValue)  \(fixed(medians[library]!, 1)) ms (\(fixed(values.min()!, 1).trimmingLeadingSpaces)–\(fixed(values.max()!, 1).trimmingLeadingSpaces))  \(fixed(medians[library]! / medians[.libargon2]!, 2).trimmingLeadingSpaces)× libargon2")
    }
    exit(0)
}

// `signup-bench afford [ROUNDS]`: the memory each number of passes affords at 25, 50 and 100 ms
// of CPU a hash through libsodium, the library signup hashes with, and the time measured there;
// and what libargon2 took at signup's default costs, the time a sign-up spent before. A hash's
// time is memory × (a + b × passes): a for the memory's first touch (page faults, the first
// blocks), b a pass. Both are measured at 32 MiB; the memory they predict is measured, scaled by
// the budget over that time once, and measured again (a bigger memory also misses the caches more).
if CommandLine.arguments.count >= 2, CommandLine.arguments[1] == "afford" {
    let rounds = CommandLine.arguments.count > 2 ? max(1, Int(CommandLine.arguments[2]) ?? 7) : 7
    var before: [Double] = [], now: [Double] = [], one: [Double] = [], three: [Double] = []
    for _ in 0..<rounds {
        before.append(Double(Raw.libargon2.hash(memoryKiB: 19456, passes: 2)) / 1e6)
        now.append(Double(Raw.libsodium.hash(memoryKiB: 19456, passes: 2)) / 1e6)
        one.append(Double(Raw.libsodium.hash(memoryKiB: 32768, passes: 1)) / 1e6)
        three.append(Double(Raw.libsodium.hash(memoryKiB: 32768, passes: 3)) / 1e6)
    }
    func middle(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    // Milliseconds per MiB a pass (b), and per MiB once (a).
    let perPass = max(0.001, (middle(three) - middle(one)) / (2 * 32))
    let once = max(0, middle(one) / 32 - perPass)
    print("Argon2id costs a hash affords (libsodium, p=1; CPU ms, medians of \(rounds); memory in whole MiB)")
    print("  m=19456, t=2: libargon2 \(fixed(middle(before), 1).trimmingLeadingSpaces) ms, libsodium \(fixed(middle(now), 1).trimmingLeadingSpaces) ms"
          + " (\(fixed(middle(now) / middle(before), 2).trimmingLeadingSpaces)×); libsodium per MiB: \(fixed(once * 1000, 0).trimmingLeadingSpaces) µs once,"
          + " \(fixed(perPass * 1000, 0).trimmingLeadingSpaces) µs a pass")
    print("  budget   passes   memory (KiB)   measured")
    for budget in [25.0, 50.0, 100.0] {
        for passes in 1...4 {
            var mebibytes = min(1024, Int(budget / (once + perPass * Double(passes))))
            if mebibytes >= 7 {
                let first = Raw.libsodium.median(memoryKiB: mebibytes * 1024, passes: passes, rounds: rounds)
                mebibytes = min(1024, Int(Double(mebibytes) * budget / first))
            }
            guard mebibytes >= 7 else {
                print("  \(fixed(budget, 0).trimmingLeadingSpaces) ms    t=\(passes)      (less than signup's least, 7 MiB)")
                continue
            }
            let measured = Raw.libsodium.median(memoryKiB: mebibytes * 1024, passes: passes, rounds: rounds)
            let memory = String(mebibytes * 1024)
            print("  \(fixed(budget, 0).trimmingLeadingSpaces) ms    t=\(passes)      m=\(memory)\(String(repeating: " ", count: max(1, 9 - memory.count)))\(fixed(measured, 1).trimmingLeadingSpaces) ms")
        }
    }
    exit(0)
}

/// Median nanoseconds of one call of `body`, over `rounds` rounds of `batch` calls.
func median(rounds: Int = 41, batch: Int, _ body: () -> Void) -> Double {
    for _ in 0..<batch { body() }  // warm up
    var samples: [Double] = []
    for _ in 0..<rounds {
        let start = nanoseconds()
        for _ in 0..<batch { body() }
        samples.append(Double(nanoseconds() - start) / Double(batch))
    }
    return samples.sorted()[rounds / 2]
}

@inline(never) func consume<T>(_ value: T) { withExtendedLifetime(value) {} }

let estimator = StrengthEstimator.zxcvbn
var form = SignupForm.make(policy: .standard, strength: estimator)
form.answer(SignupForm.email, with: "alice.liddell@example.com")
form.answer(SignupForm.password, with: "Quartz-Lantern-58")
form.answer(SignupForm.confirm, with: "Quartz-Lantern-58")
let context = form.context

// Reference: counting the Characters of the password, the cheapest rule there is.
let reference = median(batch: 20_000) { consume("Quartz-Lantern-58".count) }
var rows: [(String, Double)] = []
for field in form.fields {
    rows.append(("validate \(field.name)", median(batch: field.name == "password" ? 500 : 20_000) { consume(field.validate(in: context)) }))
}
rows.append(("zxcvbn estimate alone", median(batch: 500) { consume(estimator.estimate("Quartz-Lantern-58", ["alice.liddell", "alice", "liddell"])) }))
rows.append(("whole form isValid", median(batch: 500) { consume(form.isValid) }))
let nist = SignupForm.make(policy: .nist, strength: estimator)
rows.append(("validate password (nist)", median(batch: 500) {
    var copy = nist
    copy.answer(SignupForm.password, with: "quartz lantern harbour 58")
    consume(copy.errors(for: SignupForm.password))
}))
let hash = median(rounds: 9, batch: 1) { consume(try? PasswordHasher.hash(Secret("Quartz-Lantern-58"))) }

func pad(_ text: String) -> String { text + String(repeating: " ", count: max(0, 28 - text.count)) }
/// `value` rounded to `digits` decimals, right-aligned in 10 columns (printf's `%10.<digits>f`).
func fixed(_ value: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let units = Int((abs(value) * scale).rounded(.toNearestOrEven))
    var text = String(units / Int(scale))
    if digits > 0 {
        let fraction = String(units % Int(scale))
        text += "." + String(repeating: "0", count: digits - fraction.count) + fraction
    }
    if value < 0 && units > 0 { text = "-" + text }
    return String(repeating: " ", count: max(0, 10 - text.count)) + text
}

extension String {
    /// The text without the spaces ``fixed(_:_:)`` pads it with.
    var trimmingLeadingSpaces: String { String(drop { $0 == " " }) }
}

print("signup-bench (release; median of 41 rounds; reference = String.count of the password)")
print("  \(pad("reference")) \(fixed(reference / 1000, 3)) µs")
for (name, value) in rows {
    print("  \(pad(name)) \(fixed(value / 1000, 3)) µs  \(fixed(value / reference, 0))× reference")
}
print("  \(pad("argon2id hash")) \(fixed(hash / 1_000_000, 1)) ms  (median of 9)")
