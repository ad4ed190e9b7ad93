/// Rules against addresses made to look like another one (after Unicode's UTS 39).
extension Rule where Value == String {
    /// Fails with `mixedScripts` when the local part or a domain label mixes letters of Latin,
    /// Greek, Cyrillic, Armenian, Cherokee, Coptic, Lisu or Canadian syllabics: `admіn@example.com` with a Cyrillic `і` looks
    /// exactly like `admin@example.com`. Each script alone, and each with digits and any other
    /// script (Han, Arabic, …), passes.
    public static func oneLookalikeScriptPerPart(message: String = Translation.english("Use letters of one alphabet in each part of the address: mixed alphabets make it look like another one")) -> Rule {
        custom("mixedScripts", message: message) { value, _ in
            EmailLookalike.parts(of: value).allSatisfy { part in
                Set(part.unicodeScalars.compactMap(EmailLookalike.Script.init)).count <= 1
            }
        }
    }

    /// Fails with `stackedMarks` when a character carries more than ``EmailLookalike/maximumMarks``
    /// combining marks (31 stacked U+0301 hide the letters around them), or any overlay mark
    /// (a stroke through a letter, `x̶`).
    public static func noStackedMarks(message: String = Translation.english("Use at most {count} accents on one letter", ["count": "\(EmailLookalike.maximumMarks)"])) -> Rule {
        custom("stackedMarks", message: message) { value, _ in
            var marks = 0
            for scalar in value.unicodeScalars {
                // An overlay (a stroke or slash through the letter) makes it another letter: never one.
                if EmailLookalike.isOverlay(scalar) { return false }
                marks = EmailLookalike.isMark(scalar) ? marks + 1 : 0
                if marks > EmailLookalike.maximumMarks { return false }
            }
            return true
        }
    }
}

/// What the look-alike rules know of scripts: the alphabets whose letters are confused with each other.
public enum EmailLookalike {
    /// Combining marks allowed on one character (Vietnamese uses two).
    public static let maximumMarks = 3

    /// The scripts whose letters look like Latin's (and each other's).
    enum Script: Hashable {
        case latin, greek, cyrillic, armenian, cherokee, coptic, lisu, canadianSyllabics

        /// The script of a letter, nil for digits, punctuation, marks and other scripts.
        init?(_ scalar: Unicode.Scalar) {
            guard scalar.properties.isAlphabetic else { return nil }
            switch scalar.value {
            case 0x41...0x5A, 0x61...0x7A, 0xAA, 0xBA, 0xC0...0x24F, 0x1D00...0x1D7F, 0x1E00...0x1EFF,
                 0x2C60...0x2C7F, 0xA720...0xA7FF, 0xAB30...0xAB6F, 0xFF21...0xFF3A, 0xFF41...0xFF5A:
                self = .latin
            case 0x3E2...0x3EF: self = .coptic
            case 0x370...0x3FF, 0x1F00...0x1FFF: self = .greek
            case 0x400...0x52F, 0x1C80...0x1C8F, 0x2DE0...0x2DFF, 0xA640...0xA69F: self = .cyrillic
            case 0x531...0x58F, 0xFB13...0xFB17: self = .armenian
            case 0x13A0...0x13FF, 0xAB70...0xABBF: self = .cherokee
            case 0x2C80...0x2CFF: self = .coptic
            case 0xA4D0...0xA4FF: self = .lisu
            case 0x1400...0x167F, 0x18B0...0x18FF: self = .canadianSyllabics
            default: return nil
            }
        }
    }

    /// Combining overlays: short and long strokes, slashes and rings drawn through a letter.
    static func isOverlay(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x334...0x338, 0x20D2...0x20D3, 0x20D8...0x20DA, 0x20E5...0x20E6, 0x20EA...0x20EB: true
        default: false
        }
    }

    static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }

    /// The local part and each domain label.
    static func parts(of address: String) -> [Substring] {
        guard let at = address.lastIndex(of: "@") else { return [address[...]] }
        return [address[..<at]] + address[address.index(after: at)...].split(separator: ".", omittingEmptySubsequences: false)
    }
}
