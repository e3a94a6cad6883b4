import Foundation
import Testing
import VFSTestSupport

/// vfs-encrypt and vfs-decrypt map a regular input file (1 MiB or more) window by
/// window instead of reading it; a file that shrinks meanwhile ends the run with
/// exit 74, one line on stderr, and no output left behind.
@Suite("input files read through mmap")
struct MappedInputTests {
    func keypair(_ scratch: TestFolder) throws -> (path: String, recipient: String) { try AgeToolsTests().keypair(scratch) }

    /// The test hook that truncates the input after the first window (2 MiB) was handed on.
    let shrink = ["VFS_TEST_HOOKS": "1", "VFS_TEST_SHRINK_INPUT": "1"]

    @Test("mapped files round-trip at the window edges, and age reads what vfs wrote and the other way round",
          arguments: [1 << 20, 2 << 20, (2 << 20) + 1, (4 << 20) - 1, (5 << 20) + 12345])
    func roundTrip(size: Int) throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let data = testBytes(size, seed: UInt64(size))
        let plain = try scratch.write("plain.bin", data)
        #expect(try Tools.run("vfs-encrypt", ["-r", key.recipient, "-o", scratch.path("v.age"), plain]).status == 0)
        let decrypted = try Tools.run("vfs-decrypt", ["-i", key.path, "-o", scratch.path("v.out"), scratch.path("v.age")])
        #expect(decrypted.status == 0, "\(decrypted.stderr)")
        #expect(try scratch.read("v.out") == data)
        let byAge = try Tools.run("age", ["-d", "-i", key.path, scratch.path("v.age")])
        #expect(byAge.status == 0 && byAge.stdout == data, "\(byAge.stderr)")
        #expect(try Tools.run("age", ["-r", key.recipient, "-o", scratch.path("a.age"), plain]).status == 0)
        let fromAge = try Tools.run("vfs-decrypt", ["-i", key.path, scratch.path("a.age")])
        #expect(fromAge.status == 0 && fromAge.stdout == data, "\(fromAge.stderr)")
    }

    @Test("a tampered chunk in a mapped file is refused (65) with no output, as when read")
    func tamperedMapped() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let plain = try scratch.write("plain.bin", testBytes(3 << 20, seed: 7))
        #expect(try Tools.run("vfs-encrypt", ["-r", key.recipient, "-o", scratch.path("v.age"), plain]).status == 0)
        var sealed = try scratch.read("v.age")
        sealed[sealed.count - (1 << 20)] ^= 1
        let tampered = try scratch.write("t.age", sealed)
        let run = try Tools.run("vfs-decrypt", ["-i", key.path, "-o", scratch.path("t.out"), tampered])
        #expect(run.status == 65, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("t.out")))
    }

    @Test("an input that shrinks while vfs-encrypt maps it: exit 74, one line, no output file and no temporary left")
    func encryptShrinks() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let plain = try scratch.write("plain.bin", testBytes(8 << 20, seed: 3))
        let out = scratch.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        let run = try Tools.run("vfs-encrypt", ["-r", key.recipient, "-o", out + "/plain.age", plain], environment: shrink)
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr == "vfs-encrypt: error: cannot read \"\(plain)\": the file shrank while it was being read\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == [])
        // The hook did truncate it, to the first window.
        #expect(try FileManager.default.attributesOfItem(atPath: plain)[.size] as? Int == 2 << 20)
    }

    @Test("an input that shrinks while vfs-decrypt maps it: exit 74, one line, no plaintext file left")
    func decryptShrinks() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let plain = try scratch.write("plain.bin", testBytes(8 << 20, seed: 4))
        let sealed = scratch.path("plain.age")
        #expect(try Tools.run("vfs-encrypt", ["-r", key.recipient, "-o", sealed, plain]).status == 0)
        let out = scratch.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        let run = try Tools.run("vfs-decrypt", ["-i", key.path, "-o", out + "/plain.bin", sealed], environment: shrink)
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr == "vfs-decrypt: error: cannot read \"\(sealed)\": the file shrank while it was being read\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == [])
    }

    @Test("the shrink hook does nothing without VFS_TEST_HOOKS=1")
    func hookNeedsSwitch() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let data = testBytes(8 << 20, seed: 5)
        let plain = try scratch.write("plain.bin", data)
        let run = try Tools.run("vfs-encrypt", ["-r", key.recipient, "-o", scratch.path("v.age"), plain],
                                environment: ["VFS_TEST_SHRINK_INPUT": "1"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try scratch.read("plain.bin") == data)
        let back = try Tools.run("vfs-decrypt", ["-i", key.path, scratch.path("v.age")])
        #expect(back.status == 0 && back.stdout == data)
    }
}
