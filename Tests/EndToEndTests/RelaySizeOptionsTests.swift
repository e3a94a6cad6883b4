import Foundation
import Testing
import VFSTestSupport

/// `serve --max-upload` and `--quota` take sizes with units (issue 25).
@Suite("vfs-relay size options")
struct RelaySizeOptionsTests {
    @Test("--max-upload 1K is 1024 bytes; garbage, overflow and fractions of a byte are usage errors (64)")
    func units() throws {
        let setup = try RelayTests.Setup(arguments: ["--max-upload", "1K", "--quota", "1.5K"])
        for (length, status) in [("1024", 201), ("1025", 413)] {
            let answer = try setup.client.request("POST", "/v1/uploads", token: setup.laptop.token,
                                                  headers: ["Tus-Resumable": "1.0.0", "Upload-Length": length])
            #expect(answer.status == status, "Upload-Length \(length)")
        }
        #expect(setup.relay.stop() == 0)
        for (option, value, reason) in [("--quota", "10X", "write a number of bytes, or one with a unit such as 512M, 10G or 1.5T"),
                                        ("--quota", "8192P", "too large"), ("--max-upload", "1.1K", "not a whole number of bytes")] {
            let run = try Tools.run("vfs-relay", ["serve", "--listen", "127.0.0.1:0", "--data", setup.admin.data.path, option, value])
            #expect(run.status == 64, "\(option) \(value)")
            #expect(run.stderr.hasPrefix("vfs-relay: error: invalid \(option) \"\(value)\": \(reason)\n"), "\(run.stderr)")
        }
    }
}
