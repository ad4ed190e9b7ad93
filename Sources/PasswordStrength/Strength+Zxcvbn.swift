import CZxcvbn
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SignupCore

extension StrengthEstimator {
    /// The zxcvbn-c estimator: the bits of `ZxcvbnMatch`, "common" when one dictionary word is the whole password.
    ///
    /// The corresponding C function is `ZxcvbnMatch`. zxcvbn-c works on the password's UTF-8 bytes and stops at
    /// the first NUL byte, so a password holding NUL is estimated on the part before it (the password rules reject
    /// control characters before strength is asked for). User words are matched case-insensitively, with leet.
    ///
    /// libzxcvbn is loaded the first time a password is estimated. A program that cannot load it
    /// cannot judge any password: every estimate is then 0 bits and common, so the strength rules
    /// refuse every password rather than let one through unjudged. Nothing is printed and the
    /// process goes on: ask ``zxcvbnUnavailableReason`` to tell the person why (`signup` says
    /// `error: libzxcvbn cannot be loaded (Debian: libzxcvbn0): …` and exits 74).
    public static let zxcvbn = StrengthEstimator { password, userWords in
        guard ZxcvbnEstimator.isLoaded else { return StrengthEstimate(bits: 0, isCommon: true) }
        return ZxcvbnEstimator.estimate(password, userWords: userWords)
    }

    /// Why libzxcvbn cannot be loaded, or nil when it can (loading it now, the first time).
    public static var zxcvbnUnavailableReason: String? {
        czxcvbn_failure().map { String(cString: $0) }
    }
}

/// The C side of `StrengthEstimator.zxcvbn`: every call owns its buffers, so calls may run concurrently.
enum ZxcvbnEstimator {
    /// Whether libzxcvbn is loaded (loading it the first time).
    static var isLoaded: Bool { czxcvbn_failure() == nil }

    static func estimate(_ password: String, userWords: [String]) -> StrengthEstimate {
        withUserDictionary(userWords) { dictionary in
            password.withCString { passwordPointer in
                var info: UnsafeMutablePointer<ZxcMatch_t>?
                let bits = ZxcvbnMatch(passwordPointer, dictionary, &info)
                defer { ZxcvbnFreeInfo(info) }
                return StrengthEstimate(
                    bits: bits.isFinite ? max(bits, 0) : 0,
                    isCommon: isSingleDictionaryWord(info, byteCount: password.utf8.count)
                )
            }
        }
    }

    /// Whether the match list is one dictionary (or leet dictionary) word covering every byte.
    ///
    /// zxcvbn-c's `Begin` and `Length` count bytes of the UTF-8 string, not characters: compare with the UTF-8 count.
    /// User-word matches, repeats (`MULTIPLE_MATCH`) and brute force do not count as common.
    private static func isSingleDictionaryWord(_ info: UnsafeMutablePointer<ZxcMatch_t>?, byteCount: Int) -> Bool {
        guard byteCount > 0, let match = info?.pointee, match.Next == nil else { return false }
        let isDictionary = match.Type == DICTIONARY_MATCH || match.Type == DICT_LEET_MATCH
        return isDictionary && match.Begin == 0 && Int(match.Length) == byteCount
    }

    /// Calls `body` with `words` as a NULL-terminated array of C strings, like `argv`; nil when there are none.
    private static func withUserDictionary<R>(
        _ words: [String],
        _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> R
    ) -> R {
        let words = words.filter { !$0.isEmpty }
        if words.isEmpty { return body(nil) }

        let byteCount = words.reduce(0) { $0 + $1.utf8.count + 1 }
        let storage = UnsafeMutablePointer<CChar>.allocate(capacity: byteCount)
        defer { storage.deallocate() }
        let pointers = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: words.count + 1)
        defer { pointers.deallocate() }

        var offset = 0
        for (index, word) in words.enumerated() {
            let start = storage + offset
            for byte in word.utf8 {
                storage[offset] = CChar(bitPattern: byte)
                offset += 1
            }
            storage[offset] = 0
            offset += 1
            pointers[index] = UnsafePointer(start)
        }
        pointers[words.count] = nil
        return body(pointers)
    }
}
