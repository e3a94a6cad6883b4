import Foundation
import Testing
import VFSTestSupport
@testable import VFSCore

@Suite("shared IO pieces")
struct IOTests {
    @Test("durations: units, sums, bare seconds; junk rejected")
    func durations() throws {
        #expect(try DurationText.seconds("90") == 90)
        #expect(try DurationText.seconds("90s") == 90)
        #expect(try DurationText.seconds("30m") == 1800)
        #expect(try DurationText.seconds("12h") == 43200)
        #expect(try DurationText.seconds("7d") == 604800)
        #expect(try DurationText.seconds("2w") == 1209600)
        #expect(try DurationText.seconds("1h30m") == 5400)
        for bad in ["", "m", "7x", "1h30", "-5m", "1.5h", "99999999999999999999d", "7 d"] {
            #expect(throws: DurationText.ParseError.self, "\(bad)") { try DurationText.seconds(bad) }
        }
        #expect(DurationText.format(seconds: 3725) == "1h2m5s")
        #expect(DurationText.format(seconds: 604800) == "7d")
    }

    @Test("file lock: exclusive excludes, shared shares, released on unlock")
    func fileLock() throws {
        let dir = try TestFolder("lock")
        let data = dir.path("store")
        let writer = try FileLock(for: data, exclusive: true)
        #expect(throws: IOError.self) { try FileLock(for: data, exclusive: false, wait: false) }
        #expect(throws: IOError.self) { try FileLock(for: data, exclusive: true, wait: false) }
        writer.unlock()
        let readerA = try FileLock(for: data, exclusive: false, wait: false)
        let readerB = try FileLock(for: data, exclusive: false, wait: false)
        #expect(throws: IOError.self) { try FileLock(for: data, exclusive: true, wait: false) }
        readerA.unlock(); readerB.unlock()
        #expect(try FileLock.withLock(for: data, exclusive: true) { 42 } == 42)
        let mode = try FileManager.default.attributesOfItem(atPath: data + ".lock")[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}
