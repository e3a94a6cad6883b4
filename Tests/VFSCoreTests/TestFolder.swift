import Foundation
@testable import VFSCore

/// A folder under the temporary directory for one test, removed (read-only parts
/// included) when the test ends.
final class TestFolder {
    let path: String

    init(_ prefix: String) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("vfs-\(prefix)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { StagingFolder.remove(path) }

    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let file = path + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return file
    }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String { try write(name, Array(text.utf8)) }

    func read(_ name: String) throws -> String { try String(contentsOfFile: path + "/" + name, encoding: .utf8) }

    /// Names in the folder (or in `sub` below it), sorted.
    func listing(_ sub: String = "") throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: sub.isEmpty ? path : path + "/" + sub).sorted()
    }
}
