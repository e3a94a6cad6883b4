#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

public enum CloudEntryKind: String, Codable, Sendable { case folder, file }

/// A folder or file of the user's cloud tree. Names are metadata the relay stores in
/// the clear; file contents are ciphertext.
public struct CloudEntry: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    /// The full path from the root, such as `/photos/2026/a.age`.
    public var path: String
    public var kind: CloudEntryKind
    public var size: Int64?
    public var sha256: String?
    public var created: Date
    public var updated: Date
    public init(id: String, name: String, path: String, kind: CloudEntryKind, size: Int64? = nil,
                sha256: String? = nil, created: Date, updated: Date) {
        self.id = id
        self.name = name
        self.path = path
        self.kind = kind
        self.size = size
        self.sha256 = sha256
        self.created = created
        self.updated = updated
    }
}

/// `POST /v1/cloud/{path}`: make a folder.
public struct CloudFolderCreate: Codable, Sendable, Equatable {
    public var kind: CloudEntryKind
    public init() { kind = .folder }
    enum CodingKeys: String, CodingKey, CaseIterable { case kind }
    public init(from decoder: Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        kind = try decoder.container(keyedBy: CodingKeys.self).decode(CloudEntryKind.self, forKey: .kind)
    }
}

/// `PUT /v1/cloud/{path}`: the file's content is a finished tus upload (`upload`), or
/// the ciphertext of a transfer this device sent (`transfer`: the cloud file and the
/// transfer then share one blob through its reference count). Exactly one is given.
public struct CloudPut: Codable, Sendable, Equatable {
    public var upload: String?
    public var transfer: String?
    public init(upload: String) { self.upload = upload }
    public init(transfer: String) { self.transfer = transfer }
    enum CodingKeys: String, CodingKey, CaseIterable { case upload, transfer }
    public init(from decoder: Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        upload = try container.decodeIfPresent(String.self, forKey: .upload)
        transfer = try container.decodeIfPresent(String.self, forKey: .transfer)
        guard (upload == nil) != (transfer == nil) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "give exactly one of \"upload\" and \"transfer\""))
        }
    }
}

/// `PUT /v1/cloud-header/{path}`: replace the age header at the start of a cloud file
/// (`rekey`). The relay keeps the payload that follows the old header's `length`
/// bytes and puts `header` (base64) in front of it, as a new blob; `sha256` is the
/// file's current SHA-256 (another value is 412: the file changed meanwhile).
public struct CloudHeaderReplace: Codable, Sendable, Equatable {
    public var header: String
    public var length: Int64
    public var sha256: String
    public init(header: String, length: Int64, sha256: String) {
        self.header = header
        self.length = length
        self.sha256 = sha256
    }
    enum CodingKeys: String, CodingKey, CaseIterable { case header, length, sha256 }
    public init(from decoder: Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        header = try container.decode(String.self, forKey: .header)
        length = try container.decode(Int64.self, forKey: .length)
        sha256 = try container.decode(String.self, forKey: .sha256)
    }
}

/// `GET /v1/cloud-usage`: what the user's cloud holds and the relay's limit for it.
public struct CloudUsage: Codable, Sendable, Equatable {
    public var files: Int
    public var folders: Int
    /// Bytes of ciphertext in cloud files.
    public var bytes: Int64
    /// Bytes the user holds on the relay in all (uploads, live transfers, cloud files).
    public var used: Int64
    /// The relay's per-user quota.
    public var quota: Int64
    public init(files: Int, folders: Int, bytes: Int64, used: Int64, quota: Int64) {
        self.files = files
        self.folders = folders
        self.bytes = bytes
        self.used = used
        self.quota = quota
    }
}

/// `PATCH /v1/cloud/{path}`: rename or move to a new full path.
public struct CloudMove: Codable, Sendable, Equatable {
    public var to: String
    public init(to: String) { self.to = to }
    enum CodingKeys: String, CodingKey, CaseIterable { case to }
    public init(from decoder: Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        to = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .to)
    }
}
