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
