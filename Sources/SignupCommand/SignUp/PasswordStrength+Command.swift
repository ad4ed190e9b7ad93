import PasswordStrength
import SignupCore

extension StrengthEstimator {
    /// zxcvbn for the command: when libzxcvbn cannot be loaded the run ends with 74 and the reason,
    /// as a store that cannot be used does, the first time a password is to be judged (before,
    /// nothing needs it: the first prompt does not load it).
    static let command = StrengthEstimator { password, userWords in
        if let reason = StrengthEstimator.zxcvbnUnavailableReason { Signup.endForMissingLibrary(reason) }
        return StrengthEstimator.zxcvbn.estimate(password, userWords)
    }
}
