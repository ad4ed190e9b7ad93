import CZxcvbn
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SignupCore

extension StrengthEstimator {
    /// The zxcvbn-c estimator of SPEC 4: the bits of `ZxcvbnMatch`, "common" when one dictionary word is the whole password.
    ///
    /// The corresponding C function is `ZxcvbnMatch`. zxcvbn-c works on the password's UTF-8 bytes and stops at
    /// the first NUL byte, so a password holding NUL is estimated on the part before it (the password rules reject
    /// control characters before strength is asked for). User words are matched case-insensitively, with leet.
    ///
    /// libzxcvbn is loaded the first time a password is estimated. A program that cannot load it
    /// cannot judge any password: the first estimate says so on standard error (`error: libzxcvbn
    /// cannot be loaded (Debian: libzxcvbn0): …`) and ends the process with status 74, as a store
    /// that cannot be used does, rather than let a password through unjudged.
    public static let zxcvbn = StrengthEstimator { password, userWords in
        ZxcvbnEstimator.requireLibrary()
        return ZxcvbnEstimator.estimate(password, userWords: userWords)
    }
}

/// The C side of `StrengthEstimator.zxcvbn`: every call owns its buffers, so calls may run concurrently.
enum ZxcvbnEstimator {
    /// Loads libzxcvbn the first time; without it, says why and exits 74 (EX_IOERR, signup's storage failure).
    ///
    /// The estimate may be asked in the middle of a masked read (a live strength meter): a terminal
    /// on standard input, output or error gets its line mode back (echo, line editing,
    /// signals, CR/LF translation, as `stty sane` sets them) before the message.
    static func requireLibrary() {
        guard let failure = czxcvbn_failure() else { return }
        for fd: Int32 in [0, 1, 2] where isatty(fd) == 1 {
            var mode = termios()
            guard tcgetattr(fd, &mode) == 0 else { continue }
            for flag in [ECHO, ECHOE, ECHOK, ICANON, ISIG, IEXTEN] { mode.c_lflag |= tcflag_t(flag) }
            mode.c_iflag |= tcflag_t(ICRNL)
            mode.c_iflag &= ~(tcflag_t(INLCR) | tcflag_t(IGNCR))
            mode.c_oflag |= tcflag_t(OPOST) | tcflag_t(ONLCR)
            _ = tcsetattr(fd, TCSANOW, &mode)
        }
        let message = "error: \(String(cString: failure))\n"
        _ = message.withCString { write(2, $0, strlen($0)) }
        exit(74)
    }

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
