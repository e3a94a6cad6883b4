import Testing
import VFSRelayClient

@Suite("server-sent events parser (HTML standard rules)")
struct ServerSentEventParserTests {
    func parse(_ text: String, pieces: Int = 1) -> ([ServerSentEvent], ServerSentEventParser) {
        var parser = ServerSentEventParser()
        let bytes = Array(text.utf8)
        let step = max(1, bytes.count / pieces)
        var events: [ServerSentEvent] = []
        var i = 0
        while i < bytes.count {
            events += parser.feed(bytes[i..<min(bytes.count, i + step)])
            i += step
        }
        return (events, parser)
    }

    @Test("id, event and data; the last event id carries over; fed byte by byte or whole")
    func basic() {
        let text = "retry: 3000\n\nid: 7\nevent: transfer\ndata: {\"transfer\":\"a\"}\n\ndata: no id\n\n"
        for pieces in [1, text.utf8.count] {
            let (events, parser) = parse(text, pieces: pieces)
            #expect(events == [
                ServerSentEvent(type: "transfer", data: "{\"transfer\":\"a\"}", lastEventID: "7"),
                ServerSentEvent(type: "message", data: "no id", lastEventID: "7"),
            ])
            #expect(parser.retry == 3000)
        }
    }

    @Test("CR, LF and CRLF line ends; multi-line data joined with LF; comments and unknown fields ignored")
    func lineEnds() {
        let (events, _) = parse(": keep-alive\r\ndata: one\rdata:two\r\nfoo: bar\nevent\n\n")
        #expect(events == [ServerSentEvent(type: "message", data: "one\ntwo", lastEventID: "")])
    }

    @Test("a CRLF split across two pieces is one line end")
    func splitCRLF() {
        var parser = ServerSentEventParser()
        #expect(parser.feed(Array("data: x\r".utf8)).isEmpty)
        #expect(parser.feed(Array("\n\r\n".utf8)) == [ServerSentEvent(type: "message", data: "x", lastEventID: "")])
    }

    @Test("no data field, no event (its type is reset); a bare data field is an empty event; an id with NUL and a non-numeric retry are ignored; a leading BOM is dropped")
    func edgeCases() {
        let (events, parser) = parse("\u{FEFF}id: 1\nevent: logout\n\nid: 2\u{0}x\nretry: 12a\ndata\n\n")
        #expect(events == [ServerSentEvent(type: "message", data: "", lastEventID: "1")])
        #expect(parser.lastEventID == "1")
        #expect(parser.retry == nil)
    }

    @Test("backoff: each ceiling doubles up to the cap; every delay lies between half the ceiling and the ceiling")
    func backoff() {
        let backoff = Backoff(base: 0.5, cap: 4)
        #expect((1...6).map { backoff.ceiling(attempt: $0) } == [0.5, 1, 2, 4, 4, 4])
        for attempt in 1...6 {
            let delay = backoff.delay(attempt: attempt)
            #expect(delay >= backoff.ceiling(attempt: attempt) / 2 && delay <= backoff.ceiling(attempt: attempt))
        }
    }
}
