import AccountStore
import ArgumentParser
import Glibc
import SignupCore

/// Where a setting's value came from: `signup config` shows it beside the value.
enum SettingOrigin: Equatable {
    /// An option of this command line (`--db`).
    case commandLine(option: String)
    /// An environment variable (`SIGNUP_DB`).
    case environment(variable: String)
    /// A line of a configuration file.
    case file(path: String, line: Int)
    /// The policy's own value (its `argon2` costs).
    case policy
    /// signup's built-in default.
    case builtIn

    /// `command line --db`, `environment SIGNUP_DB`, `/etc/signup/signup.conf:3`, `policy`, `default`.
    var text: String {
        switch self {
        case .commandLine(let option): "command line " + option
        case .environment(let variable): "environment " + variable
        case .file(let path, let line): "\(path):\(line)"
        case .policy: "policy"
        case .builtIn: "default"
        }
    }

    /// The origin as a JSON object: `{"kind":"file","file":"…","line":3}` and the like.
    var json: String {
        switch self {
        case .commandLine(let option): "{\"kind\":\"command line\",\"option\":" + JSONText.string(option) + "}"
        case .environment(let variable): "{\"kind\":\"environment\",\"variable\":" + JSONText.string(variable) + "}"
        case .file(let path, let line): "{\"kind\":\"file\",\"file\":" + ListCommand.jsonString(path) + ",\"line\":\(line)}"
        case .policy: "{\"kind\":\"policy\"}"
        case .builtIn: "{\"kind\":\"default\"}"
        }
    }
}

/// A value and where it came from.
struct Setting<Value> {
    var value: Value
    var origin: SettingOrigin
}

/// The syslog facility of signup's audit lines (`syslog.facility`).
enum SyslogFacility: String, CaseIterable {
    case authpriv, auth

    /// The facility's value for `openlog(3)`.
    var code: Int32 {
        switch self {
        case .authpriv: LOG_AUTHPRIV
        case .auth: LOG_AUTH
        }
    }
}

/// The effective settings of one run: the command line, then the environment, then the user's
/// file, then the system's, then the built-in defaults (signup.conf(5)).
///
/// An explicit file (`--config FILE`, else `SIGNUP_CONFIG`) replaces both the user's and the
/// system's file, as a service's `-c FILE` does. Every value of every file read is checked
/// whether or not a higher level overrides it: a file with a mistake is refused as a whole.
struct Settings {
    /// The system-wide file.
    static let systemFile = "/etc/signup/signup.conf"

    /// A file that was looked for, and whether it was there.
    struct LookedAt {
        /// `explicit`, `user` or `system`.
        var role: String
        var path: [UInt8]
        var read: Bool
    }

    /// The files looked for, highest first.
    private(set) var files: [LookedAt] = []
    /// The files that were read, highest first.
    private var read: [ConfigFile] = []

    var argon2Memory = Setting(value: PasswordPolicy.Argon2Costs.standard.memoryKiB, origin: .policy)
    var argon2Passes = Setting(value: PasswordPolicy.Argon2Costs.standard.iterations, origin: .policy)
    var argon2Parallelism = Setting(value: PasswordPolicy.Argon2Costs.standard.parallelism, origin: .policy)
    /// `public.answer-seconds`: `--idle-timeout`'s default.
    var answerSeconds = Setting(value: 60, origin: .builtIn)
    /// `public.session-seconds`: `--session-limit`'s default.
    var sessionSeconds = Setting(value: 600, origin: .builtIn)
    /// `public.per-client`: `--limit-per-client`'s default.
    var perClient = Setting(value: 3, origin: .builtIn)
    /// `public.overall`: `--limit-overall`'s default.
    var overall = Setting(value: 30, origin: .builtIn)
    /// `public.limit-window`: `--limit-window`'s default.
    var limitWindow = Setting(value: 3600, origin: .builtIn)
    /// `public.account-window`: the window of the bounds per account, in seconds.
    var accountWindow = Setting(value: SignupLimits().accountWindowSeconds, origin: .builtIn)
    /// `public.mails-per-account`: mails of one purpose (sign-up, reset) one account may be sent per account window.
    var mailsPerAccount = Setting(value: SignupLimits().mailsPerAccount, origin: .builtIn)
    /// `public.codes-per-account`: codes of one purpose that may be checked for one account per account window.
    var codesPerAccount = Setting(value: SignupLimits().codesPerAccount, origin: .builtIn)
    /// `public.prove-address`: whether `--public` mails a code to prove the address (yes by default).
    var proveAddress = Setting(value: true, origin: .builtIn)
    /// `mail.command`: the sendmail-compatible command, split into words on blanks (no shell).
    var mailCommand = Setting(value: Settings.defaultMailCommand, origin: .builtIn)
    /// `mail.from`: the sender of signup's mails, `signup@` and the host's name unless a file says.
    var mailFrom = Setting(value: "signup@" + MailMessage.hostName, origin: .builtIn)
    /// `mail.command`'s default.
    static let defaultMailCommand = ["/usr/sbin/sendmail", "-t", "-i"]
    /// `syslog.facility`: the facility of the audit lines, `authpriv` unless a file says `auth`.
    var syslogFacility = Setting(value: SyslogFacility.authpriv, origin: .builtIn)

    /// A variable's raw bytes (nil when it is unset): `SIGNUP_DB`, `SIGNUP_CONFIG`, the XDG folders and `HOME`.
    private var variable: (String) -> [UInt8]? = Settings.processVariable

    /// A variable of this process, byte for byte (`getenv`).
    static func processVariable(_ name: String) -> [UInt8]? {
        getenv(name).map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
    }

    /// The settings of this run, from `--config` (its parsed value, nil when not given) and the
    /// environment (`variable` gives a variable's raw bytes).
    static func load(config option: String?, variable given: @escaping (String) -> [UInt8]? = processVariable) throws(ConfigError) -> Settings {
        var settings = Settings()
        settings.variable = given
        let variable = { (name: String) -> [UInt8]? in
            guard let bytes = given(name), !bytes.isEmpty else { return nil }
            return bytes
        }
        if let option {
            let path = RawArguments.value(of: "--config", parsed: option) ?? Array(option.utf8)
            try settings.add(path, role: "explicit", missingIsError: "--config")
        } else if let path = variable("SIGNUP_CONFIG") {
            try settings.add(path, role: "explicit", missingIsError: "SIGNUP_CONFIG")
        } else {
            if let folder = variable("XDG_CONFIG_HOME"), folder.first == UInt8(ascii: "/") {
                try settings.add(folder + Array("/signup/signup.conf".utf8), role: "user", missingIsError: nil)
            } else if let home = variable("HOME"), home.first == UInt8(ascii: "/") {
                try settings.add(home + Array("/.config/signup/signup.conf".utf8), role: "user", missingIsError: nil)
            }
            try settings.add(Array(systemFile.utf8), role: "system", missingIsError: nil)
        }
        try settings.resolve()
        // Every command reads its settings before it changes anything: its lines go where the
        // configuration says from the first one on.
        AuditLog.facility = settings.syslogFacility.value
        return settings
    }

    private mutating func add(_ path: [UInt8], role: String, missingIsError name: String?) throws(ConfigError) {
        // `--config /dev/null`: no file at all, the built-in defaults (as `git config -f /dev/null`);
        // the device is no file a trust walk could accept (everyone may write it).
        if path == Array("/dev/null".utf8) {
            files.append(LookedAt(role: role, path: path, read: false))
            return
        }
        let file = try ConfigFile.read(path, missingIsError: name)
        files.append(LookedAt(role: role, path: file?.path ?? path, read: file != nil))
        if let file { read.append(file) }
    }

    /// The highest file that sets `key`: the file, its value and line.
    private func lookup(_ key: String) -> (file: ConfigFile, text: String, line: Int)? {
        for file in read { if let found = file[key] { return (file, found.text, found.line) } }
        return nil
    }

    /// Checks every value of every file read and takes the highest of each.
    private mutating func resolve() throws(ConfigError) {
        for file in read.reversed() {
            for key in ConfigFile.keys {
                guard let (text, line) = file[key] else { continue }
                let at = ["file": file.visiblePath, "line": "\(line)", "key": key]
                let origin = SettingOrigin.file(path: file.visiblePath, line: line)
                func number(_ low: Int, _ high: Int) throws(ConfigError) -> Int {
                    guard text.count <= 10, text.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(text), (low...high).contains(value) else {
                        throw ConfigError(Translation.english("{file}, line {line}: {key} takes a whole number from {low} to {high}",
                                                              at.merging(["low": "\(low)", "high": "\(high)"]) { a, _ in a }))
                    }
                    return value
                }
                let (least, most) = (PasswordPolicy.Argon2Costs.minimum, PasswordPolicy.Argon2Costs.maximum)
                switch key {
                case "policy":
                    guard PasswordPolicy.builtIn[text] != nil else {
                        throw ConfigError(Translation.english("{file}, line {line}: {key} takes one of: {choices}",
                                                              at.merging(["choices": "standard, strict, nist"]) { a, _ in a }))
                    }
                case "syslog.facility":
                    guard let facility = SyslogFacility(rawValue: text) else {
                        throw ConfigError(Translation.english("{file}, line {line}: {key} takes one of: {choices}",
                                                              at.merging(["choices": "authpriv, auth"]) { a, _ in a }))
                    }
                    syslogFacility = Setting(value: facility, origin: origin)
                case "public.prove-address":
                    guard text == "yes" || text == "no" else {
                        throw ConfigError(Translation.english("{file}, line {line}: {key} takes one of: {choices}",
                                                              at.merging(["choices": "yes, no"]) { a, _ in a }))
                    }
                    proveAddress = Setting(value: text == "yes", origin: origin)
                case "mail.command":
                    let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
                    guard let program = words.first, program.hasPrefix("/") else {
                        throw ConfigError(Translation.english("{file}, line {line}: {key} must start with the program's absolute path", at))
                    }
                    mailCommand = Setting(value: words, origin: origin)
                case "mail.from":
                    guard text.contains("@"), !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                        throw ConfigError(Translation.english("{file}, line {line}: {key} takes an email address", at))
                    }
                    mailFrom = Setting(value: text, origin: origin)
                case "argon2.memory": argon2Memory = Setting(value: try number(least.memoryKiB, most.memoryKiB), origin: origin)
                case "argon2.passes": argon2Passes = Setting(value: try number(least.iterations, most.iterations), origin: origin)
                case "argon2.parallelism": argon2Parallelism = Setting(value: try number(least.parallelism, most.parallelism), origin: origin)
                case "public.answer-seconds": answerSeconds = Setting(value: try number(1, 1_000_000_000), origin: origin)
                case "public.session-seconds": sessionSeconds = Setting(value: try number(1, 1_000_000_000), origin: origin)
                case "public.per-client": perClient = Setting(value: try number(1, 1_000_000_000), origin: origin)
                case "public.overall": overall = Setting(value: try number(1, 1_000_000_000), origin: origin)
                case "public.limit-window": limitWindow = Setting(value: try number(1, 1_000_000_000), origin: origin)
                case "public.account-window": accountWindow = Setting(value: try number(1, 1_000_000_000), origin: origin)
                case "public.mails-per-account": mailsPerAccount = Setting(value: try number(1, 1_000_000_000), origin: origin)
                case "public.codes-per-account": codesPerAccount = Setting(value: try number(1, 1_000_000_000), origin: origin)
                default: break  // database and policy-file: checked where they are used (a path, a connection string)
                }
            }
        }
    }

    // MARK: - The database

    /// The database: `--db`, else `SIGNUP_DB`, else a file's `database`, else the default file.
    func location(given option: String?) throws -> Setting<StoreLocation> {
        let fromEnvironment = variable("SIGNUP_DB").map { !$0.isEmpty } ?? false
        if option == nil, !fromEnvironment, let (file, text, line) = lookup("database") {
            // A relative path is taken from the file's folder, as a policy's blocklistFile is.
            var bytes = Array(text.utf8)
            if !StoreLocation.namesPostgreSQL(text), bytes.first != UInt8(ascii: "/") { bytes = file.folder + bytes }
            do throws(StoreError) {
                return Setting(value: try StoreLocation.parse(bytes), origin: .file(path: file.visiblePath, line: line))
            } catch {
                if case .unavailable(let reason, .postgresMissing) = error {
                    IO.write("error: \(file.visiblePath), line \(line): \(reason)\n", to: 2)
                    throw ExitCode(ExitStatus.storage)
                }
                throw ConfigError(Translation.english("{file}, line {line}: {key} cannot be used: {reason}",
                                                      ["file": file.visiblePath, "line": "\(line)", "key": "database", "reason": error.description]))
            }
        }
        let origin: SettingOrigin = option != nil ? .commandLine(option: "--db") : fromEnvironment ? .environment(variable: "SIGNUP_DB") : .builtIn
        return Setting(value: try StoreOption.location(given: option, variable: variable), origin: origin)
    }

    // MARK: - The policy

    /// The policy: `--policy` or `--policy-file`, else a file's `policy` or `policy-file` (the
    /// higher file's), else standard; its Argon2 costs replaced, key by key, by the files' `argon2.*`.
    /// A file's `policy-file` is read even when the command line chooses another: a value a
    /// higher level overrides is checked too (signup.conf(5)).
    func policy(named name: String?, file option: String?) throws -> (policy: PasswordPolicy, choice: Setting<String>, isFile: Bool) {
        var choice: Setting<String>
        var policy: PasswordPolicy
        var isFile = false
        if name != nil || option != nil {
            _ = try configuredPolicyFile()
            policy = try PolicyLoader.policy(named: name ?? SignUpPlan.standardPolicy, file: option)
            isFile = option != nil
            choice = Setting(value: option.map { VisibleText.of($0) } ?? name!, origin: .commandLine(option: option != nil ? "--policy-file" : "--policy"))
        } else if let (file, text, line) = lookup("policy-file") ?? lookup("policy") {
            let origin = SettingOrigin.file(path: file.visiblePath, line: line)
            if file["policy-file"]?.line == line, let configured = try configuredPolicyFile() {
                policy = configured.policy
                isFile = true
                choice = Setting(value: configured.path, origin: origin)
            } else {
                policy = PasswordPolicy.builtIn[text] ?? .standard
                choice = Setting(value: text, origin: origin)
            }
        } else {
            policy = .standard
            choice = Setting(value: SignUpPlan.standardPolicy, origin: .builtIn)
        }
        policy.argon2 = costs(over: policy.argon2).value
        return (policy, choice, isFile)
    }

    /// The policy in the file the highest file's `policy-file` names (relative to that file's
    /// folder), with its path made visible; nil when no file sets one. A file that cannot be used
    /// is a ``ConfigError`` naming the configuration file, its line and the key.
    private func configuredPolicyFile() throws(ConfigError) -> (policy: PasswordPolicy, path: String)? {
        guard let (file, text, line) = lookup("policy-file") else { return nil }
        var path = Array(text.utf8)
        if path.first != UInt8(ascii: "/") { path = file.folder + path }
        do throws(UsageError) {
            return (try PolicyLoader.load(path: path, option: "policy-file"), VisibleText.of(String(decoding: path, as: UTF8.self)))
        } catch {
            // The loader's message names the key itself ("the policy-file file cannot be used: …").
            throw ConfigError(Translation.english("{file}, line {line}: {reason}",
                                                  ["file": file.visiblePath, "line": "\(line)", "reason": error.text]))
        }
    }

    /// The Argon2 costs: each `argon2.*` a file sets, else the policy's own.
    func costs(over policy: PasswordPolicy.Argon2Costs) -> (value: PasswordPolicy.Argon2Costs, memory: Setting<Int>, passes: Setting<Int>, parallelism: Setting<Int>) {
        let memory = argon2Memory.origin == .policy ? Setting(value: policy.memoryKiB, origin: .policy) : argon2Memory
        let passes = argon2Passes.origin == .policy ? Setting(value: policy.iterations, origin: .policy) : argon2Passes
        let lanes = argon2Parallelism.origin == .policy ? Setting(value: policy.parallelism, origin: .policy) : argon2Parallelism
        return (PasswordPolicy.Argon2Costs(memoryKiB: memory.value, iterations: passes.value, parallelism: lanes.value), memory, passes, lanes)
    }

    // MARK: - Public mode

    /// The limits of `--public`: each option given, else the files' `public.*`, else the defaults
    /// (the bounds per account only from the files).
    func publicSession(idle: Int?, session: Int?, perClient client: Int?, overall all: Int?, window: Int?) -> PublicSession {
        PublicSession(
            idleSeconds: idle ?? answerSeconds.value, sessionSeconds: session ?? sessionSeconds.value,
            limits: SignupLimits(windowSeconds: window ?? limitWindow.value, perClient: client ?? perClient.value, overall: all ?? overall.value,
                                 accountWindowSeconds: accountWindow.value, mailsPerAccount: mailsPerAccount.value, codesPerAccount: codesPerAccount.value))
    }
}
