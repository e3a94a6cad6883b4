import Foundation
import Testing
import VFSTestSupport

/// Issue 50, item 2: a replaced, moved or removed cloud file keeps its versions; log, get
/// --at/--version, trash and restore -r --at reach them, through the release tools, on
/// SQLite and PostgreSQL.
@Suite("vfs-cloud versions end to end", .serialized)
struct CloudHistoryTests {
    func ok(_ run: Run, _ what: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == 0, "\(what): \(run.stderr)", sourceLocation: sourceLocation)
    }

    /// Every file and folder under `folder`, by its path inside it: a file's bytes, nil for a folder.
    func tree(_ folder: String) -> [String: Data?] {
        var out = [String: Data?]()
        guard let walk = FileManager.default.enumerator(atPath: folder) else { return out }
        while let name = walk.nextObject() as? String {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder) else { continue }
            out[name] = isFolder.boolValue ? .some(nil) : FileManager.default.contents(atPath: folder + "/" + name)
        }
        return out
    }

    @Test("restore -r --at T gives back, byte for byte, the tree as it was at each of three times after edits, moves and removals, in any order; log lists versions with device and time, get --at and --version-id the old bytes, trash the removed files",
          arguments: [false, true])
    func restoreTree(_ postgres: Bool) throws {
        let fleet = try Fleet(database: postgres ? try PostgresCluster.start().newDatabase() : nil)
        let laptop = fleet.laptop, phone = fleet.phone
        var snapshots = 0
        /// The cloud's /proj as get -r brings it down.
        func cloudTree() throws -> [String: Data?] {
            snapshots += 1
            let out = fleet.scratch.path("snapshot-\(snapshots)")
            ok(try laptop.run("vfs-cloud", ["get", "-r", "/proj", "-o", out]), "get -r")
            return tree(out)
        }
        func at(_ date: Date) -> String { "@\(date.timeIntervalSince1970)" }
        func put(_ machine: Machine, _ name: String, _ text: String, _ path: String) throws {
            ok(try machine.run("vfs-cloud", ["put", "-f", try fleet.scratch.write(name, text), path]), "put \(path)")
        }
        try FileManager.default.createDirectory(atPath: fleet.scratch.path("proj/sub"), withIntermediateDirectories: true)
        _ = try fleet.scratch.write("proj/a.txt", "a, first")
        _ = try fleet.scratch.write("proj/sub/b.txt", "b, first")
        _ = try fleet.scratch.write("proj/c.txt", testBytes(70_000, seed: 5))
        ok(try laptop.run("vfs-cloud", ["put", "-r", fleet.scratch.path("proj"), "/"]), "put -r")
        let tree1 = try cloudTree()
        #expect(tree1.keys.sorted() == ["a.txt", "c.txt", "sub", "sub/b.txt"])
        let t1 = Date()

        // Edits (one by the phone), a move, a removal, a new file.
        try put(phone, "a2", "a, second", "/proj/a.txt")
        ok(try laptop.run("vfs-cloud", ["mv", "/proj/sub", "/proj/moved"]))
        ok(try laptop.run("vfs-cloud", ["rm", "/proj/c.txt"]))
        try put(laptop, "d1", "d, new", "/proj/d.txt")
        let tree2 = try cloudTree()
        #expect(tree2.keys.sorted() == ["a.txt", "d.txt", "moved", "moved/b.txt"])
        let t2 = Date()

        // More: an edit of the moved file, a file moved into a new folder, a removal.
        try put(laptop, "b2", "b, second", "/proj/moved/b.txt")
        ok(try laptop.run("vfs-cloud", ["mkdir", "/proj/new"]))
        ok(try laptop.run("vfs-cloud", ["mv", "/proj/a.txt", "/proj/new/a.txt"]))
        ok(try laptop.run("vfs-cloud", ["rm", "/proj/d.txt"]))
        let tree3 = try cloudTree()
        #expect(tree3.keys.sorted() == ["moved", "moved/b.txt", "new", "new/a.txt"])
        let t3 = Date()

        // Then everything goes, and something else comes.
        ok(try laptop.run("vfs-cloud", ["rm", "-r", "-f", "/proj"]))
        ok(try laptop.run("vfs-cloud", ["mkdir", "/proj"]))
        try put(laptop, "e1", "e, after", "/proj/e.txt")

        // The trash holds what was removed; log and get reach every version.
        let trash = try laptop.run("vfs-cloud", ["trash", "--json"])
        ok(trash, "trash")
        let removed = jsonArray(trash)
        #expect(Set(removed.compactMap { $0["path"] as? String }) == ["/proj/c.txt", "/proj/d.txt", "/proj/new/a.txt", "/proj/moved/b.txt"],
                "\(removed)")
        // Each by its last version: a.txt's the phone put (the laptop only moved it).
        for entry in removed {
            #expect(entry["until"] is String && entry["device"] as? String == (entry["path"] as? String == "/proj/new/a.txt" ? phone.id : laptop.id),
                    "\(entry)")
        }
        #expect(try laptop.run("vfs-cloud", ["trash"]).out.contains("/proj/c.txt"))
        #expect(try laptop.run("vfs-cloud", ["get", "/proj/a.txt", "--at", at(t1), "--stdout"]).out == "a, first")
        #expect(try laptop.run("vfs-cloud", ["get", "/proj/a.txt", "--at", at(t2), "--stdout"]).out == "a, second")
        #expect(try laptop.run("vfs-cloud", ["get", "/proj/a.txt", "--at", at(t3), "--stdout"]).status == 66)
        #expect(try laptop.run("vfs-cloud", ["get", "/proj/c.txt", "--at", at(t1), "--stdout"]).stdout == Data(testBytes(70_000, seed: 5)))
        let log = try laptop.run("vfs-cloud", ["log", "--json", "/proj/moved/b.txt"])
        ok(log, "log")
        let versions = jsonArray(log)
        #expect(versions.count == 2 && versions.allSatisfy { $0["until"] is String && $0["since"] is String })
        #expect(versions.allSatisfy { $0["device"] as? String == laptop.id })
        let first = try #require(versions.last?["version"] as? String)
        #expect(try laptop.run("vfs-cloud", ["get", "/proj/moved/b.txt", "--version-id", first, "--stdout"]).out == "b, first")
        let aLog = try laptop.run("vfs-cloud", ["log", "/proj/a.txt"])
        #expect(aLog.out.split(separator: "\n").count == 2 && aLog.out.contains("\tphone\t") && aLog.out.contains("\tlaptop\t"), "\(aLog.out)")
        #expect(try laptop.run("vfs-cloud", ["log", "/proj/none"]).status == 66)
        #expect(try laptop.run("vfs-cloud", ["get", "/proj/x", "--version-id", "none", "--stdout"]).status == 66)
        // An old version's get records no base: a put without -f still refuses to replace.
        let kept = fleet.scratch.path("kept.txt")
        ok(try phone.run("vfs-cloud", ["get", "/proj/e.txt", "--at", "@\(Date().timeIntervalSince1970)", "-o", kept]))
        #expect(try phone.run("vfs-cloud", ["put", kept, "/proj/e.txt"]).status == 73)

        // Each time, in any order, restores exactly its tree (files, their bytes, folders).
        for (time, expected) in [(t1, tree1), (t3, tree3), (t2, tree2), (t1, tree1)] {
            ok(try laptop.run("vfs-cloud", ["restore", "-r", "/proj", "--at", at(time)]), "restore at \(time)")
            #expect(try cloudTree() == expected)
        }
        // Nothing changed since: a restore to the same time changes nothing, says nothing.
        let again = try laptop.run("vfs-cloud", ["restore", "-r", "/proj", "--at", at(t1)])
        ok(again)
        #expect(again.out.isEmpty)
        // A single file; a folder without -r; a bad time; a time with nothing there.
        let single = try laptop.run("vfs-cloud", ["restore", "/proj/a.txt", "--at", at(t2)])
        #expect(single.out == "restored /proj/a.txt\n", "\(single.stderr)")
        #expect(try laptop.run("vfs-cloud", ["get", "/proj/a.txt", "--stdout"]).out == "a, second")
        #expect(try laptop.run("vfs-cloud", ["restore", "/proj", "--at", at(t1)]).status == 64)
        #expect(try laptop.run("vfs-cloud", ["restore", "/proj", "--at", "yesterday"]).status == 64)
        #expect(try laptop.run("vfs-cloud", ["restore", "/nothing", "--at", at(t1)]).status == 66)
        // The trash is empty of what came back; bob sees none of it.
        #expect(try fleet.desktop.run("vfs-cloud", ["trash", "--json"]).out.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
        #expect(try fleet.desktop.run("vfs-cloud", ["log", "/proj/a.txt"]).status == 66)
    }

    @Test("rekey covers the history (issue 50, item 4): once the phone is removed from the chain and the laptop rekeys, no kept version (replaced, moved, removed) fetched with get --raw --version-id opens with the phone's identity (each did before), nor does a version written since; each blob is rewritten once and the old ones are released; get --version-id still gives every version's bytes",
          arguments: [false, true])
    func rekeyHistory(_ postgres: Bool) throws {
        let fleet = try Fleet(database: postgres ? try PostgresCluster.start().newDatabase() : nil)
        let laptop = fleet.laptop
        func blobFiles(_ fleet: Fleet) -> [URL] {
            fleet.storedFiles().filter { $0.deletingLastPathComponent().lastPathComponent == "blobs" }
        }
        func put(_ text: String, _ path: String) throws {
            ok(try laptop.run("vfs-cloud", ["put", "-f", try fleet.scratch.write("in-\(text)", text), path]), "put \(path)")
        }
        try put("notes one", "/notes.txt")
        try put("notes two", "/notes.txt")
        try put("notes three", "/notes.txt")
        ok(try laptop.run("vfs-cloud", ["mv", "/notes.txt", "/kept.txt"]))
        try put("gone", "/gone.txt")
        ok(try laptop.run("vfs-cloud", ["rm", "/gone.txt"]))
        let phoneKey = fleet.scratch.path("phone-key.txt")
        try fleet.phone.exportIdentity(to: phoneKey)
        var fetched = 0
        /// Each kept version of `path` as get --raw --version-id fetches it, with what the laptop decrypts it to.
        func versions(_ path: String) throws -> [(ciphertext: String, text: String)] {
            try jsonArray(try laptop.run("vfs-cloud", ["log", path, "--json"])).map { entry in
                let id = try #require(entry["version"] as? String)
                fetched += 1
                let raw = fleet.scratch.path("raw-\(fetched).age"), plain = fleet.scratch.path("plain-\(fetched).txt")
                ok(try laptop.run("vfs-cloud", ["get", path, "--version-id", id, "--raw", "-o", raw]), "get --raw \(id)")
                ok(try laptop.run("vfs-cloud", ["get", path, "--version-id", id, "-o", plain]), "get \(id)")
                return (raw, String(decoding: try Data(contentsOf: URL(fileURLWithPath: plain)), as: UTF8.self))
            }
        }
        func phoneOpens(_ file: String) throws -> Bool {
            fetched += 1
            return try Tools.run("vfs-decrypt", ["-i", phoneKey, "-o", fleet.scratch.path("phone-\(fetched)"), file]).status == 0
        }
        // The file's rows (its head, the row at its old path, its two earlier contents), the removed file's.
        let texts = ["notes three", "notes three", "notes two", "notes one", "gone"]
        let before = try versions("/kept.txt") + versions("/gone.txt")
        #expect(before.map(\.text) == texts)
        #expect(try before.allSatisfy { try phoneOpens($0.ciphertext) })
        let blobsBefore = Set(blobFiles(fleet))
        #expect(blobsBefore.count == 4)

        ok(try laptop.run("vfs-device", ["revoke", "phone"]))
        let rekey = try laptop.run("vfs-cloud", ["rekey"])
        ok(rekey, "rekey")
        #expect(rekey.stderr.contains("rekeyed 1 file and 3 earlier versions for "), "\(rekey.stderr)")
        // (a) Every version kept: the same bytes for the laptop, nothing for the phone's key.
        let after = try versions("/kept.txt") + versions("/gone.txt")
        #expect(after.map(\.text) == texts)
        #expect(try after.allSatisfy { try !phoneOpens($0.ciphertext) })
        // Each of the four blobs rewritten once (the moved head's two rows share the new one), the old ones gone.
        let blobsAfter = Set(blobFiles(fleet))
        #expect(blobsAfter.count == 4 && blobsAfter.isDisjoint(with: blobsBefore))
        #expect(try blobsAfter.allSatisfy { try !phoneOpens($0.path) })

        // (b) A version written after the removal, replaced since: the phone's key does not open it.
        try put("notes four", "/kept.txt")
        try put("notes five", "/kept.txt")
        let later = try versions("/kept.txt")
        #expect(later.prefix(2).map(\.text) == ["notes five", "notes four"])
        #expect(try later.allSatisfy { try !phoneOpens($0.ciphertext) })
    }

    @Test("vfs-relay org set --cloud-versions: staggered until set; days:N, all, none and 0 set and shown (text and --json); anything else is 64 with one line and a hint, an unknown organisation 66")
    func organisationVersionPolicy() throws {
        let folder = try TestFolder()
        let admin = RelayAdmin(data: folder.url.appendingPathComponent("data"))
        _ = try admin.addUser("alice@acme.example", org: "acme")
        func shown() throws -> String? {
            let show = try admin.run(["org", "show", "acme", "--json"])
            #expect(show.status == 0, "\(show.stderr)")
            return try (JSONSerialization.jsonObject(with: Data(show.out.utf8)) as? [String: Any])?["cloudVersions"] as? String
        }
        #expect(try shown() == "staggered")
        #expect(try admin.run(["org", "show", "acme"]).out.contains("cloud versions kept: staggered (every version for a day, the newest of each day for 30 days, of each week for a year)"))
        for (given, stored) in [("days:90", "days:90"), ("all", "all"), ("0", "none"), ("days:1", "days:1"), ("none", "none"), ("staggered", "staggered")] {
            let set = try admin.run(["org", "set", "acme", "--cloud-versions", given])
            #expect(set.status == 0, "\(given): \(set.stderr)")
            #expect(try shown() == stored, "\(given)")
        }
        #expect(try admin.run(["org", "show", "acme"]).out.contains("cloud versions kept: staggered"))
        for bad in ["days:0", "days:3651", "days:x", "weekly", ""] {
            let refused = try admin.run(["org", "set", "acme", "--cloud-versions", bad])
            let lines = refused.stderr.split(separator: "\n")
            #expect(refused.status == 64 && lines.count == 2 && lines.first?.contains("--cloud-versions takes") == true
                    && lines.last?.hasPrefix("vfs-relay: hint: ") == true, "\(bad): \(refused.stderr)")
        }
        #expect(try shown() == "staggered")
        #expect(try admin.run(["org", "set", "nowhere", "--cloud-versions", "all"]).status == 66)
    }
}
