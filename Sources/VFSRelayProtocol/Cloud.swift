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
    /// Files only: the file's current version (its head), which a put names as its
    /// `base` to replace exactly that one. A rekey or a move keeps it; a put makes a new one.
    public var version: String?
    public init(id: String, name: String, path: String, kind: CloudEntryKind, size: Int64? = nil,
                sha256: String? = nil, created: Date, updated: Date, version: String? = nil) {
        self.version = version
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
///
/// What it replaces (issue 50): `base` names the version the put was based on, and the
/// put is refused (409 `version_conflict`) unless that is still the file's head;
/// `create: true` refuses it when a file is there. With neither, it replaces whatever
/// file is there (the last writer wins, as `vfs-cloud put -f` asks).
public struct CloudPut: Codable, Sendable, Equatable {
    public var upload: String?
    public var transfer: String?
    public var base: String?
    public var create: Bool?

    /// What a put expects at its path, as `base` and `create` say it.
    public enum Expectation: Sendable, Equatable {
        /// Replace whatever file is there (`put -f`).
        case any
        /// No file may be there: a new one.
        case absent
        /// The file there must still be at this version.
        case version(String)
    }

    public var expectation: Expectation { base.map { .version($0) } ?? (create == true ? .absent : .any) }

    public init(upload: String, expecting: Expectation = .any) {
        self.upload = upload
        switch expecting {
        case .any: break
        case .absent: create = true
        case .version(let version): base = version
        }
    }
    public init(transfer: String) { self.transfer = transfer }
    enum CodingKeys: String, CodingKey, CaseIterable { case upload, transfer, base, create }
    public init(from decoder: Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        upload = try container.decodeIfPresent(String.self, forKey: .upload)
        transfer = try container.decodeIfPresent(String.self, forKey: .transfer)
        base = try container.decodeIfPresent(String.self, forKey: .base)
        create = try container.decodeIfPresent(Bool.self, forKey: .create)
        guard (upload == nil) != (transfer == nil) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "give exactly one of \"upload\" and \"transfer\""))
        }
        guard base == nil || create == nil else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "\"base\" replaces a version, \"create\" makes a new file: give one"))
        }
        if let base, base.isEmpty || base.unicodeScalars.count > 64 {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "\"base\" must be a version id (1 to 64 characters)"))
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
    /// Bytes the user holds on the relay in all (uploads, live transfers, cloud files, the
    /// blobs only earlier versions of their files hold, share links).
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
