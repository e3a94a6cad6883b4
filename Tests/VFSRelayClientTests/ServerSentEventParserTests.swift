import Testing
import VFSRelayClient

@Suite("server-sent events parser (HTML standard rules)")
struct ServerSentEventParserTests {
    func parse(_ text: String, pieces: Int = 1) throws -> ([ServerSentEvent], ServerSentEventParser) {
        var parser = ServerSentEventParser()
        let bytes = Array(text.utf8)
        let step = max(1, bytes.count / pieces)
        var events: [ServerSentEvent] = []
        var i = 0
        while i < bytes.count {
            events += try parser.feed(bytes[i..<min(bytes.count, i + step)])
            i += step
        }
        return (events, parser)
    }

    @Test("id, event and data; the last event id carries over; fed byte by byte or whole")
    func basic() throws {
        let text = "retry: 3000\n\nid: 7\nevent: transfer\ndata: {\"transfer\":\"a\"}\n\ndata: no id\n\n"
        for pieces in [1, text.utf8.count] {
            let (events, parser) = try parse(text, pieces: pieces)
            #expect(events == [
                ServerSentEvent(type: "transfer", data: "{\"transfer\":\"a\"}", lastEventID: "7"),
                ServerSentEvent(type: "message", data: "no id", lastEventID: "7"),
            ])
            #expect(parser.retry == 3000)
        }
    }

    @Test("CR, LF and CRLF line ends; multi-line data joined with LF; comments and unknown fields ignored")
    func lineEnds() throws {
        let (events, _) = try parse(": keep-alive\r\ndata: one\rdata:two\r\nfoo: bar\nevent\n\n")
        #expect(events == [ServerSentEvent(type: "message", data: "one\ntwo", lastEventID: "")])
    }

    @Test("a CRLF split across two pieces is one line end")
    func splitCRLF() throws {
        var parser = ServerSentEventParser()
        #expect(try parser.feed(Array("data: x\r".utf8)).isEmpty)
        #expect(try parser.feed(Array("\n\r\n".utf8)) == [ServerSentEvent(type: "message", data: "x", lastEventID: "")])
    }

    @Test("no data field, no event (its type is reset); a bare data field is an empty event; an id with NUL and a non-numeric retry are ignored; a leading BOM is dropped")
    func edgeCases() throws {
        let (events, parser) = try parse("\u{FEFF}id: 1\nevent: logout\n\nid: 2\u{0}x\nretry: 12a\ndata\n\n")
        #expect(events == [ServerSentEvent(type: "message", data: "", lastEventID: "1")])
        #expect(parser.lastEventID == "1")
        #expect(parser.retry == nil)
    }

    @Test("a line or an event's data past 1 MiB throws TooLong, fed whole or in pieces; just under the limit is an event")
    func limits() throws {
        let limit = ServerSentEventParser.limit
        var endless = ServerSentEventParser()
        let piece = [UInt8](repeating: UInt8(ascii: "x"), count: 4096)
        #expect(try endless.feed(Array("data: ".utf8)).isEmpty)
        var fed = 6
        #expect(throws: ServerSentEventParser.TooLong(limit: limit)) {
            while fed < 2 * limit {
                _ = try endless.feed(piece)
                fed += piece.count
            }
        }
        #expect(fed <= limit + piece.count)
        // Many short data lines that add up past the limit: the event is refused too.
        var many = ServerSentEventParser()
        let line = Array(("data: " + String(repeating: "y", count: 1000) + "\n").utf8)
        #expect(throws: ServerSentEventParser.TooLong(limit: limit)) {
            for _ in 0..<(2 * limit / 1000) { _ = try many.feed(line) }
        }
        var fits = ServerSentEventParser()
        let big = String(repeating: "z", count: limit - 100)
        #expect(try fits.feed(Array("data: \(big)\n\n".utf8)) == [ServerSentEvent(type: "message", data: big, lastEventID: "")])
    }

    @Test("backoff: each ceiling doubles up to the cap; every delay lies between half the ceiling and the ceiling")
    func backoff() throws {
        let backoff = Backoff(base: 0.5, cap: 4)
        #expect((1...6).map { backoff.ceiling(attempt: $0) } == [0.5, 1, 2, 4, 4, 4])
        for attempt in 1...6 {
            let delay = backoff.delay(attempt: attempt)
            #expect(delay >= backoff.ceiling(attempt: attempt) / 2 && delay <= backoff.ceiling(attempt: attempt))
        }
    }
}
