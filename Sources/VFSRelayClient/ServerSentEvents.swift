/// One dispatched server-sent event.
public struct ServerSentEvent: Equatable, Sendable {
    /// The `event:` field; "message" when the stream gave none.
    public var type: String
    public var data: String
    /// The last event id seen so far (what a reconnect sends as `Last-Event-ID`).
    public var lastEventID: String

    public init(type: String, data: String, lastEventID: String) {
        self.type = type
        self.data = data
        self.lastEventID = lastEventID
    }
}

/// The event-stream interpretation rules of the HTML standard ("server-sent events",
/// 9.2.6): lines end in CRLF, LF or CR; a line starting with ':' is a comment; a field
/// is `name: value` (one space after the colon dropped) or a bare name; `data` lines
/// join with LF; `id` without NUL sets the last event id (kept across events);
/// `retry` with only digits sets the reconnection time; an empty line dispatches,
/// unless the data buffer is empty. Bytes are fed as they arrive, in any pieces.
/// A line, or an event's data, longer than `limit` bytes throws `TooLong`: a hostile
/// relay's endless line must not grow the client without bound.
public struct ServerSentEventParser: Sendable {
    /// The longest line, and the most data one event gathers (1 MiB).
    public static let limit = 1 << 20

    public struct TooLong: Error, Equatable {
        public let limit: Int
        public init(limit: Int) { self.limit = limit }
    }

    public private(set) var lastEventID = ""
    /// Milliseconds, once the stream set one.
    public private(set) var retry: Int?
    private var pending: [UInt8] = []
    private var sawCR = false
    private var data = ""
    private var type = ""
    private var bomChecked = false

    public init(lastEventID: String = "") {
        self.lastEventID = lastEventID
    }

    /// The events completed by `bytes`; throws `TooLong` past the limit.
    public mutating func feed<Bytes: Sequence>(_ bytes: Bytes) throws -> [ServerSentEvent] where Bytes.Element == UInt8 {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if sawCR {
                sawCR = false
                if byte == 0x0A { continue }
            }
            if byte == 0x0D || byte == 0x0A {
                sawCR = byte == 0x0D
                var line = String(decoding: pending, as: UTF8.self)
                pending.removeAll(keepingCapacity: true)
                if !bomChecked {
                    bomChecked = true
                    if line.hasPrefix("\u{FEFF}") { line.removeFirst() }
                }
                if let event = try process(line) { events.append(event) }
            } else {
                guard pending.count < Self.limit else { throw TooLong(limit: Self.limit) }
                pending.append(byte)
            }
        }
        return events
    }

    private mutating func process(_ line: String) throws -> ServerSentEvent? {
        if line.isEmpty { return dispatch() }
        if line.hasPrefix(":") { return nil }
        let name: Substring, value: Substring
        if let colon = line.firstIndex(of: ":") {
            name = line[..<colon]
            var rest = line[line.index(after: colon)...]
            if rest.hasPrefix(" ") { rest = rest.dropFirst() }
            value = rest
        } else {
            name = Substring(line)
            value = ""
        }
        switch name {
        case "event": type = String(value)
        case "data":
            guard data.utf8.count + value.utf8.count < Self.limit else { throw TooLong(limit: Self.limit) }
            data += value + "\n"
        case "id": if !value.contains("\0") { lastEventID = String(value) }
        case "retry": if !value.isEmpty, value.allSatisfy({ $0.isASCII && $0.isNumber }) { retry = Int(value) }
        default: break
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            data = ""
            type = ""
        }
        guard !data.isEmpty else { return nil }
        data.removeLast()
        return ServerSentEvent(type: type.isEmpty ? "message" : type, data: data, lastEventID: lastEventID)
    }
}
