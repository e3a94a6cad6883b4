import Foundation

/// A folder under the temporary directory for one test, removed (read-only parts
/// included) when the test ends.
public final class TestFolder: @unchecked Sendable {
    public let url: URL
    public var path: String { url.path }

    public init(_ prefix: String = "test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("vfs-\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { Self.remove(path) }

    /// Removes `path` and everything below it, making folders writable first (tests
    /// leave read-only folders behind on purpose).
    public static func remove(_ path: String) {
        let manager = FileManager.default
        if let walker = manager.enumerator(atPath: path) {
            for case let name as String in walker {
                let full = path + "/" + name
                var isFolder: ObjCBool = false
                if manager.fileExists(atPath: full, isDirectory: &isFolder), isFolder.boolValue {
                    chmod(full, 0o700)
                }
            }
        }
        chmod(path, 0o700)
        try? manager.removeItem(atPath: path)
    }

    /// The path of `name` inside the folder.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    @discardableResult
    public func write(_ name: String, _ data: Data) throws -> String {
        let file = path(name)
        try data.write(to: URL(fileURLWithPath: file))
        return file
    }

    @discardableResult
    public func write(_ name: String, _ bytes: [UInt8]) throws -> String { try write(name, Data(bytes)) }

    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String { try write(name, Data(text.utf8)) }

    public func read(_ name: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path(name))) }

    public func text(_ name: String) throws -> String { String(decoding: try read(name), as: UTF8.self) }

    public func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path(name)) }

    /// Names in the folder (or in `sub` below it), hidden ones included, sorted.
    public func listing(_ sub: String = "") throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: sub.isEmpty ? path : path(sub)).sorted()
    }
}

/// Base64 text of `count` bytes (lines of 76): what a log or a dump is to zstd, which
/// saves a quarter of it and more; built from `testBytes`, so only the alphabet repeats.
public func base64Text(_ count: Int, seed: UInt64 = 1) -> Data {
    testBytes(count * 3 / 4 + 3, seed: seed).base64EncodedData(options: .lineLength76Characters).prefix(count)
}

/// Deterministic pseudo-random bytes for test inputs (xorshift from `seed`).
public func testBytes(_ count: Int, seed: UInt64 = 1) -> Data {
    var state = seed &* 0x9E3779B97F4A7C15 | 1
    var out = [UInt8](repeating: 0, count: count)
    for i in 0..<count {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        out[i] = UInt8(truncatingIfNeeded: state)
    }
    return Data(out)
}

/// The bytes of a hexadecimal string (test vectors); traps on anything else.
public func hexBytes(_ s: String) -> [UInt8] {
    var out: [UInt8] = []
    var i = s.startIndex
    while i < s.endIndex { let j = s.index(i, offsetBy: 2); out.append(UInt8(s[i..<j], radix: 16)!); i = j }
    return out
}
