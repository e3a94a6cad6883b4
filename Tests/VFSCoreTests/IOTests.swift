import Foundation
import Testing
import VFSTestSupport
@testable import VFSCore

@Suite("shared IO pieces")
struct IOTests {
    @Test("durations: units, sums; bare numbers and junk rejected")
    func durations() throws {
        #expect(try DurationText.seconds("90s") == 90)
        #expect(try DurationText.seconds("30m") == 1800)
        #expect(try DurationText.seconds("12h") == 43200)
        #expect(try DurationText.seconds("7d") == 604800)
        #expect(try DurationText.seconds("2w") == 1209600)
        #expect(try DurationText.seconds("1h30m") == 5400)
        for bad in ["90", "7", "0", "", "m", "7x", "1h30", "-5m", "1.5h", "99999999999999999999d", "7 d"] {
            #expect(throws: DurationText.ParseError.self, "\(bad)") { try DurationText.seconds(bad) }
        }
        #expect(DurationText.ParseError(text: "7").lacksUnit)
        #expect(!DurationText.ParseError(text: "7x").lacksUnit && !DurationText.ParseError(text: "").lacksUnit)
        #expect(DurationText.format(seconds: 3725) == "1h2m5s")
        #expect(DurationText.format(seconds: 604800) == "7d")
    }

    @Test("sizes: bytes, binary units, exact decimals; garbage, overflow and fractions of a byte rejected")
    func sizes() throws {
        #expect(try SizeText.bytes("1048576") == 1_048_576)
        #expect(try SizeText.bytes("0") == 0)
        #expect(try SizeText.bytes("512B") == 512)
        #expect(try SizeText.bytes("512K") == 512 << 10)
        #expect(try SizeText.bytes("512M") == 512 << 20)
        #expect(try SizeText.bytes("10G") == 10 << 30)
        #expect(try SizeText.bytes("10g") == 10 << 30)
        #expect(try SizeText.bytes("10GB") == 10 << 30)
        #expect(try SizeText.bytes("10GiB") == 10 << 30)
        #expect(try SizeText.bytes("1.5T") == 3 << 39)
        #expect(try SizeText.bytes("1.5K") == 1536)
        #expect(try SizeText.bytes("7P") == 7 << 50)
        #expect(try SizeText.bytes("9223372036854775807") == Int64.max)
        for bad in ["", "G", "10X", "-5M", "1.1K", "0.5", "1.", ".5G", "1e9", "10 G", "10GG", "10iB", "KB",
                    "8192P", "9223372036854775808", "99999999999999999999", "1.00000000000000000001K"] {
            #expect(throws: SizeText.ParseError.self, "\(bad)") { try SizeText.bytes(bad) }
        }
        do { _ = try SizeText.bytes("8192P") } catch { #expect("\(error)" == "invalid size \"8192P\": too large") }
        do { _ = try SizeText.bytes("1.1K") } catch { #expect("\(error)" == "invalid size \"1.1K\": not a whole number of bytes") }
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
