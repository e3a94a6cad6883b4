import Foundation
import Testing
import VFSCore
import VFSTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 26: a device that is online receives a transfer while its sender still uploads
/// it. The sender's upload is held part way by a proxy the test moves (GateProxy: its
/// PATCH bodies pass up to a count of bytes), never by timing: the push's first segment
/// (16 MiB, the upload window's) reaches the relay, the rest waits at the gate.
@Suite("streaming transfers: fetched while they upload", .serialized)
struct StreamingTransferTests {
    /// The upload window's segment: what the relay holds (synced, recorded) when the gate holds the second PATCH.
    static let firstSegment = 16 << 20
    /// The gate: the first PATCH and a part of the second.
    static let gate = 20 << 20

    /// 36 MiB that do not compress: the bundle fits the first segment and the push's
    /// 24 MiB window (its sealing ends while the upload is held) and is larger than the gate.
    static func content() -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<(36 << 20) / 8).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } })
    }

    /// The size of the partial download of the (one) transfer in `machine`'s incoming folder.
    static func partial(_ machine: Machine) -> Int {
        let incoming = machine.home.appendingPathComponent("incoming")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: incoming.path)) ?? []
        return names.filter { $0.hasSuffix(".age") }.compactMap {
            (try? FileManager.default.attributesOfItem(atPath: incoming.appendingPathComponent($0).path)[.size]) as? Int
        }.max() ?? 0
    }

    /// The inbox of `machine` as `vfs-fetch --json` lists it: (id, status).
    static func inbox(_ machine: Machine) throws -> [(id: String, status: String)] {
        jsonArray(try machine.run("vfs-fetch", ["--json"])).map { ($0["id"] as? String ?? "", $0["status"] as? String ?? "") }
    }

    static func text(_ log: URL) -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    static func stop(_ process: Process) {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// A fleet (alice's laptop and phone on one relay), the file to push, the phone's
    /// output folder and a gate in front of the relay holding uploads at `gate` bytes.
    struct Setup {
        let fleet: Fleet
        let content: Data
        let file: URL
        let folder: URL
        let gate: GateProxy

        init() throws {
            fleet = try Fleet()
            (content, file, folder) = try StreamingTransferTests.files(in: fleet.scratch.url)
            gate = try GateProxy(to: fleet.relay.port, holdAt: StreamingTransferTests.gate, in: fleet.scratch.url)
        }

        func log(_ name: String) -> URL { fleet.scratch.url.appendingPathComponent(name + ".log") }
    }

    /// The content written to `big.bin` in `folder`, and the empty output folder `inbox` beside it.
    static func files(in folder: URL) throws -> (Data, URL, URL) {
        let content = Self.content()
        let file = folder.appendingPathComponent("big.bin")
        try content.write(to: file)
        let inbox = folder.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        return (content, file, inbox)
    }

    /// Starts a push of `file` from `laptop` to the phone (or to `targets`, which include
    /// it) through `gate`; waits until the phone's inbox lists it `uploading`; returns the
    /// push and the transfer's id.
    static func heldPush(_ file: URL, from laptop: Machine, to phone: Machine, targets: [String] = ["-d", "phone"],
                         through gate: GateProxy, log: URL) throws -> (Process, String) {
        laptop.relayURL = gate.url
        defer { laptop.relayURL = nil }
        let push = try laptop.start("vfs-push", targets + [file.path], log: log)
        var id = ""
        let listed = try eventually(180) {
            id = try inbox(phone).first { $0.status == "uploading" }?.id ?? ""
            return !id.isEmpty
        }
        #expect(listed, "the transfer was not listed uploading: \(text(log))")
        return (push, id)
    }

    @Test("vfs-fetch --watch receives a push while it uploads: the inbox lists it uploading at once, the first segment arrives while the upload is held, the whole file is placed only after it ends, the same bytes")
    func watchWhileUploading() throws {
        let setup = try Setup()
        let (fleet, content, file, folder, gate) = (setup.fleet, setup.content, setup.file, setup.folder, setup.gate)
        let watchLog = setup.log("watch")
        let watcher = try fleet.phone.start("vfs-fetch", ["--watch", "-C", folder.path], log: watchLog)
        defer { Self.stop(watcher) }
        #expect(eventually(120) { Self.text(watchLog).contains("watching") })

        let pushLog = setup.log("push")
        let (push, id) = try Self.heldPush(file, from: fleet.laptop, to: fleet.phone, through: gate, log: pushLog)
        defer { Self.stop(push) }
        // The push printed the id as soon as the transfer existed.
        #expect(eventually(120) { Self.text(pushLog).contains(id) })
        // The watcher has the relay's first segment while the rest is held at the gate.
        #expect(eventually(180) { Self.partial(fleet.phone) >= Self.firstSegment }, "\(Self.text(watchLog))")
        #expect(push.isRunning)
        #expect(try Self.inbox(fleet.phone).first?.status == "uploading")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("big.bin").path))

        try gate.open()
        push.waitUntilExit()
        #expect(push.terminationStatus == 0, "\(Self.text(pushLog))")
        let placed = folder.appendingPathComponent("big.bin")
        #expect(eventually(180) { Self.text(watchLog).contains("fetched \(id)") }, "\(Self.text(watchLog))")
        #expect(try Data(contentsOf: placed) == content)
        #expect(try Self.inbox(fleet.phone).isEmpty)
        // The sender sees it delivered.
        let outbox = jsonArray(try fleet.laptop.run("vfs-push", ["outbox", "--json"]))
        #expect((outbox.first?["recipients"] as? [[String: Any]])?.first?["status"] as? String == "delivered")
    }

    @Test("a group push streams to every watching member at once: the phone and the tablet each run vfs-fetch --watch, both have the first segment while the upload is held, nothing is placed before it ends, then each places the same bytes and the sender sees both delivered")
    func groupPushToSeveralWatchers() throws {
        let setup = try Setup()
        let (fleet, content, file, gate) = (setup.fleet, setup.content, setup.file, setup.gate)
        let group = try fleet.laptop.run("vfs-device", ["group", "create", "home", "phone", "tablet"])
        #expect(group.status == 0, "\(group.stderr)")
        let members = [fleet.phone, fleet.tablet]
        var watchers: [Process] = []
        defer { watchers.forEach(Self.stop) }
        var folders: [URL] = [], logs: [URL] = []
        for member in members {
            let folder = fleet.scratch.url.appendingPathComponent("inbox-" + member.name)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let log = setup.log("watch-" + member.name)
            watchers.append(try member.start("vfs-fetch", ["--watch", "-C", folder.path], log: log))
            folders.append(folder)
            logs.append(log)
        }
        for log in logs { #expect(eventually(120) { Self.text(log).contains("watching") }, "\(Self.text(log))") }

        let pushLog = setup.log("push")
        let (push, id) = try Self.heldPush(file, from: fleet.laptop, to: fleet.phone, targets: ["-g", "home"], through: gate, log: pushLog)
        defer { Self.stop(push) }
        // Every member has the relay's first segment while the rest is held at the gate.
        for (member, log) in zip(members, logs) {
            #expect(eventually(180) { Self.partial(member) >= Self.firstSegment }, "\(member.name): \(Self.text(log))")
        }
        #expect(push.isRunning, "\(Self.text(pushLog))")
        for member in members { #expect(try Self.inbox(member).first?.status == "uploading", "\(member.name)") }
        for folder in folders {
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("big.bin").path),
                    "placed before the upload ended: \((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])")
        }

        try gate.open()
        push.waitUntilExit()
        #expect(push.terminationStatus == 0, "\(Self.text(pushLog))")
        let sha256 = SHA256.hash(content).hexString
        for (member, (folder, log)) in zip(members, zip(folders, logs)) {
            #expect(eventually(180) { Self.text(log).contains("fetched \(id)") }, "\(member.name): \(Self.text(log))")
            let placed = try Data(contentsOf: folder.appendingPathComponent("big.bin"))
            #expect(SHA256.hash(placed).hexString == sha256, "\(member.name) placed other bytes")
            #expect(try Self.inbox(member).isEmpty, "\(member.name)")
        }
        let outbox = jsonArray(try fleet.laptop.run("vfs-push", ["outbox", "--json"]))
        let recipients = outbox.first?["recipients"] as? [[String: Any]] ?? []
        #expect(recipients.count == 2)
        #expect(recipients.allSatisfy { $0["status"] as? String == "delivered" }, "\(recipients)")
    }

    @Test("a transfer abandoned while it uploads: its sender killed and cancelling it, the fetch following it exits 66 with a clear error and places nothing")
    func abandonedWhileUploading() throws {
        let setup = try Setup()
        let (fleet, file, folder, gate) = (setup.fleet, setup.file, setup.folder, setup.gate)
        let (push, id) = try Self.heldPush(file, from: fleet.laptop, to: fleet.phone, through: gate,
                                           log: setup.log("push"))
        defer { Self.stop(push) }
        let fetchLog = setup.log("fetch")
        let fetch = try fleet.phone.start("vfs-fetch", [id, "-C", folder.path], log: fetchLog)
        defer { Self.stop(fetch) }
        #expect(eventually(180) { Self.partial(fleet.phone) >= Self.firstSegment }, "\(Self.text(fetchLog))")

        Self.stop(push)
        let cancel = try fleet.laptop.run("vfs-push", ["cancel", id])
        #expect(cancel.status == 0, "\(cancel.stderr)")
        fetch.waitUntilExit()
        #expect(fetch.terminationStatus == 66)
        #expect(Self.text(fetchLog).contains("vfs-fetch: error: transfer \"\(id)\" was abandoned by its sender before its upload ended: nothing was placed"),
                "\(Self.text(fetchLog))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        #expect(try Self.inbox(fleet.phone).isEmpty)
    }

    @Test("a kill of either side resumes: the fetch killed while it follows the upload resumes it (Range), the push killed while held resumes with vfs-push resume; the same bytes arrive")
    func killedSidesResume() throws {
        let setup = try Setup()
        let (fleet, content, file, folder, gate) = (setup.fleet, setup.content, setup.file, setup.folder, setup.gate)
        let (push, id) = try Self.heldPush(file, from: fleet.laptop, to: fleet.phone, through: gate,
                                           log: setup.log("push"))
        defer { Self.stop(push) }
        let first = try fleet.phone.start("vfs-fetch", [id, "-C", folder.path], log: setup.log("fetch1"))
        defer { Self.stop(first) }
        #expect(eventually(180) { Self.partial(fleet.phone) >= Self.firstSegment })
        Self.stop(first)
        #expect(Self.partial(fleet.phone) >= Self.firstSegment)

        // The fetch again, while the upload is still held: it follows from where it was.
        let fetchLog = setup.log("fetch2")
        let second = try fleet.phone.start("vfs-fetch", [id, "-C", folder.path], log: fetchLog)
        defer { Self.stop(second) }
        // The push is killed once its bundle is sealed (the spool records its length).
        let outgoing = fleet.laptop.home.appendingPathComponent("outgoing")
        #expect(eventually(180) {
            let spools = (try? FileManager.default.contentsOfDirectory(atPath: outgoing.path)) ?? []
            return spools.contains { Self.text(outgoing.appendingPathComponent($0 + "/push.json")).contains("\"length\"") }
        })
        Self.stop(push)
        #expect(second.isRunning)
        try gate.open()
        let resume = try fleet.laptop.run("vfs-push", ["resume"])
        #expect(resume.status == 0, "\(resume.stderr)")
        #expect(resume.out.contains(id))
        second.waitUntilExit()
        #expect(second.terminationStatus == 0, "\(Self.text(fetchLog))")
        #expect(try Data(contentsOf: folder.appendingPathComponent("big.bin")) == content)
        #expect(try FileManager.default.contentsOfDirectory(atPath: outgoing.path).isEmpty)
    }

    @Test("two relays on PostgreSQL: pushed through A (held at the gate), fetched while it uploads through B, which only NOTIFY wakes (its poll is an hour)")
    func throughTheOtherRelay() throws {
        let shared = try ScaleOutTests.Shared("stream-pair")
        let code = try shared.addUser("alice@acme.example")
        let a = try shared.relay("a")
        defer { a.stop() }
        let b = try shared.relay("b")
        defer { b.stop() }
        let scratch = shared.scratch
        let laptop = try Machine("laptop", in: scratch), phone = try Machine("phone", in: scratch)
        try laptop.enroll(port: a.port, code: code)
        try phone.enroll(port: b.port, code: try shared.invite("alice@acme.example"))
        try laptop.approve(phone)
        let (content, file, folder) = try Self.files(in: scratch.url)
        let gate = try GateProxy(to: a.port, holdAt: Self.gate, in: scratch.url)
        let watchLog = scratch.url.appendingPathComponent("watch.log")
        let watcher = try phone.start("vfs-fetch", ["--watch", "-C", folder.path], log: watchLog)
        defer { Self.stop(watcher) }
        #expect(eventually(120) { Self.text(watchLog).contains("watching") })

        let pushLog = scratch.url.appendingPathComponent("push.log")
        let (push, id) = try Self.heldPush(file, from: laptop, to: phone, through: gate, log: pushLog)
        defer { Self.stop(push) }
        #expect(eventually(180) { Self.partial(phone) >= Self.firstSegment }, "\(Self.text(watchLog))")
        #expect(push.isRunning)
        try gate.open()
        push.waitUntilExit()
        #expect(push.terminationStatus == 0, "\(Self.text(pushLog))")
        #expect(eventually(180) { Self.text(watchLog).contains("fetched \(id)") }, "\(Self.text(watchLog))")
        #expect(try Data(contentsOf: folder.appendingPathComponent("big.bin")) == content)
        #expect(try shared.referenceAudit().wrong.isEmpty)
    }
}
