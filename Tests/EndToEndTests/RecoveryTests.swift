import Foundation
import Testing
import VFSTestSupport

/// Issue 49 end to end, through the binaries against a live relay: alice's devices store
/// files in the cloud and make a recovery key; every one of them is lost; a clean machine
/// recovers with the written words and an operator's code and reads every file.
@Suite("recovery key: every device lost", .serialized)
struct RecoveryTests {
    func ok(_ run: Run, _ what: String = "") {
        #expect(run.status == 0, "\(what): \(run.stderr)")
    }

    /// The stanza counts of the age files the relay stored since `before`.
    static func newStanzas(_ fleet: Fleet, since before: Set<URL>) -> [Int] {
        SendOnlyDeviceTests.newStanzas(fleet, since: before)
    }

    /// The stanza count of every cloud file the relay holds now.
    static func cloudStanzas(_ fleet: Fleet) -> [Int] {
        fleet.storedFiles().compactMap { SendOnlyDeviceTests.stanzas($0) }.sorted()
    }

    @Test("laptop and phone put files and make a recovery key; all of alice's devices are lost; a clean machine recovers with the printed words and an operator's code, reads every cloud file byte for byte, bob's client takes it as alice's device and a push reaches it; a mistyped word is caught before anything is sent; a revoked recovery key approves nothing (77); no push is ever encrypted to it")
    func everyDeviceLost() throws {
        let fleet = try Fleet()
        let (laptop, phone) = (fleet.laptop, fleet.phone)
        var files: [String: Data] = [:]
        for (n, machine) in [laptop, phone, laptop].enumerated() {
            let content = Data((0..<(5000 * (n + 1))).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n) })
            let path = try fleet.scratch.write("file\(n).bin", content)
            ok(try machine.run("vfs-cloud", ["put", path, "/file\(n).bin"]), "put \(n)")
            files["/file\(n).bin"] = content
        }
        #expect(Self.cloudStanzas(fleet) == [3, 3, 3])

        // The recovery key: printed once, and from then on in every cloud file's header.
        let made = try laptop.run("vfs-device", ["recovery-key"])
        ok(made, "recovery-key")
        let words = made.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(words.split(separator: "-").count == 14, "\(words)")
        #expect(Self.cloudStanzas(fleet) == [4, 4, 4], "rekeyed for the recovery key")
        let listed = try phone.run("vfs-device", ["list", "--json"])
        ok(listed, "list")
        let row = jsonArray(listed).first { $0["name"] as? String == "recovery-key" }
        #expect(row?["status"] as? String == "recovery", "\(listed.out)")
        let later = try fleet.scratch.write("later.txt", Data("stored after the recovery key\n".utf8))
        var before = Set(fleet.storedFiles())
        ok(try phone.run("vfs-cloud", ["put", later, "/later.txt"]), "put after")
        #expect(Self.newStanzas(fleet, since: before) == [4])
        files["/later.txt"] = Data("stored after the recovery key\n".utf8)

        // Never a push's recipient: to a device, --cc-me, and bob's push to alice.
        let note = try fleet.scratch.write("note.txt", Data("a transfer\n".utf8))
        before = Set(fleet.storedFiles())
        ok(try laptop.run("vfs-push", ["-d", "phone", note]), "push -d")
        #expect(Self.newStanzas(fleet, since: before) == [1])
        before = Set(fleet.storedFiles())
        ok(try laptop.run("vfs-push", ["--to", "bob@acme.example", "--cc-me", note]), "push --cc-me")
        #expect(Self.newStanzas(fleet, since: before) == [3], "bob's desktop and alice's two other readers")
        before = Set(fleet.storedFiles())
        ok(try fleet.desktop.run("vfs-push", ["--to", "alice@acme.example", note]), "bob --to alice")
        #expect(Self.newStanzas(fleet, since: before) == [3])

        // Every device of alice's is lost.
        for machine in [laptop, phone, fleet.tablet] { try FileManager.default.removeItem(at: machine.home) }

        // A mistyped character: refused before anything is sent (the code still works after).
        let code = try fleet.admin.invite("alice@acme.example")
        let rescue = try Machine("rescue", in: fleet.scratch)
        var typo = Array(words)
        typo[6] = typo[6] == "Q" ? "R" : "Q"
        let wrongFile = try fleet.scratch.write("typo.txt", Data(String(typo).utf8))
        let refused = try rescue.run("vfs-device", ["recover", "http://127.0.0.1:\(fleet.relay.port)", code, "--name", "rescue",
                                                    "--recovery-key-file", wrongFile])
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("mistyped"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: rescue.home.appendingPathComponent("relay.json").path))

        // Typed back as a person would (lowercase, spaces): enrolled, approved, rekeyed.
        let typed = try fleet.scratch.write("words.txt", Data(words.lowercased().replacingOccurrences(of: "-", with: " ").utf8))
        let recovered = try rescue.run("vfs-device", ["recover", "http://127.0.0.1:\(fleet.relay.port)", code, "--name", "rescue",
                                                      "--recovery-key-file", typed])
        ok(recovered, "recover")
        #expect(recovered.stderr.contains("your recovery key approved this device"), "\(recovered.stderr)")
        for (path, content) in files {
            let got = try rescue.run("vfs-cloud", ["get", path, "--stdout"])
            ok(got, "get \(path)")
            #expect(got.stdout == content, "\(path)")
        }
        // The rescue device removes the lost ones; bob's client takes it as alice's device.
        for lost in ["laptop", "phone", "tablet"] { ok(try rescue.run("vfs-device", ["revoke", "-y", lost]), "revoke \(lost)") }
        before = Set(fleet.storedFiles())
        ok(try fleet.desktop.run("vfs-push", ["--to", "alice@acme.example", note]), "bob --to alice after")
        #expect(Self.newStanzas(fleet, since: before) == [1])
        let inbox = fleet.scratch.path("rescue-in")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        ok(try rescue.run("vfs-fetch", ["--all", "--no-backup", "-C", inbox]), "fetch")
        #expect(try String(contentsOfFile: inbox + "/note.txt", encoding: .utf8) == "a transfer\n")

        // Revoked, the recovery key approves nothing: a second clean machine is refused (77).
        ok(try rescue.run("vfs-device", ["revoke", "-y", "recovery-key"]), "revoke the recovery key")
        let listedAfter = try rescue.run("vfs-device", ["list", "--json"])
        #expect(!jsonArray(listedAfter).contains { $0["name"] as? String == "recovery-key" }, "\(listedAfter.out)")
        let thief = try Machine("thief", in: fleet.scratch)
        let stolen = try thief.run("vfs-device", ["recover", "http://127.0.0.1:\(fleet.relay.port)", try fleet.admin.invite("alice@acme.example"),
                                                  "--name", "thief", "--recovery-key-file", typed])
        #expect(stolen.status == 77, "\(stolen.stderr)")
        let rows = jsonArray(try rescue.run("vfs-device", ["list", "--json"]))
        #expect(rows.first { $0["name"] as? String == "thief" }?["status"] as? String == "pending")
    }
}
