import Foundation
import Testing

/// vfs-encrypt reads a large regular file through mmap; a file that shrinks meanwhile
/// must fail cleanly (74, a message, no output file), not crash or encrypt half a file.
@Suite("input read through mmap, end to end")
struct MappedInputTests {
    @Test("the input shrinks mid-run: exit 74 with a message, the temporary output removed")
    func shrinkingInput() throws {
        let scratch = try Scratch()
        let key = scratch.path("key.txt")
        let keygen = try Tools.run("vfs-keygen", ["-o", key])
        let recipient = keygen.stderr.replacingOccurrences(of: "Public key: ", with: "").trimmingCharacters(in: .whitespacesAndNewlines)
        // A sparse 2 GiB input: it costs no disk, and takes long enough to encrypt that
        // it is cut short well before the end. The output is capped at 1 GiB (ulimit)
        // so a run that never notices cannot fill the disk.
        let input = try scratch.write("big.bin", Data())
        #expect(truncate(input, 2 << 30) == 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "ulimit -f 1048576; exec \"$0\" -q -r \"$1\" -o \"$2\" \"$3\"",
                             Tools.binDir.appendingPathComponent("vfs-encrypt").path, recipient, scratch.path("out.age"), input]
        let errPipe = Pipe()
        process.standardError = errPipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Once the temporary output exists and has grown, the payload is being read.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let temp = try scratch.listing().first { $0.hasPrefix(".out.age.tmp-") }
            if let temp, let size = try? FileManager.default.attributesOfItem(atPath: scratch.path(temp))[.size] as? Int, size > 1 << 20 { break }
            usleep(1000)
        }
        #expect(truncate(input, 4096) == 0)
        let stderr = String(decoding: errPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 74, "\(stderr)")
        #expect(stderr.hasPrefix("vfs-encrypt: error: cannot read \"\(input)\": the file shrank while it was being read\n"), "\(stderr)")
        #expect(stderr.contains("vfs-encrypt: hint: "))
        #expect(try scratch.listing() == ["big.bin", "key.txt"], "no output, no temporary file")
    }
}
