import Testing
import WizardTerminal

/// Which locales get the Unicode conversation (and a translation): the person's character locale
/// names UTF-8, in any case, with or without the hyphen, wherever in the name.
@Suite struct TerminalCapabilitiesTests {
    @Test(arguments: [
        ["LANG": "C.UTF-8"], ["LANG": "de_DE.utf8"], ["LC_CTYPE": "en_US.Utf-8"], ["LC_ALL": "sr_RS.UTF-8@latin"],
        ["LANG": "UTF8"], ["LANG": "xutf-8y"], ["LANG": "utf-utf8"], ["LANG": "ÄÖ.UTF-8"],
        ["LC_ALL": "", "LANG": "C.UTF-8"],  // an empty variable is unset
        ["LC_CTYPE": "C.UTF-8", "LANG": "C"],  // LC_CTYPE before LANG
    ])
    func aLocaleThatNamesUTF8IsUTF8(environment: [String: String]) {
        #expect(TerminalCapabilities.localeIsUTF8(environment: environment))
    }

    @Test(arguments: [
        [:], ["LANG": ""], ["LANG": "C"], ["LANG": "POSIX"], ["LANG": "de_DE.ISO-8859-1"], ["LANG": "en_US.utf"],
        ["LANG": "utf-"], ["LANG": "utf_8"], ["LANG": "u-t-f-8"], ["LANG": "UTF-16"],
        ["LC_ALL": "C", "LANG": "de_DE.UTF-8"],  // LC_ALL wins
        ["LC_CTYPE": "de_DE.ISO-8859-1", "LANG": "de_DE.UTF-8"],
    ])
    func anyOtherLocaleIsNot(environment: [String: String]) {
        #expect(!TerminalCapabilities.localeIsUTF8(environment: environment))
    }
}
