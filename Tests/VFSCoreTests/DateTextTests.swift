import Foundation
import Testing
@testable import VFSCore

@Suite("date text")
struct DateTextTests {
    @Test("dates: ISO 8601 to the second and listings to the minute, in UTC")
    func dates() {
        #expect(DateText.iso8601(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(DateText.iso8601(Date(timeIntervalSince1970: 1_600_000_000.9)) == "2020-09-13T12:26:40Z")
        #expect(DateText.minutes(sinceEpoch: 1_600_000_000) == "2020-09-13 12:26")
        #expect(DateText.minutes(sinceEpoch: 0) == "1970-01-01 00:00")
        // The same text the key files and manifests carried before (ISO8601DateFormatter).
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        #expect(DateText.iso8601(now) == ISO8601DateFormatter().string(from: now))
    }
}
