import AccountStore
import ArgumentParser
import Glibc

/// `--db` as the bytes the user gave, and the store location it chooses.
enum StoreOption {
    /// The location for this run: `--db`, else `SIGNUP_DB`, XDG_DATA_HOME or HOME, all read as raw bytes (`variable`).
    ///
    /// `given` is the parsed option: its text went through `CommandLine.arguments`, which
    /// replaces bytes that are not UTF-8, so its bytes are taken from `argv`, from the word the
    /// parser read it from (``RawArguments``: `--db= PATH` is PATH for both). A location that
    /// cannot be used is a usage error that does not repeat the value.
    static func location(given: String?, variable: (String) -> [UInt8]? = Settings.processVariable) throws -> StoreLocation {
        do {
            return try StoreLocation.chosen(option: given.map { RawArguments.value(of: "--db", parsed: $0) ?? Array($0.utf8) }, variable: variable)
        } catch {
            // PostgreSQL named but libpq missing: the store cannot be reached (74), the text is fine.
            if case .unavailable(let reason, .postgresMissing) = error {
                IO.write("error: --db or SIGNUP_DB: \(reason)\n", to: 2)
                throw ExitCode(ExitStatus.storage)
            }
            throw UsageError(.english("--db or SIGNUP_DB"), location: error)
        }
    }
}
