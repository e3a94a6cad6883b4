#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSRelayProtocol

/// Share links (`vfs-share`): made of a finished upload, listed with their downloads, revoked.
extension RelayClient {
    public func createShare(_ body: ShareCreate) async throws -> Share {
        try await call(.POST, RelayPaths.shares, body: body, as: Share.self)
    }

    public func shares() async throws -> [Share] {
        try await call(.GET, RelayPaths.shares, as: [Share].self)
    }

    public func revokeShare(_ id: String) async throws {
        _ = try await send(.DELETE, RelayPaths.share(id))
    }

    /// What this device's organisation allows its links; `LinkPolicy.open` from a relay
    /// that predates the setting (404), which applies only its own limits.
    public func linkPolicy() async throws -> LinkPolicy {
        do {
            return try await call(.GET, RelayPaths.linkPolicy, as: LinkPolicy.self)
        } catch RelayClientError.rejected(let status, _, _) where status == 404 {
            return .open
        }
    }
}

extension LinkPolicy {
    /// Refuses, before anything is sealed or sent, a link the organisation would refuse
    /// (what the relay checks again): `expires` and `size` in seconds and bytes when known.
    public func check(what: String, expires: Int?, downloads: Int?, size: Int64?) throws {
        func refused(_ message: String) -> RelayClientError {
            .rejected(status: 403, code: RelayErrorCode.linkPolicy.rawValue, message: message)
        }
        guard allowed else { throw refused("your organisation does not allow \(what) (its operator turned them off)") }
        if let expires, let maxExpiry, Int64(expires) > maxExpiry {
            throw refused("your organisation's \(what) expire within \(maxExpiry / 86400 > 0 && maxExpiry % 86400 == 0 ? "\(maxExpiry / 86400) day(s)" : "\(maxExpiry) seconds") at most")
        }
        if let downloads, let maxDownloads, downloads > maxDownloads {
            throw refused("your organisation's links allow \(maxDownloads) download(s) at most")
        }
        if let size, let maxSize, size > maxSize {
            throw refused("your organisation's links hold \(maxSize) bytes at most; this one is \(size)")
        }
    }
}

/// File requests (`vfs-share request`): made for this user's receiving devices, listed
/// with what each took, revoked.
extension RelayClient {
    public func createFileRequest(_ body: FileRequestCreate) async throws -> FileRequest {
        try await call(.POST, RelayPaths.fileRequests, body: body, as: FileRequest.self)
    }

    public func fileRequests() async throws -> [FileRequest] {
        try await call(.GET, RelayPaths.fileRequests, as: [FileRequest].self)
    }

    public func revokeFileRequest(_ id: String) async throws {
        _ = try await send(.DELETE, RelayPaths.fileRequest(id))
    }
}
