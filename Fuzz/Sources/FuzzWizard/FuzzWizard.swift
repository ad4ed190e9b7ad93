// The wizard state machine (`Wizard` in signup's configuration, `SignupForm.wizard`) fed any sequence of inputs, in both modes.
//
// Input: a flags byte (bit 0 script mode, bits 1-2 the policy, bit 3 a preset email, bit 4 a
// preset password, bit 5 an unreadable preset password), then operations, one byte each plus
// their operands: an answer from a pool suited to the question, a fuzz answer, a long fuzz
// answer, an unreadable line, an interrupt, end of input, a store result, an answer from any
// pool. When the bytes run out, the store creates what is pending and input ends.
//
// Checked: never a crash; a submit only of answers that pass every rule (checked again on a
// fresh form) and never two submits without a result between; password prompts are secret
// and the email prompt is not; the first prompt of a form without presets shows no error; no
// effect's text (prompts, errors, review, notices, outcome, and the submission's description,
// reflection and dump) contains a password typed at a secret prompt or preset (4 characters
// or more, in any normalization form, not explained by fixed wording or a public answer);
// "created" only after the store said so; end of input is Ctrl-C at a terminal and makes a
// script incomplete at the field it was asking; input that ends reaches an outcome within
// a few steps, and nothing happens after the outcome.
import Foundation
import FuzzSupport
import PasswordStrength
import SignupCore

@main
enum FuzzWizard {
    static func main() { runFuzzer(testOneInput) }
}

private let policies: [PasswordPolicy] = [.standard, .strict, .nist, .standard]
private let estimator = StrengthEstimator.zxcvbn

private let emails = ["alice@example.com", "ΟΔΥΣΣΕΑΣ@example.gr", "bob", "", "  carol@example.org  ", "a\u{1B}[2J@example.com", "x@y"]
private let passwords = [
    "Correct-Horse-Battery-9", "Zebra-Secret-Token-91", "short", "", "password1A", "\u{FF21}bcdefgh-Secret-1234",
    "Tr0ub4dor&3-xyzzy-Plugh!", "alice-alice-alice-7A", "Cafe\u{301}-Latte-Secret-42",
]
private let replies = ["y", "n", "e", "1", "2", "3", "yes", "no", "edit", "", " Y ", "x", "Email", "password", "0"]
private typealias Effect = WizardEffect<CreatedAccount>
private typealias Input = WizardInput<CreatedAccount>

/// What the store created in this harness: the same account whatever was submitted.
private func stored(_ id: Int64) -> SubmitResult<CreatedAccount> {
    .succeeded(CreatedAccount(email: "stored@example.com", id: id, strength: .strong))
}

private let results: [SubmitResult<CreatedAccount>] = [
    stored(7), .rejected([SignupForm.emailTaken]), .unavailable(reason: "the disk is full"), .unavailable(reason: "the database is locked"),
]
private let problems: [InputProblem] = [.invalidUTF8, .nulByte, .tooLong(limit: 65536)]

/// libFuzzer's entry for one input (also its C name, which a debug link resolves).
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let flags = input.byte()
    var run = Run(
        mode: flags & 1 == 0 ? .interactive : .script,
        policy: policies[Int(flags >> 1) & 3],
        presetEmail: flags & 8 != 0 ? input.pick(emails) : nil,
        presetPassword: flags & 16 != 0 ? input.pick(passwords) : nil,
        unreadablePassword: flags & 32 != 0 ? input.pick(problems) : nil
    )
    while !input.isEmpty, run.outcome == nil {
        run.feed(nextInput(&input, run: run))
    }
    // The script or the person stops typing: whatever is pending is stored, then input ends.
    for _ in 0..<6 where run.outcome == nil {
        run.feed(run.pendingSubmit ? .submitted(stored(1)) : .endOfInput)
    }
    require(run.outcome != nil, "input ended and no outcome after 6 steps")
    for extra in [Input.endOfInput, .interrupt, .answer("y"), .submitted(stored(2))] {
        require(run.wizard.handle(extra).isEmpty, "an effect after the outcome")
    }
    return 0
}

private func nextInput(_ input: inout FuzzInput, run: Run) -> Input {
    switch input.byte() % 8 {
    case 0:
        switch run.question?.question {
        case .field(SignupForm.email.name)?: return .answer(input.pick(emails))
        case .field?: return .answer(input.pick(passwords))
        default: return .answer(input.pick(replies))
        }
    case 1: return .answer(input.shortText())
    case 2:
        let piece = input.shortText()
        return .answer(String(repeating: piece.isEmpty ? "A1b" : piece, count: Int(input.byte()) * 4))
    case 3: return .unreadable(input.pick(problems))
    case 4: return .interrupt
    case 5: return .endOfInput
    case 6: return .submitted(input.pick(results))
    default: return .answer(input.pick(emails + passwords + replies))
    }
}

/// One conversation and what the harness knows about it.
private struct Run {
    var wizard: Wizard<CreatedAccount>
    let policy: PasswordPolicy
    /// The prompt shown last: whether the next answer is a secret.
    var question: Prompt?
    /// Every password typed or preset, in the forms it might be shown in.
    var secrets: Set<String> = []
    /// Every answer typed at a prompt that is not secret: the wizard may show these.
    var publicTexts: [String] = []
    var pendingSubmit = false
    var outcome: WizardOutcome<CreatedAccount>?

    init(mode: WizardMode, policy: PasswordPolicy, presetEmail: String?, presetPassword: String?, unreadablePassword: InputProblem?) {
        self.policy = policy
        var presets: [FieldPreset] = []
        if let presetEmail {
            presets.append(.line(SignupForm.email, presetEmail))
            publicTexts += variants(of: presetEmail)
        }
        if let presetPassword {
            presets += [.line(SignupForm.password, presetPassword), .line(SignupForm.confirm, presetPassword)]
            secrets.formUnion(variants(of: presetPassword))
        }
        if let unreadablePassword {
            presets += [.unreadable(SignupForm.password, unreadablePassword), .unreadable(SignupForm.confirm, unreadablePassword)]
        }
        wizard = SignupForm.wizard(
            form: SignupForm.make(policy: policy, strength: estimator),
            mode: mode, strength: estimator, presets: presets
        )
        let effects = wizard.start()
        if presets.isEmpty {
            require(!effects.contains { if case .errors = $0 { true } else { false } }, "the first prompt of a new form shows an error")
        }
        observe(effects, after: nil)
    }

    mutating func feed(_ input: Input) {
        if case .answer(let text) = input {
            if question?.isSecret == true {
                secrets.formUnion(variants(of: text))
            } else {
                publicTexts += variants(of: text)
            }
        }
        let asked = pendingSubmit || outcome != nil ? nil : question?.question
        if case .submitted = input, pendingSubmit { pendingSubmit = false }
        if case .interrupt = input, pendingSubmit { pendingSubmit = false }
        let effects = wizard.handle(input)
        if input == .endOfInput, let asked { checkEnd(effects, at: asked) }
        observe(effects, after: input)
    }

    /// SPEC 5 and 6: at a terminal, end of input is Ctrl-C (cancel, or ask whether to discard);
    /// a script that ends before a field is answered is incomplete at that field.
    private func checkEnd(_ effects: [Effect], at question: Question) {
        switch (wizard.mode, question) {
        case (.script, .field(let name)):
            let incomplete = effects.contains { if case .finish(.incomplete(name, _, _)) = $0 { true } else { false } }
            require(incomplete, "a script that ended at \(name) is not incomplete there")
        case (.interactive, .discard):
            require(effects == [.finish(.cancelled)], "end of input at the discard question does not cancel")
        case (.interactive, _):
            let discard = effects.count == 1 && { if case .ask(let prompt) = effects[0] { prompt.question == .discard } else { false } }()
            require(effects == [.finish(.cancelled)] || discard, "end of input at a terminal is not Ctrl-C")
        default:
            require(effects.contains { if case .finish = $0 { true } else { false } }, "a script's end of input has no outcome")
        }
    }

    private mutating func observe(_ effects: [Effect], after input: Input?) {
        for effect in effects {
            checkNoSecret(in: effect)
            switch effect {
            case .ask(let prompt):
                question = prompt
                if case .field(let name) = prompt.question {
                    require(prompt.isSecret == (name != SignupForm.email.name), "the \(name) prompt has isSecret \(prompt.isSecret)")
                }
            case .submit(let form):
                require(!pendingSubmit, "a second submit before the first one's result")
                pendingSubmit = true
                checkSubmission(form)
            case .finish(let outcome):
                require(self.outcome == nil, "a second outcome")
                self.outcome = outcome
                pendingSubmit = false
                if case .succeeded(let account) = outcome {
                    require(input == .submitted(.succeeded(account)), "created without the store saying so")
                }
                if case .invalid(let errors) = outcome { require(!errors.isEmpty, "invalid without an error") }
                if case .incomplete(let field, _, _) = outcome {
                    require(wizard.form.fields.contains { $0.name == field }, "incomplete at an unknown field \(field)")
                }
            default:
                break
            }
        }
    }

    /// The submit gate, checked again from scratch on the submitted values.
    private func checkSubmission(_ form: Form) {
        let submission = SignupForm.submission(from: form, strength: estimator)
        require(wizard.form.isValid, "a submit of a form that fails a rule")
        let password = submission.password.reveal()
        require(wizard.form[SignupForm.confirm]?.value == password, "the submitted password is not the confirmed one")
        var fresh = SignupForm.make(policy: policy, strength: estimator)
        fresh.answer(SignupForm.email, with: submission.email)
        fresh.answer(SignupForm.password, with: password)
        fresh.answer(SignupForm.confirm, with: password)
        require(fresh.isValid, "a submit of answers a fresh form refuses: \(fresh.errors.keys.sorted())")

        if password.count >= 4 && !submission.email.includes(password) && !explained(password) {
            var dumped = ""
            dump(submission, to: &dumped)
            dump(form, to: &dumped)
            for text in [String(describing: submission), String(reflecting: submission), dumped, "\(submission.password)",
                         String(describing: form), String(reflecting: form.context)] {
                require(!text.includes(password), "the submission shows its password")
            }
        }
    }

    private func checkNoSecret(in effect: Effect) {
        let shown = texts(of: effect)
        for secret in secrets where shown.contains(where: { $0.reveals(secret) }) {
            require(explained(secret), "an effect shows a typed password: \(kind(of: effect))")
        }
    }

    /// Whether `secret` appears in fixed wording or in a public answer, so seeing it proves nothing.
    private func explained(_ secret: String) -> Bool {
        fixedWording.includes(secret) || publicTexts.contains { $0.includes(secret) }
    }
}

/// What a person could see of an effect: every string it carries.
private func texts(of effect: Effect) -> [String] {
    switch effect {
    case .banner(let text), .notice(let text), .hint(let text): return [text]
    case .ask(let prompt): return [prompt.text]
    case .errors(let errors): return errors.flatMap { [$0.message, $0.code] }
    case .note(.strength(let level)): return [level.label]
    case .note(.text(let text)): return [text]
    case .note(.checklist(let checks)): return checks.map(\.check.label)
    case .review(let title, let lines): return [title] + lines.flatMap { [$0.label, $0.value] }
    case .choices(let labels): return labels
    case .submit(let form), .check(_, let form): return [form[SignupForm.email]?.value ?? "", String(describing: form)]
    case .finish(let outcome):
        switch outcome {
        case .succeeded(let account): return [account.email, account.strength.label]
        case .invalid(let errors): return errors.flatMap { [$0.message, $0.code] }
        case .declined, .cancelled: return []
        case .incomplete(let field, let label, let errors): return [field, label] + errors.flatMap { [$0.message, $0.code] }
        case .unavailable(let reason): return [reason]
        }
    }
}

private func kind(of effect: Effect) -> String {
    String(String(describing: effect).prefix { $0 != "(" })
}

private func variants(of text: String) -> Set<String> {
    let forms = [text, text.precomposedStringWithCanonicalMapping, text.precomposedStringWithCompatibilityMapping,
                 text.decomposedStringWithCanonicalMapping, text.trimmingCharacters(in: .whitespaces)]
    return Set(forms + forms.map(VisibleText.of))
}

/// Every text the wizard shows in conversations that visit each question, error and outcome,
/// with the passwords typed in them cut out: wording a fuzz password may match by chance.
private let fixedWording: String = {
    let secretsUsed = passwords.filter { $0.count >= 4 } + ["abcdefgh", "Other-Secret-77"]
    let longAnswer = String(repeating: "a", count: 70_000)
    let conversations: [[Input]] = [
        [.answer("alice@example.com"), .answer("Correct-Horse-Battery-9"), .answer("Correct-Horse-Battery-9"),
         .answer("x"), .answer("e"), .answer("9"), .answer("1"), .answer("bob@example.com"), .answer("e"), .answer("2"),
         .answer("Zebra-Secret-Token-91"), .answer("Zebra-Secret-Token-91"), .answer("y"),
         .submitted(.unavailable(reason: "the disk is full")), .answer("maybe"), .answer("y"),
         .submitted(.rejected([SignupForm.emailTaken])), .answer("carol@example.com"), .answer("y"), .submitted(stored(7))],
        [.answer("bad"), .answer(""), .answer(longAnswer), .unreadable(.invalidUTF8), .answer("a@b.example"),
         .answer(""), .answer("short"), .answer("abcdefgh"), .unreadable(.nulByte), .answer("password1A"),
         .answer("\u{FF21}bcdefgh-Secret-1234"), .answer("a\u{7}bcdefgh-Secret-1234"), .answer(longAnswer),
         .answer("Correct-Horse-Battery-9"), .answer("Other-Secret-77"), .interrupt, .answer("n"),
         .answer("Correct-Horse-Battery-9"), .answer(""), .unreadable(.tooLong(limit: 65536)), .interrupt, .answer("y")],
        [.answer("alice@example.com"), .endOfInput, .endOfInput],
        [.answer("alice@example.com"), .answer("alice-alice-alice-7A"), .answer("alice-alice-alice-7A"), .answer("n")],
        [.answer("alice@example.com"), .answer("Correct-Horse-Battery-9"), .answer("Correct-Horse-Battery-9"),
         .submitted(.unavailable(reason: "the database is locked")), .answer("n")],
        [.interrupt],
    ]
    var shown: [String] = []
    for mode in [WizardMode.interactive, .script] {
        for policy in policies {
            for conversation in conversations {
                var wizard = SignupForm.wizard(form: SignupForm.make(policy: policy, strength: estimator), mode: mode, strength: estimator)
                var effects = wizard.start()
                for input in conversation { effects += wizard.handle(input) }
                shown += effects.flatMap(texts(of:))
                shown += effects.map { String(describing: $0) }
            }
        }
    }
    var wording = shown.joined(separator: "\u{0}")
    for secret in secretsUsed { wording = wording.replacing(secret, with: "\u{0}") }
    return wording
}()
