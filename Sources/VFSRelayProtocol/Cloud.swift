import Foundation

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

/// `PUT /v1/cloud/{path}`: the file's content is a finished tus upload.
public struct CloudPut: Codable, Sendable, Equatable {
    public var upload: String
    public init(upload: String) { self.upload = upload }
    enum CodingKeys: String, CodingKey, CaseIterable { case upload }
    public init(from decoder: Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        upload = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .upload)
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
