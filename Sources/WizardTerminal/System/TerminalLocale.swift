import Glibc

/// Makes the character locale UTF-8, which libedit needs to keep non-ASCII characters.
public enum TerminalLocale {
    /// Applies the environment's `LC_CTYPE` (`setlocale(LC_CTYPE, "")`) and falls back to `C.UTF-8` when its codeset is not UTF-8.
    public static func ensureUTF8() {
        Sys.setCharacterLocale("")
        if isUTF8 { return }
        if !Sys.setCharacterLocale("C.UTF-8") { Sys.setCharacterLocale("C.utf8") }
    }

    /// Whether the current character locale's codeset is UTF-8.
    public static var isUTF8: Bool {
        let codeset = Sys.characterCodeset().lowercased()
        return codeset == "utf-8" || codeset == "utf8"
    }
}

/// Whether `fd` is a terminal. The corresponding C function is `isatty`.
public func isTerminal(_ fd: Int32) -> Bool { Sys.isTerminal(fd) }

/// What the environment says the terminal can show, decided once, the same for the
/// conversation and for libedit.
public enum TerminalCapabilities {
    /// Whether `TERM` names a terminal with a terminfo entry; unset, empty, `dumb` and unknown
    /// names are all dumb: no escape sequence at all, for colour as for editing.
    public static func knowsTerminal(environment: [String: String]) -> Bool {
        guard let term = environment["TERM"], !term.isEmpty, term != "dumb",
              !term.contains("/"), term != ".", term != "..", let first = term.unicodeScalars.first else { return false }
        var folders: [String] = []
        if let own = environment["TERMINFO"], !own.isEmpty { folders.append(own) }
        if let home = environment["HOME"], !home.isEmpty { folders.append(home + "/.terminfo") }
        if let list = environment["TERMINFO_DIRS"] {
            folders += list.split(separator: ":", omittingEmptySubsequences: false).map { $0.isEmpty ? "/usr/share/terminfo" : String($0) }
        }
        folders += ["/etc/terminfo", "/lib/terminfo", "/usr/share/terminfo", "/usr/lib/terminfo"]
        // ncurses files its entries under the first letter, or under its hex code on some systems.
        let subfolders = [String(first), String(first.value, radix: 16)]
        return folders.contains { folder in subfolders.contains { Sys.isReadableFile("\(folder)/\($0)/\(term)") } }
    }

    /// Whether the character locale the person chose (`LC_ALL`, else `LC_CTYPE`, else `LANG`)
    /// is UTF-8; unset means the C locale, which is ASCII.
    public static func localeIsUTF8(environment: [String: String]) -> Bool {
        let name = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? "C"
        // A scan of the bytes, not `String.contains`: that builds a search table keyed by
        // Character, whose Hashable conformance the runtime looks up first (a scan of every
        // conformance in the program) before the first prompt.
        let lower = Array(name.lowercased().utf8)
        return lower.indices.contains { start in
            lower[start...].starts(with: "utf-8".utf8) || lower[start...].starts(with: "utf8".utf8)
        }
    }
}
