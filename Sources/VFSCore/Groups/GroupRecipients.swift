/// A group: the recipients of an age recipients file named after the group in the
/// groups folder (`VFSPaths.groupsFolder`; one `age1…` per line, `#` comments).
/// `vfs-wrap -g GROUP` seals a bundle to them.
public struct GroupRecipients: Sendable {
    public let folder: String

    public init(folder: String = VFSPaths.current.groupsFolder) { self.folder = folder }

    /// The group's file; a name that is not a plain file name is `.invalidName`.
    public func file(of group: String) throws -> String {
        guard !group.isEmpty, !group.hasPrefix("."), !group.contains("/") else {
            throw GroupError.invalidName(group, folder: folder)
        }
        return folder + "/" + group
    }

    public func load(_ group: String) throws -> [X25519Recipient] {
        let path = try file(of: group)
        let text: String
        do {
            text = String(decoding: try FileDescriptorSource(path: path).readAll(), as: UTF8.self)
        } catch let error as IOError {
            throw GroupError.unreadable(group: group, path: path, error)
        }
        // KeyFile refuses a file with no recipient too ("no recipients found in …").
        do { return try KeyFile.recipients(in: text, source: "\"\(path)\"") }
        catch let error as AgeError { throw GroupError.badRecipients(path: path, error) }
    }
}

/// What can go wrong reading a group.
public enum GroupError: Error, CustomStringConvertible {
    case invalidName(String, folder: String)
    /// The group's file can't be read (usually: there is no such group).
    case unreadable(group: String, path: String, IOError)
    /// A line of the group's file is not a recipient, or it has none.
    case badRecipients(path: String, AgeError)

    public var description: String {
        switch self {
        case .invalidName(let group, _): return "invalid group name \"\(group)\""
        case let .unreadable(group, _, error): return "unknown group \"\(group)\": \(error.description)"
        case .badRecipients(_, let error): return error.description
        }
    }
}
