import AccountStore
import ArgumentParser
import Foundation

/// `--db` and the store location it chooses.
enum StoreOption {
    /// Where `--db` (else `SIGNUP_DB`, else the default file) points, or exit 64 with a reason that never repeats it.
    static func location(given db: String?) throws -> StoreLocation {
        do {
            return try StoreLocation.resolve(argument: db, environment: ProcessInfo.processInfo.environment)
        } catch {
            IO.write("error: \(error.description)\n", to: 2)
            throw ExitCode(ExitStatus.usage)
        }
    }
}
