import Foundation
import Testing
import VFSTestSupport

/// Issue 50: a put names the version it replaces; one based on a version another device
/// replaced meanwhile is kept beside as a conflict copy, never lost.
@Suite("vfs-cloud conflicts end to end", .serialized)
struct CloudConflictTests {
    func ok(_ run: Run, _ what: String = "") {
        #expect(run.status == 0, "\(what): \(run.stderr)")
    }

    @Test("two devices edit the same file from the same version and put it back: both versions survive, the second put exits 3 saying so, conflicts --json lists the pair; a put of the version a device made, --base and -f replace; rm resolves")
    func twoDevicesEditOneFile() throws {
        let fleet = try Fleet()
        let laptop = fleet.laptop, phone = fleet.phone
        ok(try laptop.run("vfs-cloud", ["mkdir", "/docs"]))
        ok(try laptop.run("vfs-cloud", ["put", try fleet.scratch.write("v1.txt", "first"), "/docs/notes.txt"]), "put v1")
        let onLaptop = fleet.scratch.path("laptop-notes.txt"), onPhone = fleet.scratch.path("phone-notes.txt")
        ok(try laptop.run("vfs-cloud", ["get", "/docs/notes.txt", "-o", onLaptop]), "laptop gets v1")
        ok(try phone.run("vfs-cloud", ["get", "/docs/notes.txt", "-o", onPhone]), "phone gets v1")
        _ = try fleet.scratch.write("laptop-notes.txt", "the laptop's edit")
        _ = try fleet.scratch.write("phone-notes.txt", "the phone's edit")

        // The laptop puts first: based on v1, still the head, so it replaces it.
        ok(try laptop.run("vfs-cloud", ["put", onLaptop, "/docs/notes.txt"]), "laptop puts")
        // The phone's put is based on v1 too, no longer the head: kept beside, exit 3.
        let second = try phone.run("vfs-cloud", ["put", onPhone, "/docs/notes.txt"])
        #expect(second.status == 3, "\(second.stderr)")
        #expect(second.stderr.contains("vfs-cloud: error: \"/docs/notes.txt\" changed on the relay since this device got it: this put is kept as \"/docs/notes (conflict phone "),
                "\(second.stderr)")
        #expect(second.stderr.contains("vfs-cloud: hint: \"vfs-cloud conflicts\" lists every conflict copy"))

        // Both versions survive: the laptop's at the path, the phone's in the copy.
        #expect(try phone.run("vfs-cloud", ["get", "/docs/notes.txt", "--stdout"]).out == "the laptop's edit")
        let names = try laptop.run("vfs-cloud", ["ls", "/docs"]).out.split(separator: "\n").map(String.init)
        #expect(names.count == 2 && names.last == "notes.txt")
        let copyName = try #require(names.first)
        #expect(copyName.hasPrefix("notes (conflict phone ") && copyName.hasSuffix(").txt"))
        let copy = "/docs/" + copyName
        #expect(try laptop.run("vfs-cloud", ["get", copy, "--stdout"]).out == "the phone's edit")

        // conflicts lists the pair, in JSON and as tab-separated lines.
        let listed = try laptop.run("vfs-cloud", ["conflicts", "--json"])
        ok(listed)
        let pairs = jsonArray(listed)
        #expect(pairs.count == 1)
        #expect(pairs.first?["path"] as? String == "/docs/notes.txt" && pairs.first?["exists"] as? Bool == true)
        let copies = pairs.first?["conflicts"] as? [[String: Any]] ?? []
        #expect(copies.count == 1 && copies.first?["path"] as? String == copy && copies.first?["device"] as? String == "phone")
        #expect((copies.first?["date"] as? String ?? "").count == 17)
        #expect(try laptop.run("vfs-cloud", ["conflicts", "/docs"]).out == "/docs/notes.txt\t\(copy)\n")

        // The laptop's next put is based on the version it made: it replaces it.
        _ = try fleet.scratch.write("laptop-notes.txt", "the laptop's second edit")
        ok(try laptop.run("vfs-cloud", ["put", onLaptop, "/docs/notes.txt"]), "laptop puts again")
        // The tablet never got it: 73 as before; a stale --base is a conflict; the head's replaces.
        let tablet = fleet.tablet
        let other = try fleet.scratch.write("tablet.txt", "the tablet's")
        let refused = try tablet.run("vfs-cloud", ["put", other, "/docs/notes.txt"])
        #expect(refused.status == 73 && refused.stderr.contains("get it first"), "\(refused.stderr)")
        let entries = jsonArray(try tablet.run("vfs-cloud", ["ls", "--json", "/docs/notes.txt"]))
        let head = try #require(entries.first?["version"] as? String)
        #expect(try tablet.run("vfs-cloud", ["put", "--base", "stale-version", other, "/docs/notes.txt"]).status == 3)
        ok(try tablet.run("vfs-cloud", ["put", "--base", head, other, "/docs/notes.txt"]), "put --base HEAD")
        #expect(try laptop.run("vfs-cloud", ["get", "/docs/notes.txt", "--stdout"]).out == "the tablet's")
        #expect(try tablet.run("vfs-cloud", ["put", "-f", "--base", head, other, "/docs/notes.txt"]).status == 64)
        // -f replaces whatever version is there.
        ok(try phone.run("vfs-cloud", ["put", "-f", onPhone, "/docs/notes.txt"]), "put -f")
        #expect(try laptop.run("vfs-cloud", ["get", "/docs/notes.txt", "--stdout"]).out == "the phone's edit")

        // Resolved: the copies go, and conflicts lists nothing.
        let leftCopies = jsonArray(try laptop.run("vfs-cloud", ["conflicts", "--json"])).flatMap { ($0["conflicts"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String } }
        #expect(leftCopies.count == 2)
        ok(try laptop.run("vfs-cloud", ["rm"] + leftCopies))
        let none = try laptop.run("vfs-cloud", ["conflicts"])
        #expect(none.status == 0 && none.out.isEmpty)
        #expect(try laptop.run("vfs-cloud", ["conflicts", "--json"]).out == "[]\n")
    }

    @Test("a put with a --base that is not the head of a name without an extension: kept as \"NAME (conflict DEVICE DATE)\"")
    func noExtension() throws {
        let fleet = try Fleet()
        ok(try fleet.laptop.run("vfs-cloud", ["put", try fleet.scratch.write("a.txt", "laptop"), "/plan"]))
        let phone = try fleet.phone.run("vfs-cloud", ["put", "--base", "none-yet", try fleet.scratch.write("b.txt", "phone"), "/plan"])
        #expect(phone.status == 3)
        let names = try fleet.laptop.run("vfs-cloud", ["ls", "/"]).out.split(separator: "\n").map(String.init)
        #expect(names.count == 2 && names.first == "plan" && names.last?.hasPrefix("plan (conflict phone ") == true, "\(names)")
    }
}
