import ArgumentParser
import Foundation
import SignupCore

/// Reads `--policy-file` and the blocklist it names; every problem is a usage error naming the file.
enum PolicyLoader {
    static func load(path: String) throws -> PasswordPolicy {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("--policy-file \(path): cannot read the file")
        }
        var file: PolicyFile
        do {
            file = try PolicyFile(json: data)
        } catch {
            throw ValidationError("--policy-file \(path): \(error.description)")
        }
        if let list = file.blocklistFile {
            let base = URL(fileURLWithPath: path).deletingLastPathComponent()
            let url = list.hasPrefix("/") ? URL(fileURLWithPath: list) : base.appendingPathComponent(list)
            guard let data = FileManager.default.contents(atPath: url.path),
                  let text = String(data: data, encoding: .utf8) else {
                throw ValidationError("--policy-file \(path): cannot read its blocklistFile \(url.path) as UTF-8 text")
            }
            file.policy.blockedWords += PolicyFile.words(inBlocklist: text)
        }
        return file.policy
    }
}
