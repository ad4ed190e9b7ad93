import ArgumentParser
import SignupCore

/// Reads `--policy-file` (or a configuration file's `policy-file`) and the blocklist it names.
/// Every problem is a usage error that names the option or the key, never the path (it may be a
/// password typed in the wrong place).
enum PolicyLoader {
    /// The largest policy file read; a bigger one is refused after reading one byte more.
    static let policyLimit = 1024 * 1024
    /// The largest blocklist file read.
    static let blocklistLimit = 16 * 1024 * 1024

    /// The policy `--policy name` or `--policy-file path` chooses (only one of them may be given).
    static func policy(named name: String, file: String?) throws(UsageError) -> PasswordPolicy {
        guard let file else {
            guard let policy = PasswordPolicy.builtIn[name] else {
                throw UsageError(.english("unknown --policy name: use standard, strict or nist, or --policy-file"))
            }
            return policy
        }
        return try load(path: RawArguments.value(of: "--policy-file", parsed: file) ?? Array(file.utf8), option: "--policy-file")
    }

    /// The policy in the file at `path` (raw bytes of the argument); messages call it `option`'s file.
    static func load(path: [UInt8], option: StaticString) throws(UsageError) -> PasswordPolicy {
        let data: [UInt8]
        switch IO.contents(of: path, limit: policyLimit) {
        case .success(let bytes): data = bytes
        case .failure(.open(let code)): throw UsageError(.english("the {option} file cannot be opened"), errno: code).naming(option)
        case .failure(.read(let code)): throw UsageError(.english("the {option} file cannot be read"), errno: code).naming(option)
        case .failure(.tooLarge): throw UsageError(.english("the {option} file is larger than 1 MiB")).naming(option)
        }
        var file: PolicyFile
        do {
            file = try PolicyFile(json: data)
        } catch {
            throw UsageError(.english("the {option} file cannot be used"), error).naming(option)
        }
        if let list = file.blocklistFile {
            var listPath = Array(list.utf8)
            if !list.hasPrefix("/") {
                let folder = path.lastIndex(of: UInt8(ascii: "/")).map { Array(path[...$0]) } ?? []
                listPath = folder + listPath
            }
            file.policy.blockedWords += try blocklist(at: listPath, option: option)
        }
        return file.policy
    }

    private static func blocklist(at path: [UInt8], option: StaticString) throws(UsageError) -> [String] {
        switch IO.contents(of: path, limit: blocklistLimit) {
        case .success(let bytes):
            guard !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) else {
                throw UsageError(.english("the blocklistFile of the {option} file is not UTF-8 text without NUL bytes")).naming(option)
            }
            // A blocklist named but holding no word is a mistake (or a FIFO nobody wrote to yet, which
            // reads as empty): refused, never a policy that silently blocks nothing.
            let words = PolicyFile.words(inBlocklist: text)
            guard !words.isEmpty else { throw UsageError(.english("the blocklistFile of the {option} file holds no word")).naming(option) }
            return words
        case .failure(.open(let code)): throw UsageError(.english("the blocklistFile of the {option} file cannot be opened"), errno: code).naming(option)
        case .failure(.read(let code)): throw UsageError(.english("the blocklistFile of the {option} file cannot be read"), errno: code).naming(option)
        case .failure(.tooLarge): throw UsageError(.english("the blocklistFile of the {option} file is larger than 16 MiB")).naming(option)
        }
    }
}

/// `--policy` and `--policy-file` for the commands that check or hash a password outside the wizard.
struct PolicyOptions: ParsableArguments {
    // Optional, not defaulted: `--policy standard --policy-file F` names two policies.
    @Option(help: .english("The password policy (rules and Argon2 costs): standard, strict or nist (default: signup.conf's policy or policy-file, else standard).", value: Translation.english("name")),
            completion: .list(["standard", "strict", "nist"]))
    var policy: String?

    @Option(help: .english("A JSON policy file (its format: signup-policy(5)).", value: Translation.english("path")), completion: .file())
    var policyFile: String?

    @Option(help: About.configHelp, completion: .file())
    var config: String?

    /// The settings of this run (`--config`, `SIGNUP_CONFIG`, the user's and the system's file).
    func settings() throws(ConfigError) -> Settings {
        try Settings.load(config: config)
    }

    /// The policy chosen, with the configuration's Argon2 costs; both options at once is a usage error.
    func load(_ settings: Settings) throws -> PasswordPolicy {
        if policyFile != nil && policy != nil {
            throw UsageError(.english("use only one of --policy and --policy-file"))
        }
        return try settings.policy(named: policy, file: policyFile).policy
    }
}
