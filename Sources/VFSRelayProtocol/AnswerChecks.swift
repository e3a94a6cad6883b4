/// What a client checks in the relay's answers before it uses them. A transfer id and
/// a digest become local file names (`incoming/ID.age`, `cloud-incoming/SHA256.age`), so
/// a hostile relay, or anyone on an `http://` path, must not choose them: an id is 32
/// lowercase hex digits and a SHA-256 64, as the relay makes them, and nothing else is
/// used. The client's JSON decoding calls `checkAnswer()` on every answer (one place).
public protocol CheckedAnswer {
    /// Throws `RelayClientError.invalidAnswer` naming the first value that breaks the rules.
    func checkAnswer() throws
}

enum RelayIdentifiers {
    /// The longest part of a bad value an error repeats.
    static let shown = 80

    static func isID(_ text: String) -> Bool { isLowercaseHex(text, digits: 32) }
    static func isSHA256(_ text: String) -> Bool { isLowercaseHex(text, digits: 64) }

    static func isLowercaseHex(_ text: String, digits: Int) -> Bool {
        text.utf8.count == digits && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// `value` as an id of `what` ("transfer id"), or `.invalidAnswer`.
    static func checkID(_ value: String, _ what: String) throws {
        guard isID(value) else { throw invalid(what, value, rule: "32 lowercase hex digits") }
    }

    static func checkSHA256(_ value: String, _ what: String) throws {
        guard isSHA256(value) else { throw invalid(what, value, rule: "64 lowercase hex digits") }
    }

    static func checkSize(_ value: Int64, _ what: String) throws {
        guard value >= 0 else { throw invalid(what, String(value), rule: "a number of bytes") }
    }

    static func invalid(_ what: String, _ value: String, rule: String) -> RelayClientError {
        let shown = value.count > Self.shown ? String(value.prefix(Self.shown)) + "…" : value
        return .invalidAnswer(what: what, value: shown, rule: rule)
    }
}

extension Array: CheckedAnswer where Element: CheckedAnswer {
    public func checkAnswer() throws { for element in self { try element.checkAnswer() } }
}

extension InboxEntry: CheckedAnswer {
    public func checkAnswer() throws {
        try RelayIdentifiers.checkID(id, "transfer id")
        try RelayIdentifiers.checkID(sender, "sender device id")
        // Still uploading, or its digest deferred (`DeferredDigest`, a listing that did without
        // it): no SHA-256 (the whole is checked end to end, or listed again with it).
        if !sha256.isEmpty { try RelayIdentifiers.checkSHA256(sha256, "SHA-256 of transfer \(id)") }
        try RelayIdentifiers.checkSize(size, "size of transfer \(id)")
    }
}

extension OutboxEntry: CheckedAnswer {
    public func checkAnswer() throws {
        try RelayIdentifiers.checkID(id, "transfer id")
        // A transfer whose upload never ended (it still runs, or it was abandoned) has none,
        // nor one whose upload deferred it (`DeferredDigest`).
        if !sha256.isEmpty {
            try RelayIdentifiers.checkSHA256(sha256, "SHA-256 of transfer \(id)")
        }
        try RelayIdentifiers.checkSize(size, "size of transfer \(id)")
        for recipient in recipients { try RelayIdentifiers.checkID(recipient.device, "recipient device id") }
    }
}

extension CloudEntry: CheckedAnswer {
    public func checkAnswer() throws {
        try RelayIdentifiers.checkID(id, "cloud entry id")
        if let sha256 { try RelayIdentifiers.checkSHA256(sha256, "SHA-256 of a cloud file") }
        if let size { try RelayIdentifiers.checkSize(size, "size of a cloud file") }
    }
}

extension Device: CheckedAnswer {
    public func checkAnswer() throws { try RelayIdentifiers.checkID(id, "device id") }
}

extension EnrollResponse: CheckedAnswer {
    public func checkAnswer() throws { try device.checkAnswer() }
}

extension CloudVersion: CheckedAnswer {
    public func checkAnswer() throws {
        try RelayIdentifiers.checkID(id, "cloud version id")
        if let sha256 { try RelayIdentifiers.checkSHA256(sha256, "SHA-256 of a cloud version") }
        if let size { try RelayIdentifiers.checkSize(size, "size of a cloud version") }
    }
}

extension CloudRestored: CheckedAnswer {
    public func checkAnswer() throws { try restored.checkAnswer() }
}
