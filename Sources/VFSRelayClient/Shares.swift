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
