/// What a server-sent event on `/v1/events` is about (its `event:` field).
public enum RelayEventKind: String, Codable, Sendable, CaseIterable {
    /// A transfer waits for this device; data: `{"transfer": id}`.
    case transfer
    /// This device was logged out; the stream closes after it.
    case logout
    /// The organisation's policy items changed; data: `{"item": id, "change": …}`.
    case policy
    /// A message from the operator; data: `{"message": …}`.
    case alert
    /// A group of this user changed; data: `{"group": name}`.
    case group
    /// A share link of this user was downloaded; data: `{"share": id, "size": bytes, "address": client}`.
    case share
}

/// `GET /v1/health`.
public struct HealthStatus: Codable, Sendable, Equatable {
    public var status: String
    public var version: String
    /// `ok` when the relay's database answered this request (older relays leave it out).
    public var database: String?
    public init(status: String, version: String, database: String? = nil) {
        self.status = status
        self.version = version
        self.database = database
    }
}
