#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCore
import VFSRelayProtocol
#if canImport(Glibc)
import Glibc
#endif

/// The version of each cloud file this device last got or put (issue 50): what its next
/// put of that path is based on, so the relay can refuse it when another device replaced
/// the file meanwhile. One small file per path in `$VFS_HOME/cloud-bases` (named by the
/// path's SHA-256) holding the path and the version: two runs at once never lose each
/// other's. A listing records nothing: having seen a newer version named is not having
/// read it.
package struct CloudBases: Sendable {
    let folder: String

    package init(home: String) { folder = home + "/cloud-bases" }

    func file(_ path: String) -> String { folder + "/" + SHA256.hash(Array(path.utf8)).prefix(16).hexString }

    /// The version this device's last get or put of `path` had.
    package func base(of path: String) -> String? {
        guard let entry = read(file(path)), entry.path == path else { return nil }
        return entry.version
    }

    /// Records `version` as what `path` is based on now (nothing when the relay named none).
    package func record(_ version: String?, for path: String) throws {
        guard let version else { return }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try AtomicOutputFile.write(Array("\(path)\n\(version)\n".utf8), to: file(path), mode: 0o600)
    }

    /// After `rm`: `path` and everything under it are based on nothing.
    package func forget(_ path: String) { rewrite(under: path) { _ in nil } }

    /// After `mv`: what was under `from` is under `to`, at the same versions.
    package func moved(_ from: String, to: String) { rewrite(under: from) { to + $0.dropFirst(from.count) } }

    func read(_ file: String) -> (path: String, version: String)? {
        guard let data = FileManager.default.contents(atPath: file) else { return nil }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        guard lines.count == 2, !lines[1].isEmpty else { return nil }
        return (lines[0], lines[1])
    }

    func rewrite(under root: String, _ newPath: (String) -> String?) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names {
            guard let entry = read(folder + "/" + name),
                  entry.path == root || entry.path.hasPrefix(root == "/" ? "/" : root + "/") else { continue }
            unlink(folder + "/" + name)
            if let path = newPath(entry.path) { try? record(entry.version, for: path) }
        }
    }
}

/// The name a put that lost the race is kept under (issue 50), beside the file another
/// device put first: `report.pdf` → `report (conflict laptop 2026-11-29 135501).pdf`
/// (the date in UTC, to the second).
package enum ConflictName {
    /// One conflict copy: the name it stands beside, the device that put it, and when.
    package struct Parsed: Equatable, Sendable {
        package var original: String
        package var device: String
        package var date: String
    }

    package static func make(_ name: String, device: String, at date: Date) -> String {
        let (stem, ext) = split(name)
        let iso = DateText.iso8601(date)  // 2026-11-29T13:55:01Z
        let parts = iso.dropLast().split(separator: "T")
        let stamp = String(parts[0]) + " " + parts[1].filter { $0 != ":" }
        let mark = " (conflict \(device) \(stamp))"
        // A cloud name holds at most 255 bytes: the stem gives way.
        var kept = stem
        while !kept.isEmpty, kept.utf8.count + mark.utf8.count + ext.utf8.count > 255 { kept.removeLast() }
        return kept + mark + ext
    }

    /// The parts of a conflict copy's name; nil for any other name.
    package static func parse(_ name: String) -> Parsed? {
        let (stem, ext) = split(name)
        guard stem.hasSuffix(")") else { return nil }
        var found: Range<String.Index>?
        var from = stem.startIndex
        while let next = stem[from...].firstRange(of: " (conflict ") {
            found = next
            from = stem.index(after: next.lowerBound)
        }
        guard let open = found else { return nil }
        let inside = stem[open.upperBound..<stem.index(before: stem.endIndex)]
        // DEVICE, a space, YYYY-MM-DD, a space, HHMMSS.
        let words = inside.split(separator: " ", omittingEmptySubsequences: false)
        guard words.count >= 3 else { return nil }
        let day = words[words.count - 2], time = words[words.count - 1]
        let digits = { (text: Substring) in text.allSatisfy { $0.isASCII && $0.isNumber } }
        guard day.count == 10, day.split(separator: "-", omittingEmptySubsequences: false).map(\.count) == [4, 2, 2],
              digits(day.filter { $0 != "-" }[...]), time.count == 6, digits(time) else { return nil }
        let device = words.dropLast(2).joined(separator: " ")
        guard !device.isEmpty else { return nil }
        return Parsed(original: String(stem[..<open.lowerBound]) + ext, device: device, date: "\(day) \(time)")
    }

    /// `report.pdf` → (`report`, `.pdf`); a name without a dot, or whose only dot leads
    /// (`.profile`), has no extension.
    static func split(_ name: String) -> (stem: String, ext: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        return (String(name[..<dot]), String(name[dot...]))
    }
}

/// A put kept as a conflict copy: `path` holds another device's newer version (or none,
/// when it was removed), and this put is stored at `copy`.
package struct CloudConflict: Sendable, Equatable {
    package var path: String
    package var copy: String
    package var reason: String
}

/// `vfs-cloud conflicts`: the conflict copies in a tree, each with the file it stands
/// beside (`exists` false when that was removed since).
package struct ConflictPair: Codable, Equatable, Sendable {
    package struct Copy: Codable, Equatable, Sendable {
        package var path: String
        package var device: String
        package var date: String
    }

    package var path: String
    package var exists: Bool
    package var conflicts: [Copy]

    /// The pairs among `entries` (a listing), by path.
    package static func pairs(_ entries: [CloudEntry]) -> [ConflictPair] {
        let files = Set(entries.filter { $0.kind == .file }.map(\.path))
        var copies: [String: [Copy]] = [:]
        for entry in entries where entry.kind == .file {
            guard let parsed = ConflictName.parse(entry.name) else { continue }
            let original = CloudPath.join(CloudPath.parent(entry.path), parsed.original)
            copies[original, default: []].append(Copy(path: entry.path, device: parsed.device, date: parsed.date))
        }
        return copies.keys.sorted().map { path in
            ConflictPair(path: path, exists: files.contains(path), conflicts: (copies[path] ?? []).sorted { $0.path < $1.path })
        }
    }
}
