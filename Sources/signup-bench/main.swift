import AccountStore
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

print("signup-bench (release; median of 41 rounds; reference = String.count of the password)")
print("  \(pad("reference")) \(fixed(reference / 1000, 3)) µs")
for (name, value) in rows {
    print("  \(pad(name)) \(fixed(value / 1000, 3)) µs  \(fixed(value / reference, 0))× reference")
}
print("  \(pad("argon2id hash")) \(fixed(hash / 1_000_000, 1)) ms  (median of 9)")
