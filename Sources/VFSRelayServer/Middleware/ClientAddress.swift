import Foundation
import HTTPTypes
import Hummingbird
#if canImport(Glibc)
import Glibc
#endif

/// An address range as operators write it: `10.0.0.0/8`, `::1/128`, or one address.
public struct CIDR: Sendable, Equatable, CustomStringConvertible {
    let bytes: [UInt8]
    let prefix: Int

    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = CIDR.parse(String(parts[0])) else { return nil }
        let bits = address.count * 8
        if parts.count == 2 {
            guard let prefix = Int(parts[1]), parts[1].allSatisfy(\.isASCII), (0...bits).contains(prefix),
                  parts[1].first != "+" else { return nil }
            self.prefix = prefix
        } else {
            prefix = bits
        }
        bytes = address
    }

    /// The address's bytes (4 or 16), or nil for anything else. An IPv4-mapped IPv6
    /// address is taken as its IPv4 address.
    static func parse(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return Array(bytes[12...]) }
        return bytes
    }

    public func contains(_ address: String) -> Bool {
        guard let other = CIDR.parse(address), other.count == bytes.count else { return false }
        var left = prefix
        for (a, b) in zip(bytes, other) where left > 0 {
            let mask: UInt8 = left >= 8 ? 0xFF : ~(0xFF >> UInt8(left))
            if a & mask != b & mask { return false }
            left -= 8
        }
        return true
    }

    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var copy = bytes
        _ = inet_ntop(bytes.count == 4 ? AF_INET : AF_INET6, &copy, &text, socklen_t(text.count))
        return "\(String(cString: text))/\(prefix)"
    }
}

/// The one header a proxy in front of the relay names the client in (`serve
/// --proxy-header`): the operator's choice, since a proxy passes on the headers it does
/// not set itself, and a client can write any of them.
public enum ProxyHeader: String, Sendable, CaseIterable {
    /// RFC 7239: `Forwarded: for=192.0.2.60;proto=https, for=…`.
    case forwarded
    /// `X-Forwarded-For: client, proxy1, …` (nginx's `$proxy_add_x_forwarded_for`).
    case xForwardedFor = "x-forwarded-for"
    /// `X-Real-IP: client` (one address, nginx's `$remote_addr`).
    case xRealIP = "x-real-ip"

    public var name: HTTPField.Name {
        switch self {
        case .forwarded: .forwarded
        case .xForwardedFor: .xForwardedFor
        case .xRealIP: .xRealIP
        }
    }
}

/// Who is asking: the socket's peer, or, when that peer is a trusted proxy and the
/// operator named the header it sets, the client that header names: the right-most
/// address that is not itself a trusted proxy (what the left of it says, anyone can
/// write). Every other forwarding header is ignored, from anyone.
public struct ClientAddressResolver: Sendable {
    public let trusted: [CIDR]
    public let header: ProxyHeader?

    public init(trusted: [CIDR], header: ProxyHeader?) {
        self.trusted = trusted
        self.header = header
    }

    func isTrusted(_ address: String) -> Bool { trusted.contains { $0.contains(address) } }

    /// The client of a request from `peer` whose chosen header says `value` (nil: absent).
    public func client(peer: String, value: String?) -> String {
        guard let header, !trusted.isEmpty, isTrusted(peer), let value, !value.isEmpty else { return peer }
        let chain: [String]
        switch header {
        case .forwarded: chain = Self.forwardedFor(value)
        case .xForwardedFor: chain = value.split(separator: ",").map { Self.bare($0.trimmingCharacters(in: .whitespaces)) }
        case .xRealIP: chain = [Self.bare(value.trimmingCharacters(in: .whitespaces))]
        }
        // A proxy that names something not an address (`unknown`, an obfuscated name)
        // ends the trust: that proxy is the client we know.
        var client = peer
        for entry in chain.reversed() {
            guard CIDR.parse(entry) != nil else { return client }
            client = entry
            if !isTrusted(entry) { return entry }
        }
        return client
    }

    /// The client of a request from `peer` with these headers: only the chosen one counts.
    public func client(peer: String, headers: HTTPFields) -> String {
        guard let header else { return peer }
        // Several lines of one header are one list (RFC 9110), in order.
        let lines = headers[values: header.name]
        return client(peer: peer, value: lines.isEmpty ? nil : lines.joined(separator: ", "))
    }

    /// The `for=` values of a `Forwarded` header, first hop first.
    static func forwardedFor(_ header: String) -> [String] {
        header.split(separator: ",").compactMap { element in
            for pair in element.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if parts.count == 2, parts[0].lowercased() == "for" { return bare(parts[1]) }
            }
            return nil
        }
    }

    /// An address without quotes, brackets or port: `"[2001:db8::1]:4711"` → `2001:db8::1`.
    static func bare(_ text: String) -> String {
        var value = Substring(text)
        if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
        if value.hasPrefix("[") {
            guard let close = value.firstIndex(of: "]") else { return String(value) }
            return String(value[value.index(after: value.startIndex)..<close])
        }
        // IPv4 with a port: one colon.
        if value.filter({ $0 == ":" }).count == 1, let colon = value.firstIndex(of: ":") { return String(value[..<colon]) }
        return String(value)
    }
}

/// Sets the context's client address once per request (outermost, so the request log
/// shows it too).
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = RelayRequestContext
    let resolver: ClientAddressResolver

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.remoteAddress = resolver.client(peer: context.peerAddress, headers: request.headers)
        return try await next(request, context)
    }
}
