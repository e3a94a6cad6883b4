import Foundation
import Testing
import VFSTestSupport
@testable import VFSCore

/// A test folder with a policy path in it.
final class PolicyFolder {
    let folder: TestFolder
    init() throws { folder = try TestFolder("policy") }
    var url: URL { folder.url }
    var policy: String { folder.path("policy.json") }
    var store: PolicyStore { PolicyStore(path: policy) }
    func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }
    func write(_ text: String) throws { try folder.write("policy.json", text) }
    func listing() throws -> [String] { try folder.listing() }
}

@Suite("policy store")
struct PolicyStoreTests {
    let alice = PolicyActor(user: "alice", uid: 1000)
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("a missing policy denies and loads empty; nothing is created by reading")
    func missing() throws {
        let folder = try PolicyFolder()
        #expect(try folder.store.decide(PolicyRequest(app: "evince")) ==
                .denied(PolicyDenial(reason: .notApproved, app: "evince", itemID: nil, message: "\"evince\" is not an approved app")))
        #expect(try folder.store.load() == PolicyDocument())
        let inMissingFolder = PolicyStore(path: folder.url.appendingPathComponent("no/such/policy.json").path)
        #expect(try !inMissingFolder.decide(PolicyRequest(app: "evince")).isAllowed)
        #expect(try folder.listing() == [])
    }

    @Test("add, update, remove: the file is readable JSON, sorted, with a format version, and each change is logged")
    func changes() throws {
        let folder = try PolicyFolder()
        let store = folder.store
        let viewer = try store.add(app: "com.example.viewer", PolicyEdit(name: "Viewer", groups: ["finance"], types: ["PDF", ".txt"]),
                                   by: alice, now: Self.t0 + 0.7)
        #expect(viewer.types == ["pdf", "txt"])
        #expect(viewer.created == Self.t0)
        #expect(viewer.id.count == 8 && viewer.id.allSatisfy(\.isHexDigit))
        try store.add(app: "evince", PolicyEdit(), by: alice, now: Self.t0)
        let text = try folder.text(folder.policy)
        #expect(text.hasPrefix("{\n"))
        #expect(text.hasSuffix("}\n"))
        #expect(text.contains("\"version\" : 1"))
        #expect(text.contains("\"created\" : \"2027-01-15T08:00:00Z\""))
        let viewerAt = try #require(text.range(of: "com.example.viewer")), evinceAt = try #require(text.range(of: "\"evince\""))
        #expect(viewerAt.lowerBound < evinceAt.lowerBound)
        #expect(try store.decide(PolicyRequest(app: "com.example.viewer", group: "finance", fileType: "pdf")).isAllowed)

        let (updated, changed) = try store.update(viewer.id, PolicyEdit(groups: ["finance", "legal"], enabled: false), by: alice, now: Self.t0 + 60)
        #expect(changed == ["groups", "enabled"])
        #expect(updated.updated == Self.t0 + 60 && updated.created == Self.t0)
        #expect(try store.load().item(forApp: "com.example.viewer")?.groups == ["finance", "legal"])
        let (_, none) = try store.update("com.example.viewer", PolicyEdit(enabled: false), by: alice)
        #expect(none.isEmpty)
        let (cleared, _) = try store.update("com.example.viewer", PolicyEdit(groups: [], expires: .some(Self.t0 + 86400)), by: alice)
        #expect(cleared.groups.isEmpty && cleared.expires == Self.t0 + 86400)
        let (noExpiry, fields) = try store.update("com.example.viewer", PolicyEdit(expires: .some(nil)), by: alice)
        #expect(noExpiry.expires == nil && fields == ["expires"])

        let loaded = try store.load()
        #expect(loaded.item(matching: viewer.id)?.app == "com.example.viewer")
        #expect(loaded.item(matching: "evince")?.app == "evince")
        #expect(loaded.item(matching: "evinc") == nil)
        #expect(try store.remove("evince", by: alice).app == "evince")
        #expect(throws: PolicyError.noSuchItem("evince")) { try store.remove("evince", by: alice) }
        #expect(throws: PolicyError.noSuchItem("nope")) { try store.update("nope", PolicyEdit(name: "x"), by: alice) }
        #expect(throws: PolicyError.alreadyApproved(app: "com.example.viewer", id: viewer.id)) {
            try store.add(app: "com.example.viewer", PolicyEdit(), by: alice)
        }

        let log = try store.log()
        #expect(log.map(\.action) == [.add, .add, .update, .update, .update, .remove])
        #expect(log.allSatisfy { $0.user == "alice" && $0.uid == 1000 })
        #expect(log[2].fields == ["groups", "enabled"] && log[2].id == viewer.id && log[2].time == Self.t0 + 60)
        let logText = try folder.text(store.logPath)
        #expect(logText.split(separator: "\n").count == 6)
        #expect(try folder.listing() == ["policy.json", "policy.json.lock", "policy.json.log"])
    }

    @Test("bad values are refused before anything is written")
    func invalidValues() throws {
        let folder = try PolicyFolder()
        for app in ["", "-rf", ".hidden", "two words", "a/b", "é"] {
            #expect(throws: PolicyError.self, "\(app)") { try folder.store.add(app: app, PolicyEdit(), by: alice) }
        }
        #expect(throws: PolicyError.self) { try folder.store.add(app: "x", PolicyEdit(groups: ["a b"]), by: alice) }
        #expect(throws: PolicyError.self) { try folder.store.add(app: "x", PolicyEdit(types: ["p.df"]), by: alice) }
        #expect(!FileManager.default.fileExists(atPath: folder.policy))
    }

    @Test("ids resolve unambiguously: an app never equals another item's id")
    func ambiguity() throws {
        let folder = try PolicyFolder()
        let first = try folder.store.add(app: "first", PolicyEdit(), by: alice)
        #expect(throws: PolicyError.self) { try folder.store.add(app: first.id, PolicyEdit(), by: alice) }
        // A hand-edited file that makes an app and an id collide is refused, naming the line.
        try folder.write("""
        {
          "items" : [
            { "id" : "aaaa0001", "app" : "bbbb0002", "created" : "2027-01-01T00:00:00Z", "updated" : "2027-01-01T00:00:00Z" },
            { "id" : "bbbb0002", "app" : "other", "created" : "2027-01-01T00:00:00Z", "updated" : "2027-01-01T00:00:00Z" }
          ],
          "version" : 1
        }
        """)
        #expect(throws: PolicyError.corrupt(file: folder.policy, line: 3, column: nil,
                                            reason: "items[0].app: app \"bbbb0002\" is also the id of item 1, so it would be ambiguous")) {
            try folder.store.load()
        }
    }

    @Test("8 writers x 25 adds at once: nothing lost, every add logged")
    func concurrentAdds() async throws {
        let folder = try PolicyFolder()
        let path = folder.policy
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    // Each writer its own store (its own lock descriptor), as separate processes would have.
                    let store = PolicyStore(path: path)
                    for n in 0..<25 { try store.add(app: "app-\(writer)-\(n)", PolicyEdit(), by: PolicyActor(user: "w\(writer)", uid: 1)) }
                }
            }
            try await group.waitForAll()
        }
        let items = try PolicyStore(path: path).load().items
        #expect(items.count == 200)
        #expect(Set(items.map(\.app)).count == 200)
        #expect(Set(items.map(\.id)).count == 200)
        #expect(try PolicyStore(path: path).log().count == 200)
    }

    @Test("export and import: round trip, merge by app, replace")
    func importExport() throws {
        let a = try PolicyFolder(), b = try PolicyFolder()
        try a.store.add(app: "evince", PolicyEdit(name: "Evince", types: ["pdf"], expires: .some(Self.t0)), by: alice, now: Self.t0 - 100)
        try a.store.add(app: "com.example.viewer", PolicyEdit(groups: ["finance"], enabled: false), by: alice, now: Self.t0 - 50)
        let exported = PolicyCodec.encode(try a.store.load())

        // Round trip into an empty store: the same document, byte for byte.
        let incoming = try PolicyCodec.decode(exported, source: "export.json")
        #expect(try b.store.importDocument(incoming, replace: false, source: "export.json", by: alice) == PolicyImportSummary(added: 2))
        #expect(PolicyCodec.encode(try b.store.load()) == exported)
        #expect(try b.store.importDocument(incoming, replace: false, source: "export.json", by: alice) == PolicyImportSummary(unchanged: 2))

        // Merge: a changed app keeps its local id; a local-only app stays.
        let local = try b.store.add(app: "okular", PolicyEdit(), by: alice)
        var changed = incoming
        changed.items[changed.items.firstIndex { $0.app == "evince" }!].types = ["pdf", "epub"]
        changed.items[changed.items.firstIndex { $0.app == "evince" }!].id = "ffff0000"
        let merge = try b.store.importDocument(changed, replace: false, source: "changed.json", by: alice, now: Self.t0 + 5)
        #expect(merge == PolicyImportSummary(updated: 1, unchanged: 1))
        let merged = try b.store.load()
        #expect(merged.items.map(\.app) == ["com.example.viewer", "evince", "okular"])
        #expect(merged.item(forApp: "evince")?.types == ["pdf", "epub"])
        #expect(merged.item(forApp: "evince")?.id == incoming.item(forApp: "evince")?.id)
        #expect(merged.item(forApp: "evince")?.updated == Self.t0 + 5)
        #expect(merged.item(forApp: "okular") == local)

        // Replace: the policy becomes the file.
        let replaced = try b.store.importDocument(incoming, replace: true, source: "export.json", by: alice)
        #expect(replaced == PolicyImportSummary(added: 0, updated: 1, removed: 1, unchanged: 1))
        #expect(PolicyCodec.encode(try b.store.load()) == exported)
        let log = try b.store.log()
        #expect(log.last?.action == .remove && log.last?.app == "okular" && log.last?.via == "import export.json")
    }

    @Test("import: an id taken locally gets a fresh one; a clash of app and id refuses and writes nothing")
    func importClashes() throws {
        let folder = try PolicyFolder()
        let mine = try folder.store.add(app: "mine", PolicyEdit(), by: alice)
        let before = try folder.text(folder.policy)
        let sameID = PolicyDocument(items: [PolicyItem(id: mine.id, app: "theirs", created: Self.t0, updated: Self.t0)])
        #expect(try folder.store.importDocument(sameID, replace: false, source: "x", by: alice).added == 1)
        let theirs = try #require(try folder.store.load().item(forApp: "theirs"))
        #expect(theirs.id != mine.id)

        let after = try folder.text(folder.policy)
        let clash = PolicyDocument(items: [PolicyItem(id: "abcdef12", app: theirs.id, created: Self.t0, updated: Self.t0)])
        #expect(throws: PolicyError.importConflict(source: "y", reason: "app \"\(theirs.id)\" is also the id of item 1, so it would be ambiguous")) {
            try folder.store.importDocument(clash, replace: false, source: "y", by: alice)
        }
        #expect(try folder.text(folder.policy) == after)
        #expect(before != after)
    }
}

@Suite("policy file parsing")
struct PolicyCodecTests {
    static let valid = """
    {
      "items" : [
        {
          "app" : "evince",
          "created" : "2027-01-01T00:00:00Z",
          "enabled" : true,
          "groups" : [],
          "id" : "0a1b2c3d",
          "name" : "Evince",
          "types" : [
            "pdf"
          ],
          "updated" : "2027-01-02T00:00:00Z"
        }
      ],
      "version" : 1
    }

    """

    static func corruption(_ text: String) -> PolicyError? {
        do { _ = try PolicyCodec.decode(Array(text.utf8), source: "p.json"); return nil } catch { return error as? PolicyError }
    }

    static func line(_ text: String) -> Int? {
        if case let .corrupt(_, line, _, _) = corruption(text) { return line }
        return nil
    }

    @Test("the encoder's output is what a person reads, and parses back to itself")
    func canonical() throws {
        let doc = try PolicyCodec.decode(Array(Self.valid.utf8), source: "p.json")
        #expect(doc.items.count == 1)
        #expect(String(decoding: PolicyCodec.encode(doc), as: UTF8.self) == Self.valid)
    }

    @Test("an empty or blank file is a damaged policy (a truncated write), not an empty one, and is never replaced")
    func emptyFile() throws {
        for text in ["", "  \n", "\r\n\t"] {
            #expect(Self.line(text) == 1, "\(text.debugDescription)")
        }
        let folder = try PolicyFolder()
        try Data().write(to: URL(fileURLWithPath: folder.policy))
        #expect(throws: PolicyError.self) { try folder.store.add(app: "viewer", PolicyEdit()) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.policy)).isEmpty)
    }

    @Test("syntax errors name the line and column")
    func syntax() {
        var broken = Self.valid.replacingOccurrences(of: "\"enabled\" : true,", with: "\"enabled\" : true")
        #expect(Self.corruption(broken) == .corrupt(file: "p.json", line: 7, column: 7, reason: "not valid JSON: unexpected '\"', expected ',' or '}'"))
        broken = Self.valid.replacingOccurrences(of: "\"pdf\"", with: "'pdf'")
        #expect(Self.line(broken) == 11)
        broken = Self.valid.replacingOccurrences(of: "\"version\" : 1", with: "\"version\" : 01")
        #expect(Self.line(broken) == 16)
        broken = String(Self.valid.dropLast(4))
        #expect(Self.line(broken) == 16)
        #expect(Self.line("{\"version\": 1, \"items\": [], \"version\": 1}") == 1)
        #expect(Self.line("{\n\"items\": [],\n\"version\": 1,\n}") == 4)
        #expect(Self.line("[1, 2]\n[3]") == 2)
        #expect(Self.line("{\"a\": \"x\ny\"}") == 1)
        // Escapes: a key spelled with \u escapes is the same key; escaped quotes stay inside the string.
        #expect(Self.corruption("{\"version\": 1,\n\"items\": [],\n\"\\u0069tems\": []}") ==
                .corrupt(file: "p.json", line: 3, column: 1, reason: "not valid JSON: duplicate key \"items\""))
        #expect(Self.line("{\"version\": 1, \"items\": [], \"x\": \"a\\\"b\\u00e9\\n\",\n\"y\": \"\\q\"}") == 2)
        #expect(Self.line("{\"version\": 1, \"items\": [], \"x\": \"\\ud83d\\ude00\"\n,}") == 2)
    }

    @Test("wrong types, missing keys, unknown keys and broken rules name the line of the value")
    func structure() {
        #expect(Self.corruption(Self.valid.replacingOccurrences(of: "\"enabled\" : true", with: "\"enabled\" : \"yes\"")) ==
                .corrupt(file: "p.json", line: 6, column: nil, reason: "items[0].enabled: expected true or false"))
        #expect(Self.line(Self.valid.replacingOccurrences(of: "\"groups\"", with: "\"group\"")) == 7)
        #expect(Self.line(Self.valid.replacingOccurrences(of: "\"app\" : \"evince\",\n", with: "")) == 3)
        #expect(Self.line(Self.valid.replacingOccurrences(of: "2027-01-02T00:00:00Z", with: "yesterday")) == 13)
        #expect(Self.line(Self.valid.replacingOccurrences(of: "\"pdf\"", with: "\"PDF\"")) == 11)
        #expect(Self.line(Self.valid.replacingOccurrences(of: "\"evince\"", with: "\"my app\"")) == 4)
        #expect(Self.line(Self.valid.replacingOccurrences(of: "\"0a1b2c3d\"", with: "\"\"")) == 8)
        if case let .corrupt(_, line, _, reason) = Self.corruption(Self.valid.replacingOccurrences(of: "\"version\" : 1", with: "\"version\" : 2")) {
            #expect(line == 16)
            #expect(reason.contains("unsupported policy format version 2"))
        } else {
            Issue.record("version 2 accepted")
        }
        #expect(Self.corruption("[]") != nil)
        #expect(Self.corruption("{\"version\": 1}") != nil)
    }

    @Test("the locator finds the value of a path")
    func locator() {
        let bytes = Array(Self.valid.utf8)
        #expect(JSONLocator.line(of: [.key("items"), .index(0), .key("types"), .index(0)], in: bytes) == 11)
        #expect(JSONLocator.line(of: [.key("version")], in: bytes) == 16)
        #expect(JSONLocator.line(of: [.key("items"), .index(3)], in: bytes) == nil)
        #expect(JSONLocator.line(of: [], in: bytes) == 1)
    }
}
