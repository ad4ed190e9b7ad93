import Testing
import WizardTerminal

/// Whether the person's locale is UTF-8 decides between the Unicode and the ASCII conversation
/// and whether a translation is shown at all.
@Suite struct TerminalLocaleTests {
    @Test(arguments: [
        (["LANG": "en_US.UTF-8"], true),
        (["LANG": "C.utf8"], true),
        (["LC_ALL": "de_DE.Utf-8"], true),
        (["LC_CTYPE": "sv_SE.UTF8@euro"], true),
        (["LANG": "C"], false),
        (["LANG": "POSIX"], false),
        (["LANG": "en_US.ISO-8859-1"], false),
        (["LANG": "en_US.utf"], false),
        ([:], false),
        // The first of LC_ALL, LC_CTYPE and LANG that is set and not empty decides.
        (["LC_ALL": "C", "LANG": "en_US.UTF-8"], false),
        (["LC_ALL": "", "LC_CTYPE": "C.UTF-8", "LANG": "C"], true),
        (["LC_CTYPE": "C", "LANG": "en_US.UTF-8"], false),
    ])
    func theFirstLocaleVariableSetDecidesWhetherTheTerminalIsUTF8(environment: [String: String], isUTF8: Bool) {
        #expect(TerminalCapabilities.localeIsUTF8(environment: environment) == isUTF8)
    }
}
