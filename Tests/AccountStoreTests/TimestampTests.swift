@testable import AccountStore
import Foundation
import Testing

/// The dates a store writes (`created_at`, `password_changed_at`, the limits' windows) are ISO 8601
/// in UTC to the second, exactly as earlier releases wrote them with Foundation's format style:
/// rows of both compare and sort as text (`created_at >= $2` in the public limits).
@Suite("Store timestamps")
struct TimestampTests {
    @Test("the same text as Date.ISO8601FormatStyle in UTC, fractions of a second dropped", arguments: [
        0.0, 0.999, 951_868_799.999_9, 951_868_800, 1_764_374_400.5, 2_147_483_647, 2_147_483_648, 4_102_444_800,
        253_402_300_799, -1, -0.25, -2_208_988_800,
    ])
    func sameAsFormatStyle(seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(AccountStore.timestamp(date) == date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt)))
    }

    @Test("a date before 1900 or after 9999 is the first or last second of that range", arguments: [
        (-1e12, "1900-01-01T00:00:00Z"), (-2_208_988_801, "1900-01-01T00:00:00Z"), (1e13, "9999-12-31T23:59:59Z"),
    ])
    func outOfRange(seconds: Double, text: String) {
        #expect(AccountStore.timestamp(Date(timeIntervalSince1970: seconds)) == text)
    }

    @Test("now, and every hour of a leap year")
    func aYearOfHours() {
        #expect(AccountStore.timestamp(Date()).count == 20)
        let start = 1_704_067_200.0  // 2024-01-01T00:00:00Z
        for hour in stride(from: 0.0, through: 366 * 24, by: 1) {
            let date = Date(timeIntervalSince1970: start + hour * 3600 + 59.75)
            #expect(AccountStore.timestamp(date) == date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt)))
        }
    }
}
