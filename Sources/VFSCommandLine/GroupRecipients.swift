import VFSCore
#if canImport(Glibc)
import Glibc
#endif

extension ToolPaths {
    /// `$VFS_HOME/groups`: one age recipients file per group, named after the group.
    public static var groupsFolder: String { home + "/groups" }
}

/// `-g GROUP`: the recipients of a group, kept as an age recipients file at
/// `$VFS_HOME/groups/GROUP` (one `age1…` per line, `#` comments).
public enum GroupRecipients {
    public static func file(of group: String) throws -> String {
        guard !group.isEmpty, !group.hasPrefix("."), !group.contains("/") else {
            throw ToolError.usage("invalid group name \"\(group)\"", hints: ["a group name is a file name in \(ToolPaths.groupsFolder): no '/', not starting with '.'"])
        }
        return ToolPaths.groupsFolder + "/" + group
    }

    public static func load(_ group: String) throws -> [AgeRecipient] {
        let path = try file(of: group)
        let text: String
        do {
            text = String(decoding: try FileDescriptorSource(path: path).readAll(), as: UTF8.self)
        } catch let error as IOError {
            throw ToolError("unknown group \"\(group)\": \(error.description)", exit: error.code == ENOENT ? .noInput : error.exitStatus,
                            hints: ["create \(path) with one age1… recipient per line"])
        }
        let recipients: [AgeRecipient]
        do { recipients = try KeyFile.recipients(in: text, source: "\"\(path)\"") }
        catch let error as AgeError { throw ToolError(error.description, exit: .dataError) }
        guard !recipients.isEmpty else {
            throw ToolError("the group \"\(group)\" has no recipients", exit: .dataError, hints: ["add one age1… recipient per line to \(path)"])
        }
        return recipients
    }
}
