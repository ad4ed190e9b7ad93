import CSystem
import Glibc
import SignupCore
import Synchronization

/// A GNU gettext catalog: a text domain and the folder that holds its compiled catalogs
/// (`folder/de/LC_MESSAGES/domain.mo`). The reader's language is chosen as gettext chooses it:
/// `LANGUAGE`, then `LC_ALL`, `LC_MESSAGES`, `LANG`, for a locale that is installed.
public struct MessageCatalog: Sendable, Equatable {
    /// The text domain: the catalog file's name without `.mo`.
    public var domain: String
    /// The folder the language folders are in, such as `/usr/share/locale`.
    public var folder: String

    /// The catalog `domain` under `folder`.
    public init(domain: String, folder: String) {
        self.domain = domain
        self.folder = folder
    }

    /// The libraries' and `signup`'s own texts (domain `signup`) in `../share/locale` from the
    /// running program's file (`/proc/self/exe`): `/usr/share/locale` for `/usr/bin/signup`.
    /// The `signup` command's catalog: it also holds its sign-up form's words (`Password`,
    /// `Create account?`), which would translate a program's own texts of the same English.
    /// A program of your own names ``forms`` instead.
    ///
    /// Never from an environment variable: a client that may set some (`ssh` sends `LANG` and
    /// `LC_*`) must not choose the folder a catalog is read from.
    public static var signup: MessageCatalog? {
        besideProgram(domain: "signup")
    }

    /// The libraries' own texts alone (domain `signup-forms`): rule messages and labels, the
    /// wizard's questions and the runner's words, none of `signup`'s form or command. Beside the
    /// running program as ``signup`` is; `scripts/po compile DIR` writes it. Name your program's
    /// catalog first: `Translation.gettext([MessageCatalog.besideProgram(domain: "join"), MessageCatalog.forms].compactMap { $0 })`,
    /// so a text of yours stays yours, translated or not.
    public static var forms: MessageCatalog? {
        besideProgram(domain: "signup-forms")
    }

    /// Domain `domain` in `../share/locale` from the running program's file, nil when that file cannot be named.
    public static func besideProgram(domain: String) -> MessageCatalog? {
        guard let program = Sys.programPath(), let slash = program.lastIndex(of: "/") else { return nil }
        return MessageCatalog(domain: domain, folder: String(program[..<slash]) + "/../share/locale")
    }
}

extension Translation {
    /// The texts of `catalogs` in the reader's language, the first catalog that has a text winning:
    /// name your program's catalog first and ``MessageCatalog/forms`` after it for the libraries' texts.
    ///
    /// Applies the environment's message locale the first time (`setlocale(LC_MESSAGES, "")`).
    /// Without an installed locale for the reader's language (or with `LANG=C`) every text stays English,
    /// as in every gettext program; `LANGUAGE=de` with `LC_ALL=C.UTF-8` chooses German without one.
    /// A character locale that is not UTF-8 (`LC_CTYPE=C`, `de_DE.ISO-8859-1`) stays English too: the
    /// conversation is ASCII there.
    public static func gettext(_ catalogs: [MessageCatalog]) -> Translation {
        // A character locale that is not UTF-8 gets an ASCII conversation: a translation's letters
        // (ä, ß) would reach an 8-bit terminal as C1 control bytes. English is ASCII.
        var chosen: [String: String] = [:]
        for name in ["LC_ALL", "LC_CTYPE", "LANG"] { if let value = getenv(name) { chosen[name] = String(cString: value) } }
        guard TerminalCapabilities.localeIsUTF8(environment: chosen) else { return .english }
        MessageLocale.applyOnce()
        let bound = catalogs.filter(MessageLocale.bind)
        guard !bound.isEmpty else { return .english }
        return Translation { english in
            for catalog in bound {
                if let text = MessageLocale.text(english, in: catalog.domain) { return text }
            }
            return nil
        }
    }

    /// `signup`'s own catalog (``MessageCatalog/signup``), or English when the program's file cannot be named.
    public static var signup: Translation {
        gettext(MessageCatalog.signup.map { [$0] } ?? [])
    }
}

/// The process's message locale and its catalogs, set once: gettext's state is the process's.
enum MessageLocale {
    private static let applied = Mutex(false)

    static func applyOnce() {
        applied.withLock { applied in
            if !applied {
                keepOnlyLanguageNames()
                _ = signup_set_message_locale()
            }
            applied = true
        }
    }

    /// Leaves in `LANGUAGE` only entries that are language names (`de`, `pt_BR`, `sr@latin`):
    /// glibc joins each entry to the catalog folder as it is, so `LANGUAGE=../../../tmp/x` read a
    /// catalog from any folder, and an SSH client may set the variable. (glibc itself refuses such
    /// names in `LC_ALL`, `LC_MESSAGES` and `LANG`.)
    static func keepOnlyLanguageNames() {
        guard let value = getenv("LANGUAGE") else { return }
        let entries = String(cString: value).split(separator: ":", omittingEmptySubsequences: true)
        let kept = entries.filter(isLanguageName)
        if kept.count == entries.count { return }
        if kept.isEmpty { unsetenv("LANGUAGE") } else { setenv("LANGUAGE", kept.joined(separator: ":"), 1) }
    }

    /// `ll`, `ll_CC`, with an optional `.codeset` and `@modifier`: letters, digits, `_`, `.`, `-`, `@`, never `/` nor `..`.
    static func isLanguageName(_ entry: Substring) -> Bool {
        guard let first = entry.first, first.isASCII, first.isLetter, entry.count <= 64, !entry.contains("..") else { return false }
        return entry.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "_.-@".contains($0)) }
    }

    static func bind(_ catalog: MessageCatalog) -> Bool {
        !catalog.domain.isEmpty && !catalog.domain.contains("/") && signup_bind_catalog(catalog.domain, catalog.folder) == 0
    }

    /// The catalog's text, nil when it has none (gettext then hands back the English text itself).
    static func text(_ english: String, in domain: String) -> String? {
        guard !english.isEmpty else { return nil }  // "" is the catalog's header, not a text
        return english.withCString { msgid in
            guard let found = signup_catalog_text(domain, msgid), found != msgid else { return nil }
            return String(cString: found)
        }
    }
}
