import SignupCore
import WizardTerminal

/// Tells how the wizard ended: the result on standard output, errors on standard error,
/// and the exit code (``ExitStatus``).
struct Report {
    var json: Bool
    var dryRun: Bool
    var interactive: Bool
    var conversation: Conversation
    var stdoutIsTerminal: Bool
    /// `signup passwd`: a success is a changed password, not a created account.
    var changing = false
    /// Writes the result to standard output.
    var output: (String) -> Void = { IO.write($0, to: 1) }
    /// Why a write to standard output failed, when one did.
    var outputFailure: () -> String? = { IO.outputFailure }

    /// The line that says it worked, for the email shown.
    private func successText(_ shown: String) -> String {
        changing && !dryRun ? Translation.english("Password changed for {email}", ["email": shown]) : Self.createdLine(shown, dryRun: dryRun)
    }

    /// What ``show(_:)`` writes for `.cancelled`: also what a SIGINT that ends the process
    /// outside a prompt writes (see `TerminalGuard.prepareInterruptReport`).
    var cancellation: (conversation: String, result: String) {
        (conversation.quiet ? "" : conversation.translation(Self.nothingSaved) + "\n", json ? JSONText.object([("status", "cancelled")]) + "\n" : "")
    }

    /// Shows `outcome` and returns the exit code: ``ExitStatus/unwritable`` when the result could
    /// not be written to standard output (a full disk, a closed pipe), after saying so and, for
    /// a created account, saying on the conversation that it was created.
    func show(_ outcome: WizardOutcome<CreatedAccount>) -> Int32 {
        let status = write(outcome)
        guard let failure = outputFailure() else { return status }
        if case .succeeded(let account) = outcome, !(interactive && !stdoutIsTerminal) {
            conversation.say(conversation.successLine(successText(account.email)))
        }
        conversation.error(Translation.english("the result could not be written to standard output: {reason}", ["reason": "\(failure)"]))
        return ExitStatus.unwritable
    }

    private func write(_ outcome: WizardOutcome<CreatedAccount>) -> Int32 {
        switch outcome {
        case .succeeded(let account):
            let (email, id, strength) = (account.email, account.id, account.strength)
            // Human lines show the email made visible; JSON carries the real value, escaped the JSON way.
            let shown = VisibleText.of(email)
            // A person whose standard output goes elsewhere still hears that it worked.
            if interactive && !stdoutIsTerminal {
                conversation.say(conversation.successLine(successText(shown)))
            }
            if json {
                var object: [(String, Any)] = [("status", changing ? "changed" : "created"), ("email", email)]
                if dryRun { object.append(("dry_run", true)) } else if !changing { object.append(("id", id)) }
                object.append(("strength", strength.label))
                emit(object)
            } else if dryRun {
                result(Translation.english("Dry run: the account for {email} would be created; nothing was saved.", ["email": shown]))
            } else {
                result(successText(shown))
            }
            return ExitStatus.created
        case .invalid(let errors):
            conversation.showErrors(of: outcome)
            if json { emit([("status", "invalid"), ("errors", Self.grouped(errors))]) }
            return ExitStatus.invalid
        case .declined:
            conversation.say(Self.nothingSaved)
            if json { emit([("status", "declined")]) }
            return ExitStatus.declined
        case .cancelled:
            conversation.put(cancellation.conversation)
            output(cancellation.result)
            return ExitStatus.cancelled
        case .incomplete(let field, _, let errors):
            conversation.showErrors(of: outcome)
            if json {
                var object: [(String, Any)] = [("status", "incomplete"), ("field", field)]
                if !errors.isEmpty { object.append(("errors", Self.grouped(errors))) }
                emit(object)
            }
            return ExitStatus.incomplete
        case .unavailable(let reason):
            // At a terminal the reason was shown before "Try again?"; a script hears it here.
            if interactive {
                conversation.say(Self.nothingSaved)
            } else {
                conversation.error(Translation.english("the account could not be saved: {reason}", ["reason": VisibleText.of(reason)]))
            }
            if json { emit([("status", "storage_error"), ("reason", reason)]) }
            return ExitStatus.storage
        }
    }

    /// The human result on standard output, in the reader's language (`--json` never is).
    private func result(_ line: String) {
        output((stdoutIsTerminal ? conversation.successLine(line) : conversation.translation(line)) + "\n")
    }

    static let nothingSaved = Translation.english("Nothing was saved.")

    /// `Account created for EMAIL` (`email` already made visible), or a dry run's line.
    static func createdLine(_ email: String, dryRun: Bool) -> String {
        dryRun ? Translation.english("Dry run: nothing was saved") : Translation.english("Account created for {email}", ["email": email])
    }

    /// One JSON object on one line, keys in the order given.
    private func emit(_ members: [(String, Any)]) {
        output(JSONText.object(members) + "\n")
    }

    /// `{"password":[{"code":…,"message":…}]}`, fields in the order their errors came.
    static func grouped(_ errors: [FieldError]) -> [(String, Any)] {
        var order: [String] = []
        var byField: [String: [[(String, Any)]]] = [:]
        for error in errors {
            if byField[error.field] == nil { order.append(error.field) }
            byField[error.field, default: []].append([("code", error.code), ("message", error.message)])
        }
        return order.map { ($0, byField[$0]!) }
    }
}

/// Writes JSON with keys in a chosen order (JSONSerialization sorts or shuffles them).
enum JSONText {
    static func object(_ members: [(String, Any)]) -> String {
        "{" + members.map { string($0.0) + ":" + value($0.1) }.joined(separator: ",") + "}"
    }

    static func value(_ value: Any) -> String {
        switch value {
        case let text as String: return string(text)
        case let flag as Bool: return flag ? "true" : "false"
        case let number as Int64: return String(number)
        case let number as Int: return String(number)
        case let members as [(String, Any)]: return object(members)
        case let list as [[(String, Any)]]: return "[" + list.map(object).joined(separator: ",") + "]"
        default: preconditionFailure("no JSON form for \(type(of: value))")
        }
    }

    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where Self.mustEscape(scalar):
                // Still valid JSON with the real value, but nothing a terminal would act on (C1, bidi, U+2028).
                for unit in String(scalar).utf16 { out += unicodeEscape(UInt32(unit)) }
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// `\u` and `value` in lowercase hexadecimal, at least 4 digits (`\u001b`).
    static func unicodeEscape(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// Controls (C0, DEL, C1), format characters (bidirectional overrides, zero-width ones) and line separators.
    static func mustEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }
}
