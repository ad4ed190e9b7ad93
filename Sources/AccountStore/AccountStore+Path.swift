extension AccountStore {
    /// Where the database lives when `--db` is not given.
    ///
    /// `$SIGNUP_DB`, else `$XDG_DATA_HOME/signup/accounts.sqlite`, else
    /// `$HOME/.local/share/signup/accounts.sqlite`. Empty variables count as
    /// unset, and so does a relative `XDG_DATA_HOME` (the XDG spec says to ignore
    /// it). Without `HOME`, the home folder comes from the password database.
    public static func defaultPath(environment: [String: String]) -> String {
        if let path = environment["SIGNUP_DB"], !path.isEmpty {
            return path
        }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return joined(data, "signup/accounts.sqlite")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileSystem.homeFolder() ?? "."
        return joined(home, ".local/share/signup/accounts.sqlite")
    }

    private static func joined(_ folder: String, _ rest: String) -> String {
        folder.hasSuffix("/") ? folder + rest : folder + "/" + rest
    }
}
