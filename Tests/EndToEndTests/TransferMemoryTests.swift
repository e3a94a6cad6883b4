import Foundation
import Testing
import VFSCore
import VFSTestSupport

/// What a transfer's tools hold in memory (issue 26, item 4): bounded, whatever the size.
@Suite("transfer tools: bounded memory", .serialized)
struct TransferMemoryTests {
    /// vfs-push's bound: a push of 1 GiB under 96 MiB RSS (issue 26). A push holds at
    /// most its upload window, the encryptor's batches and the archive's compressor,
    /// none of which grows with the file or the cores, so a smaller file reaches the same
    /// peak once the window has filled (the relay confirming slower than it is sealed).
    static let pushBoundMiB = 96

    @Test("a push of 192 MiB of random bytes peaks under 96 MiB of resident memory, and the relay gets it whole")
    func pushPeak() throws {
        let fleet = try Fleet()
        let file = fleet.scratch.path("random.bin")
        let size = 192 << 20
        let made = try Tools.run("sh", ["-c", "head -c \(size) /dev/urandom > '\(file)'"])
        #expect(made.status == 0, "\(made.stderr)")
        let push = try MeasuredRun(fleet.laptop, "vfs-push", ["-q", "-d", "phone", file])
        #expect(push.run.status == 0, "\(push.run.stderr)")
        #expect(push.how == "exited")
        #expect(!Tools.memoryBoundsHold || push.peak < Self.pushBoundMiB << 10, "peak RSS \(push.peak >> 10) MiB")
        // The push was the whole file: the phone lists it, complete (random bytes do not
        // compress: the ciphertext is at least as long).
        let id = push.run.out.trimmingCharacters(in: .whitespacesAndNewlines)
        let listed = try fleet.phone.run("vfs-fetch", ["--json"])
        let entry = jsonArray(listed).first { ($0["id"] as? String) == id }
        #expect(entry?["status"] as? String == "unattended", "\(listed.stdout)")
        #expect((entry?["size"] as? Int ?? 0) > size)
    }
}
