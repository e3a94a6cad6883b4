import Logging
import NIOConcurrencyHelpers
import Testing
@testable import VFSRelayServer

/// Text written to a log stream, kept for the test.
final class LogText: Sendable {
    let text = NIOLockedValueBox("")
    var lines: [String] { text.withLockedValue { $0.split(separator: "\n").map(String.init) } }
}

struct LogTextStream: TextOutputStream, Sendable {
    let sink: LogText
    mutating func write(_ string: String) { sink.text.withLockedValue { $0 += string } }
}

@Suite("the relay's log handler")
struct RelayLogHandlerTests {
    @Test("lines as swift-log's StreamLogHandler writes them, with the logger's metadata, from the level up")
    func lines() throws {
        let ours = LogText(), reference = LogText()
        var logger = Logger(label: "vfs-relay") { label in
            RelayLogHandler(StreamLogHandler(label: label, stream: LogTextStream(sink: ours), metadataProvider: nil), level: .info)
        }
        var expected = Logger(label: "vfs-relay") { label in
            var handler = StreamLogHandler(label: label, stream: LogTextStream(sink: reference), metadataProvider: nil)
            handler.logLevel = .info
            return handler
        }
        for index in [0, 1] {
            var log = index == 0 ? logger : expected
            log[metadataKey: "hb.request.id"] = "7"
            log.debug("not written")
            log.info("GET /v1/items 200", metadata: ["user": "ann"])
            log[metadataKey: "hb.request.id"] = nil
            log.warning("no metadata")
            if index == 0 { logger = log } else { expected = log }
        }
        #expect(logger.logLevel == .info)
        #expect(logger[metadataKey: "hb.request.id"] == nil)
        // The same lines but for their timestamps (the first word).
        let words = { (line: String) in line.split(separator: " ", maxSplits: 1).last.map(String.init) ?? "" }
        #expect(ours.lines.count == 2)
        #expect(ours.lines.map(words) == reference.lines.map(words))
        let first = try #require(ours.lines.first)
        #expect(first.contains("info vfs-relay:") && first.contains("hb.request.id=7") && first.contains("user=ann")
                && first.hasSuffix("GET /v1/items 200"), "\(first)")
        #expect(ours.lines.last?.hasSuffix("no metadata") == true && ours.lines.last?.contains("hb.request.id") == false)
    }
}
