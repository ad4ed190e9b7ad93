import AccountStore
import ArgumentParser
import SignupCore

/// `signup config`: the effective settings and where each came from, never a secret.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: About.english("Show the effective settings and where each came from."),
        discussion: About.english("""
            Each setting of signup.conf(5) with its value and its origin: a file and line, an environment \
            variable, the command line, the policy (Argon2 costs a file does not set) or the default. The \
            files looked for come first, as comments. A PostgreSQL database is shown without its password. \
            --db, --policy and --policy-file show what they would change; --json prints one object for scripts.
            Exit codes: 0 shown, 64 usage or a configuration file that cannot be used, 74 standard output failed.
            """)
    )

    @Option(help: About.databaseHelp, completion: .file())
    var db: String?

    @Flag(help: .english("Print one JSON object on standard output."))
    var json = false

    @OptionGroup var policy: PolicyOptions

    func run() throws {
        let settings = try policy.settings()
        if policy.policyFile != nil && policy.policy != nil {
            throw UsageError(.english("use only one of --policy and --policy-file"))
        }
        let database = try settings.location(given: db)
        let chosen = try settings.policy(named: policy.policy, file: policy.policyFile)
        let costs = settings.costs(over: chosen.policy.argon2)
        // Every key of signup.conf(5), in its order: its value (a JSON value) and origin.
        let rows: [(key: String, text: String, json: String, origin: SettingOrigin)?] = [
            (key: "database", text: database.value.visible, json: JSONText.string(database.value.visible), origin: database.origin),
            chosen.isFile ? nil : (key: "policy", text: chosen.choice.value, json: JSONText.string(chosen.choice.value), origin: chosen.choice.origin),
            chosen.isFile ? (key: "policy-file", text: chosen.choice.value, json: ListCommand.jsonString(chosen.choice.value), origin: chosen.choice.origin) : nil,
            Self.number("argon2.memory", costs.memory), Self.number("argon2.passes", costs.passes),
            Self.number("argon2.parallelism", costs.parallelism),
            Self.number("public.answer-seconds", settings.answerSeconds), Self.number("public.session-seconds", settings.sessionSeconds),
            Self.number("public.per-client", settings.perClient), Self.number("public.overall", settings.overall),
            Self.number("public.limit-window", settings.limitWindow),
            Self.number("public.account-window", settings.accountWindow), Self.number("public.mails-per-account", settings.mailsPerAccount),
            Self.number("public.codes-per-account", settings.codesPerAccount),
            (key: "public.prove-address", text: settings.proveAddress.value ? "yes" : "no", json: JSONText.string(settings.proveAddress.value ? "yes" : "no"),
             origin: settings.proveAddress.origin),
            (key: "mail.command", text: settings.mailCommand.value.joined(separator: " "), json: ListCommand.jsonString(settings.mailCommand.value.joined(separator: " ")),
             origin: settings.mailCommand.origin),
            (key: "mail.from", text: settings.mailFrom.value, json: ListCommand.jsonString(settings.mailFrom.value), origin: settings.mailFrom.origin),
            (key: "syslog.facility", text: settings.syslogFacility.value.rawValue, json: JSONText.string(settings.syslogFacility.value.rawValue),
             origin: settings.syslogFacility.origin),
        ]
        var output = ""
        if json {
            let files = settings.files.map { file in
                "{\"role\":\"\(file.role)\",\"path\":" + ListCommand.jsonString(String(decoding: file.path, as: UTF8.self)) + ",\"read\":\(file.read)}"
            }
            let keys = ["database", "policy", "policy-file"] + ConfigFile.keys.dropFirst(3)
            let members = keys.map { key in
                let row = rows.compactMap { $0 }.first { $0.key == key }
                return JSONText.string(key) + ":" + (row.map { "{\"value\":\($0.json),\"origin\":\($0.origin.json)}" } ?? "null")
            }
            output = "{\"files\":[" + files.joined(separator: ",") + "],\"settings\":{" + members.joined(separator: ",") + "}}\n"
        } else {
            for file in settings.files {
                let path = VisibleText.of(String(decoding: file.path, as: UTF8.self))
                let state = file.read ? About.english("{file}: read", ["file": path])
                    : file.path == Array("/dev/null".utf8) ? About.english("{file}: no file, nothing read", ["file": path])
                    : About.english("{file}: not found", ["file": path])
                output += "# " + state + "\n"
            }
            let shown = rows.compactMap { $0 }.map { (origin: Self.origin($0.origin), line: "\($0.key) = \(VisibleText.of($0.text))") }
            let width = shown.map(\.origin.count).max() ?? 0
            for row in shown {
                output += row.origin + String(repeating: " ", count: width - row.origin.count + 2) + row.line + "\n"
            }
        }
        IO.write(output, to: 1)
        IO.endIfReaderWentAway(IO.outputFailureCode)
        if let failure = IO.outputFailure {
            IO.write("error: " + About.english("cannot write to standard output: {reason}", ["reason": "\(failure)"]) + "\n", to: 2)
            throw ExitCode(ExitStatus.unwritable)
        }
    }

    private static func number(_ key: String, _ setting: Setting<Int>) -> (key: String, text: String, json: String, origin: SettingOrigin) {
        (key: key, text: "\(setting.value)", json: "\(setting.value)", origin: setting.origin)
    }

    /// The origin for people, its words in the reader's language (the JSON keeps them in English).
    private static func origin(_ origin: SettingOrigin) -> String {
        switch origin {
        case .commandLine(let option): About.english("command line {option}", ["option": option])
        case .environment(let variable): About.english("environment {variable}", ["variable": variable])
        case .file: VisibleText.of(origin.text)
        case .policy: About.english("policy")
        case .builtIn: About.english("default")
        }
    }
}
