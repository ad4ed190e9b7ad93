import AccountStore
import Testing

/// libpq says why it cannot parse a connection string only in English words, quoting the text
/// (which may hold a password). The store names the problem in its own words instead: each
/// message it rewrites, made by the real libpq from a string, and the words a person reads. A
/// libpq that words one differently fails here, instead of falling back to "libpq cannot parse it".
@Suite struct LibpqMessageTests {
    static let cases: [(text: String, said: String)] = [
        ("host=db1 dbname", "a word without \"=\" and a value"),
        ("host='db1 password=SECRET", "a quoted value that does not end"),
        ("host=db1 SECRET=1", "an option libpq does not know"),
        ("postgresql://db1/accounts?SECRET=1", "an option libpq does not know"),
        ("postgresql://db1/accounts?host=%zzSECRET", "a percent-encoded character that is not valid"),
        ("postgresql://db1/accounts?host=SECRET%00", "a %00 escape"),
        ("postgresql://[::1/SECRET", "an IPv6 address without its \"]\""),
        ("postgresql://[]/SECRET", "an empty IPv6 address"),
        ("postgresql://[::1]SECRET/db1", "a character that does not belong in a URI"),
        ("postgresql://db1/accounts?host=a=SECRET", "an \"=\" too many in a URI parameter"),
        ("postgresql://db1/accounts?SECRET", "a URI parameter without \"=\""),
    ]

    @Test(arguments: cases.indices)
    func libpqsReasonIsSaidInTheStoresWords(index: Int) {
        let (text, said) = Self.cases[index]
        let error = #expect(throws: StoreError.self) { try StoreLocation(text, fromCommandLine: false) }
        let reason = error?.description ?? ""
        #expect(reason.contains("(\(said); the string is not shown"), "\(reason)")
        #expect(!reason.contains("SECRET") && !reason.contains("db1"), "\(reason)")
    }
}
