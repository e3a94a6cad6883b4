import Foundation
import VFSPolicyModel
import Hummingbird
import NIOCore

/// Each request's context: the calling device once the token is checked, and the
/// client's address (for the enrolment throttle and the request log).
public struct RelayRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public var identity: DeviceIdentity?
    /// The socket's peer.
    let peerAddress: String
    /// The client: the peer, or the address a trusted proxy forwarded for (`--trusted-proxy`).
    var remoteAddress: String

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peerAddress = source.channel.remoteAddress?.ipAddress ?? "local"
        remoteAddress = peerAddress
    }

    /// JSON bodies are small; uploads stream and never collate.
    public var maxUploadSize: Int { 256 * 1024 }

    public var requestDecoder: JSONDecoder { RelayJSON.decoder() }
    public var responseEncoder: JSONEncoder { RelayJSON.encoder() }

    /// The caller; routes behind the auth middleware always have one.
    func requireIdentity() throws -> DeviceIdentity {
        guard let identity else { throw RelayError.unauthorized }
        return identity
    }
}

/// The API's JSON: ISO 8601 times to the second, keys sorted.
enum RelayJSON {
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        // Any RFC 3339 time, as the document's `date-time` promises (fractions, offsets).
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = RFC3339.date(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text)\" is not an RFC 3339 time")
            }
            return date
        }
        return decoder
    }
}
