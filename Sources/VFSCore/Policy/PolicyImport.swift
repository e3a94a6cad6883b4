#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSPolicyModel

/// Every problem of a file given to `import`, each with its line, found in one pass.
public struct PolicyImportProblems: Error, CustomStringConvertible {
    public let problems: [PolicyError]
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}

/// A file to import, as exported or as written by hand.
public struct PolicyImportFile {
    public var document: PolicyDocument
    /// The apps whose items gave no id (a fresh one was made): on `--replace` such an
    /// item keeps the id and creation time it already has.
    public var handWritten: Set<String>
}

extension PolicyCodec {
    /// Reads a file for `import`: what `export` writes, or items written by hand, which
    /// may leave out `id`, `created` and `updated` (made now), the `version` (or the
    /// whole `{"items": …}`, as a bare list), and write `expires` as `--expires` takes
    /// it (`2027-01-31`, `90d`). Reports every problem at once, each with its line.
    public static func decodeImport(_ bytes: [UInt8], source: String, now: Date = Date()) throws -> PolicyImportFile {
        if bytes.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
            throw PolicyError.corrupt(file: source, line: 1, column: nil, reason: "the file is empty")
        }
        do {
            try JSONLocator.validate(bytes)
        } catch let error as JSONLocator.SyntaxError {
            throw PolicyError.corrupt(file: source, line: error.line, column: error.column, reason: "not valid JSON: \(error.message)")
        }
        let top = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        let rawItems: [JSONValue]
        var itemsPath: [JSONLocator.PathComponent] = [.key("items")]
        if case .array(let list) = top {
            rawItems = list
            itemsPath = []
        } else if case .object(let object) = top {
            for key in object.keys where key != "items" && key != "version" {
                throw PolicyError.corrupt(file: source, line: JSONLocator.line(of: [.key(key)], in: bytes), column: nil,
                                          reason: "unknown key \"\(key)\" (a policy has \"version\" and \"items\")")
            }
            if let version = object["version"], version != .integer(Int64(PolicyDocument.currentVersion)) {
                throw PolicyError.corrupt(file: source, line: JSONLocator.line(of: [.key("version")], in: bytes), column: nil,
                                          reason: "unsupported version \(version) (this toolkit writes \(PolicyDocument.currentVersion))")
            }
            guard case .array(let list)? = object["items"] else {
                throw PolicyError.corrupt(file: source, line: 1, column: nil, reason: "expected \"items\": a list of items")
            }
            rawItems = list
        } else {
            throw PolicyError.corrupt(file: source, line: 1, column: nil, reason: "expected a list of items or {\"items\": […]}")
        }
        var problems = [PolicyError]()
        func problem(_ path: [JSONLocator.PathComponent], _ reason: String) {
            // Lines are found in the file as written; paths are named as a policy's are.
            let line = JSONLocator.line(of: itemsPath + path, in: bytes) ?? JSONLocator.line(of: itemsPath + Array(path.prefix(1)), in: bytes)
            problems.append(.corrupt(file: source, line: line, column: nil, reason: "\(pathText([.key("items")] + path)): \(reason)"))
        }
        let stamp = PolicyDates.format(PolicyStore.wholeSeconds(now))
        var items = [PolicyItem]()
        var handWritten = Set<String>()
        for (n, raw) in rawItems.enumerated() {
            guard case .object(var fields) = raw else { problem([.index(n)], "expected an object"); continue }
            let madeID = fields["id"] == nil
            if madeID { fields["id"] = .string("pending") }
            if fields["created"] == nil { fields["created"] = .string(stamp) }
            if fields["updated"] == nil { fields["updated"] = fields["created"] }
            if case .string(let text)? = fields["expires"], PolicyDates.parseTime(text) == nil {
                do { fields["expires"] = .string(PolicyDates.format(try PolicyDates.parseExpiry(text, now: now))) } catch {
                    problem([.index(n), .key("expires")], "invalid expiry \"\(text)\" (a date such as 2027-01-31, an ISO 8601 time, or a duration such as 90d)")
                    continue
                }
            }
            let item: PolicyItem
            do {
                let data = try JSONEncoder().encode(fields)
                item = try decoder().decode(PolicyItem.self, from: data)
            } catch let error as DecodingError {
                let (path, reason) = explain(error)
                problem([.index(n)] + path, reason)
                continue
            }
            do {
                try PolicyRules.check(PolicyDocument(items: [item]))
            } catch {
                problem([.index(n)] + error.path.dropFirst(2), error.reason)
                continue
            }
            if madeID { handWritten.insert(item.app) }
            items.append(item)
        }
        // Ids for the hand-written items, unused by the others.
        for index in items.indices where handWritten.contains(items[index].app) {
            items[index].id = try PolicyStore.newID(in: PolicyDocument(items: items.filter { $0.id != "pending" }))
        }
        // The rules between items (an app or id twice), once each item is sound.
        var document = PolicyDocument(items: items)
        if problems.isEmpty {
            do { try PolicyRules.check(document) } catch {
                problems.append(.corrupt(file: source, line: JSONLocator.line(of: itemsPath + error.path.dropFirst(), in: bytes), column: nil,
                                         reason: "\(pathText(error.path)): \(error.reason)"))
            }
        }
        guard problems.isEmpty else {
            if problems.count == 1 { throw problems[0] }
            throw PolicyImportProblems(problems: problems)
        }
        document.sort()
        return PolicyImportFile(document: document, handWritten: handWritten)
    }
}
