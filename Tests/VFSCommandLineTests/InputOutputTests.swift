import Foundation
import Glibc
import Testing
import VFSCommandLine
import VFSCore
import VFSTestSupport

@Suite("secret sources, output rules, printable text")
struct InputOutputTests {
    func text(_ secret: SecretBytes) -> String { String(decoding: secret.bytes, as: UTF8.self) }

    /// A readable descriptor holding `text`.
    func descriptor(_ text: String) throws -> Int32 {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let bytes = Array(text.utf8)
        #expect(write(fds[1], bytes, bytes.count) == bytes.count)
        close(fds[1])
        return fds[0]
    }

    @Test("a secret comes from the file first, then the descriptor, then the environment")
    func secretOrder() throws {
        let folder = try TestFolder("secret")
        let file = try folder.write("pass", "from-file\nsecond line\n")
        let env = ["VFS_TEST_SECRET": "from-env"]
        let fd1 = try descriptor("from-fd\n"), fd2 = try descriptor("from-fd\r\n")
        defer { close(fd1); close(fd2) }
        #expect(try text(SecretSource(file: file, fd: fd1, noun: "passphrase", environmentVariable: "VFS_TEST_SECRET", environment: env)
            .read(prompt: "")) == "from-file")
        #expect(try text(SecretSource(file: nil, fd: fd2, noun: "passphrase", environmentVariable: "VFS_TEST_SECRET", environment: env)
            .read(prompt: "")) == "from-fd")
        let fromEnvironment = SecretSource(file: nil, fd: nil, noun: "passphrase", environmentVariable: "VFS_TEST_SECRET", environment: env)
        #expect(fromEnvironment.isNonInteractive)
        #expect(try text(fromEnvironment.read(prompt: "")) == "from-env")
        #expect(!SecretSource(file: nil, fd: nil, noun: "passphrase", environmentVariable: "VFS_TEST_SECRET", environment: [:]).isNonInteractive)
    }

    @Test("an empty variable, a closed descriptor and a missing file are errors, not empty secrets")
    func secretErrors() throws {
        let empty = SecretSource(file: nil, fd: nil, noun: "passcode", environmentVariable: "VFS_X", environment: ["VFS_X": ""])
        #expect { try empty.read(prompt: "") } throws: { ($0 as? ReportableError)?.exitStatus == .usage && "\($0)".contains("VFS_X is set but empty") }
        let closed = SecretSource(file: nil, fd: 987, noun: "passcode", environmentVariable: "VFS_X", environment: [:])
        #expect { try closed.read(prompt: "") } throws: { ($0 as? ReportableError)?.exitStatus == .usage && "\($0)".contains("--passcode-fd 987") }
        let missing = SecretSource(file: "/nonexistent/p", fd: nil, noun: "passcode", environmentVariable: "VFS_X", environment: [:])
        #expect { try missing.read(prompt: "") } throws: { ($0 as? ReportableError)?.exitStatus == .noInput }
    }

    @Test("-o FILE appears only on commit; abandoned, nothing is left; an existing file with exclusive is 73")
    func outputFile() throws {
        let folder = try TestFolder("out")
        let out = try ToolIO.openOutput(folder.path("o.bin"), binary: true)
        try out.sink.write(Array("data".utf8))
        #expect(!folder.exists("o.bin"))
        try out.commit()
        #expect(try folder.text("o.bin") == "data")
        let abandoned = try ToolIO.openOutput(folder.path("p.bin"), binary: true)
        try abandoned.sink.write([1, 2, 3])
        abandoned.abandon()
        #expect(try folder.listing() == ["o.bin"])
        #expect { try ToolIO.openOutput(folder.path("o.bin"), binary: true, exclusive: true) } throws: { error in
            (error as? ReportableError)?.exitStatus == .cannotCreate && (error as? ReportableError)?.hints == ["remove it first, or choose another name"]
        }
    }

    @Test("a device is written in place, not replaced")
    func outputDevice() throws {
        let out = try ToolIO.openOutput("/dev/null", binary: true)
        try out.sink.write([0])
        try out.commit()
        var info = stat()
        #expect(stat("/dev/null", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR)
    }

    @Test("control characters and Unicode format characters (Cf) are escaped, other text is left as it is")
    func printable() {
        #expect(DisplayText.printable("plain ünïcode") == "plain ünïcode")
        #expect(DisplayText.printable("a\nb\tc\rd") == "a\\nb\\tc\\rd")
        #expect(DisplayText.printable("\u{1b}[2J\u{7f}") == "\\x1b[2J\\x7f")
        #expect(DisplayText.printable("\u{9b}31m") == "\\u{9b}31m")
        // Format characters: bidi overrides and isolates, zero-width characters, the BOM.
        #expect(DisplayText.printable("invoice\u{202E}fdp.exe") == "invoice\\u{202e}fdp.exe")
        for scalar in [0x202A, 0x202E, 0x2066, 0x2069, 0x200B, 0x200F, 0x2060, 0x2064, 0xFEFF, 0x061C, 0xAD, 0xE0001] {
            let text = "a" + String(Character(Unicode.Scalar(scalar)!)) + "b"
            #expect(DisplayText.printable(text) == "a\\u{\(String(scalar, radix: 16))}b", "U+\(String(scalar, radix: 16))")
        }
    }
}
