#!/usr/bin/env bash
# An outside package: a folder outside the repository whose Package.swift depends on this one by
# `.package(path:)` and imports each library product (SignupCore, WizardTerminal,
# PasswordStrength, AccountStore), then runs its own small form in script mode: the answers
# piped in, the output and the exit code checked. A second target hands the store a plaintext
# password where the hash goes, as a String: it must not compile (the plaintext never
# reaches the database; a store takes only a PasswordHash). It resolves argument-parser the way
# a consumer does (through git's url.insteadOf mirror here, no network); its build folder is
# kept in .build/consumer so that a second run only relinks. Built without debug information,
# which nothing here reads (a fifth of a debug build's CPU). One package holds both consumers
# (the store's, and the forms-only program further down), so the libraries are built once.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d /tmp/signup-consumer.XXXXXX)"
trap 'rm -rf "$work"' EXIT
scratch="${SIGNUP_CONSUMER_SCRATCH:-$root/.build/consumer}"
# A path dependency's identity is its folder's name (signup, main, wt-…), not the manifest's name.
identity="$(basename "$root" | tr '[:upper:]' '[:lower:]')"

lean="$work"
mkdir -p "$work/Sources/consumer" "$work/Sources/plaintext" "$lean/Sources/lean" "$lean/Sources/LeanForm" "$lean/Tests/LeanTests"
cat >"$work/Package.swift" <<EOF
// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "consumer",
    dependencies: [.package(path: "$root", traits: ["AccountStore"])],
    targets: [
        .executableTarget(name: "consumer", dependencies: [
            .product(name: "SignupCore", package: "$identity"),
            .product(name: "WizardTerminal", package: "$identity"),
            .product(name: "PasswordStrength", package: "$identity"),
            .product(name: "AccountStore", package: "$identity"),
        ]),
        .executableTarget(name: "plaintext", dependencies: [
            .product(name: "AccountStore", package: "$identity"),
        ]),
        .target(name: "LeanForm", dependencies: [
            .product(name: "SignupCore", package: "$identity"),
            .product(name: "WizardTerminal", package: "$identity"),
            .product(name: "PasswordStrength", package: "$identity"),
        ]),
        .executableTarget(name: "lean", dependencies: ["LeanForm"]),
        .testTarget(name: "LeanTests", dependencies: ["LeanForm", .product(name: "WizardTesting", package: "$identity")]),
    ]
)
EOF
cat >"$work/Sources/consumer/main.swift" <<'EOF'
import AccountStore
import Foundation
import PasswordStrength
import SignupCore
import WizardTerminal

// A team sign-up: a team name, a seat count (typed) and a PIN-like secret; stored in SQLite.
let team = FieldKey<String>("team"), seats = FieldKey<Int>("seats"), secret = FieldKey<String>("secret")
let form = Form(fields: [
    Field(team, label: "Team", rules: [.required(), .minLength(2)]),
    Field(seats, label: "Seats", rules: [.required(), .range(1...9)]),
    Field(secret, label: "Secret", rules: PasswordPolicy.standard.rules(strength: .zxcvbn), isSecret: true),
])
let database = CommandLine.arguments[1]
TerminalGuard.install()
let runner = try TerminalRunner(RunnerOptions(programName: "consumer"))
var wizard = Wizard<Int64>(form: form, mode: runner.mode, texts: WizardTexts(banner: "New team"))
let outcome = runner.run(&wizard) { form in
    do throws(StoreError) {
        let hash = try PasswordHasher.hash(Secret(form.text(secret)))
        let account = try AccountStore(path: database).create(email: form.text(team) + "@teams.example", passwordHash: hash)
        return .succeeded(account.id)
    } catch {
        return .unavailable(reason: "\(error)")
    }
}
runner.close()
TerminalGuard.uninstall()
switch outcome {
case .succeeded(let id):
    print("team \(wizard.form.value(seats)!) seats, account \(id)")
case .invalid(let errors):
    for error in errors { runner.conversation.error(error.code) }
    exit(65)
default:
    runner.conversation.error("\(outcome)")
    exit(1)
}
EOF

# The plaintext target compiles as a placeholder while everything else is built; its real text,
# which must not compile, replaces it before its own build below.
echo 'import AccountStore' >"$work/Sources/plaintext/main.swift"

# A program of the forms alone (core, runner, strength), in the same package: with the store's
# trait and not the command line's it does not resolve swift-argument-parser (nor its plugins;
# `traits: []`, the forms alone, resolves a subset of it), its form runs in one call, and its test target drives
# that form with WizardTesting, through a pipe and at a pseudo-terminal, without an executable.
# Its program links no Foundation: the forms' JSON is SignupCore's own reader.
cat >"$lean/Sources/LeanForm/LeanForm.swift" <<'EOF'
import PasswordStrength
import SignupCore
import WizardTerminal

let nick = FieldKey<String>("nick"), secret = FieldKey<String>("secret")
let form = Form(fields: [
    Field(nick, label: "Nick", rules: [.required(), .minLength(3)]),
    Field(secret, label: "Secret", rules: PasswordPolicy.standard.rules(strength: .zxcvbn), isSecret: true),
])

/// The whole program: the form in one call, then its result.
public func lean() async {
    let name = await form.runOrExit(RunnerOptions(programName: "lean")) { form in form.text(nick) }
    print("hello \(VisibleText.of(name))")
}
EOF
cat >"$lean/Sources/lean/main.swift" <<'EOF'
import LeanForm

await lean()
EOF
cat >"$lean/Tests/LeanTests/LeanTests.swift" <<'EOF'
import Glibc
import LeanForm
import Testing
import WizardTesting

@Test func aScriptThatEndsEarlyExits66() async throws {
    let run = try await ScriptRun("bob\n") { await lean() }
    #expect(run.status == 66)
    #expect(run.standardError.hasSuffix("error: input ended before \"Secret\" was answered\n"))
}

@Test func aPersonAtATerminalIsGreeted() async throws {
    let terminal = try await PseudoTerminal.start(pipeStandardOutput: true) { await lean() }
    defer { terminal.kill(SIGKILL) }
    try await terminal.expect("Nick: ", timeout: 30)
    try terminal.send("bob\r")
    try await terminal.expect("Secret: ")
    #expect(await terminal.waitForEchoOff())
    try terminal.send("Granite-Lantern-58\r")
    try await terminal.expect("Submit? [Y/n/e] ")
    try terminal.send("y\r")
    #expect(try await terminal.wait() == .exited(0))
    try await terminal.readAll()
    #expect(String(decoding: terminal.standardOutput, as: UTF8.self) == "hello bob\n")
    #expect(!terminal.screen.contains("Granite"))
}
EOF
# The repository's resolved versions, so the consumer builds what is tested here.
[ -f "$root/Package.resolved" ] && cp "$root/Package.resolved" "$work/Package.resolved"
export SWIFT_BACKTRACE=enable=no
if ! build_log="$(cd "$work" && swift build --scratch-path "$scratch" --build-tests -debug-info-format none 2>&1)"; then
    echo "$build_log" | tail -n 30
    echo "consumer: the outside package does not build (with traits: [\"AccountStore\"])"
    exit 1
fi
bin="$scratch/debug/consumer"

status=0
check() {  # check DESCRIPTION EXPECTED_STATUS EXPECTED_STDOUT STDERR_PATTERN INPUT
    local out err code
    err="$(mktemp)"
    set +e
    out="$(printf '%b' "$5" | "$bin" "$work/accounts.sqlite" 2>"$err")"
    code=$?
    set -e
    if [ "$code" -ne "$2" ] || [ "$out" != "$3" ] || ! grep -qE "$4" "$err" || grep -q "Granite" "$err"; then
        echo "consumer: FAIL $1: exit $code (want $2), stdout [$out] (want [$3]), stderr:"
        cat "$err"
        status=1
    fi
    rm -f "$err"
}
check "a valid form is stored" 0 "team 4 seats, account 1" "^Team: ops$" 'ops\n4\nGranite-Lantern-58\n'
check "every error is reported with its code" 65 "" "^error: seats.outOfRange$" 'x\n12\nGranite\n'
check "the typed field parses" 65 "" "^error: seats.notAWholeNumber$" 'dev\nfour\nGranite-Lantern-58\n'
lean_scratch="$scratch"
for heavy in swift-argument-parser; do
    if [ -e "$lean_scratch/checkouts/$heavy" ] || grep -qiF "\"identity\" : \"$heavy\"" "$lean/Package.resolved" 2>/dev/null; then
        echo "consumer: FAIL a package without the CommandLine trait resolved $heavy"
        status=1
    fi
done
# Its JSON is SignupCore's own reader: the program links no Foundation at all, neither code
# (FoundationEssentials' JSONDecoder was about 1 MB of it, with metadata every start-up scans)
# nor its shared libraries. The symbols come from nm, as scripts/test checks the release binary.
lean_symbols="$(nm "$lean_scratch/debug/lean" 2>&1 || true)"
foundation="$(awk '{print $NF}' <<<"$lean_symbols" | grep -E '^\$s(20FoundationEssentials|10Foundation|30FoundationInternationalization)' || true)"
if ! grep -q ' \$s10SignupCore' <<<"$lean_symbols"; then
    echo "consumer: FAIL the forms-only program has no symbol table to check: $(head -n 3 <<<"$lean_symbols")"
    status=1
elif [ -n "$foundation" ] || readelf -d "$lean_scratch/debug/lean" | grep -q 'NEEDED.*libFoundation'; then
    echo "consumer: FAIL a package using only the forms links Foundation: $(head -n 5 <<<"$foundation" | tr '\n' ' ')"
    readelf -d "$lean_scratch/debug/lean" | grep 'NEEDED.*libFoundation' || true
    status=1
fi
lean_out="$(printf 'bob\nGranite-Lantern-58\n' | "$lean_scratch/debug/lean" 2>/dev/null)"
[ "$lean_out" = "hello bob" ] || { echo "consumer: FAIL the forms-only package's form printed [$lean_out]"; status=1; }
if ! lean_tests="$(cd "$lean" && swift test --skip-build --scratch-path "$lean_scratch" --disable-xctest 2>&1)" \
    || ! echo "$lean_tests" | grep -q "Test run with 2 tests.* passed"; then
    echo "$lean_tests" | tail -n 30
    echo "consumer: FAIL the forms-only package's WizardTesting tests did not pass"
    status=1
fi
# The plaintext target must fail to build, each of its four calls with a type error.
cat >"$work/Sources/plaintext/main.swift" <<'EOF'
import AccountStore
import Foundation

let store = try AccountStore(path: CommandLine.arguments[1])
let password = "Hunter2Zebra!Secret"
_ = try store.create(email: "plain@example.com", passwordHash: "Hunter2Zebra!Secret")  // line 6
_ = try store.create(email: "plain@example.com", passwordHash: password, at: Date())  // line 7
let backend: any AccountBackend = store
_ = try backend.create(email: "plain@example.com", passwordHash: password, at: Date(), whenLocked: {})  // line 9
_ = try StoreLocation.sqlite(store.path).openForWriting().create(email: "plain@example.com", passwordHash: password)  // line 10
EOF

if plain_log="$(cd "$work" && swift build --scratch-path "$scratch" --product plaintext -debug-info-format none 2>&1)"; then
    echo "consumer: FAIL an outside package stored a String as a password hash: it compiled"
    status=1
else
    for line in 6 7 9 10; do
        if ! echo "$plain_log" | grep -qE "main.swift:$line:[0-9]+: error: cannot convert value of type 'String' to expected argument type 'PasswordHash'"; then
            echo "consumer: FAIL line $line of the plaintext target is not refused as a String where a PasswordHash goes:"
            echo "$plain_log" | grep -E "error:" | head -n 10
            status=1
        fi
    done
fi
[ "$status" -eq 0 ] && echo "consumer: an outside package imports every library product and runs its form without resolving swift-argument-parser; its forms-only program links no Foundation, its WizardTesting tests pass, and a String never compiles where a hash goes"
exit "$status"
