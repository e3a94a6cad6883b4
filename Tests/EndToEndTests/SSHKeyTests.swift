import Foundation
import Testing
import VFSTestSupport

/// SSH keys and passphrase-protected identity files, as age reads and writes them,
/// checked both ways against the `age` binary.
@Suite("SSH keys and protected identity files")
struct SSHKeyTests {
    static let withTTY = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("tools/with-tty.py").path

    /// An OpenSSH key pair made by ssh-keygen: the private key path and the public key line.
    func sshKey(_ scratch: TestFolder, type: String, bits: Int? = nil, passphrase: String = "", name: String) throws -> (path: String, line: String) {
        let path = scratch.path(name)
        var arguments = ["-q", "-t", type, "-N", passphrase, "-C", "user@host", "-f", path]
        if let bits { arguments += ["-b", String(bits)] }
        let made = try Tools.run("ssh-keygen", arguments)
        #expect(made.status == 0, "\(made.stderr)")
        let line = try String(contentsOfFile: path + ".pub", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return (path, line)
    }

    /// ssh-rsa at the three sizes ssh-keygen users pick: the release build once crashed on
    /// every one of them (an RSA key's numbers freed before OpenSSL read them).
    @Test("ssh-ed25519 and ssh-rsa (2048, 3072, 4096 bits): vfs-encrypt to age, age to vfs-decrypt, -r, -R and -i",
          arguments: [("ed25519", nil), ("rsa", 2048), ("rsa", 3072), ("rsa", 4096)] as [(String, Int?)])
    func interop(type: String, bits: Int?) throws {
        let scratch = try TestFolder()
        let key = try sshKey(scratch, type: type, bits: bits, name: "id_\(type)")
        let plain = testBytes(70_000, seed: 7)
        let input = try scratch.write("plain", plain)
        // vfs writes (recipient from the .pub file, and as a quoted -r line), age reads.
        #expect(try Tools.run("vfs-encrypt", ["-R", key.path + ".pub", "-o", scratch.path("a.age"), input]).status == 0)
        #expect(try Tools.run("vfs-encrypt", ["-r", key.line, "-o", scratch.path("b.age"), input]).status == 0)
        for file in ["a.age", "b.age"] {
            let age = try Tools.run("age", ["-d", "-i", key.path, scratch.path(file)])
            #expect(age.status == 0, "\(age.stderr)")
            #expect(age.stdout == plain)
            #expect(try String(decoding: scratch.read(file), as: UTF8.self).contains("-> ssh-\(type == "rsa" ? "rsa" : "ed25519") "))
        }
        // age writes, vfs reads.
        #expect(try Tools.run("age", ["-R", key.path + ".pub", "-o", scratch.path("c.age"), input]).status == 0)
        let run = try Tools.run("vfs-decrypt", ["-i", key.path, scratch.path("c.age")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == plain)
        // vfs-encrypt -i takes the recipient of the private key, as age -i does.
        #expect(try Tools.run("vfs-encrypt", ["-i", key.path, "-o", scratch.path("d.age"), input]).status == 0)
        #expect(try Tools.run("age", ["-d", "-i", key.path, scratch.path("d.age")]).stdout == plain)
        // vfs-keygen -y prints the public key line (without its comment).
        let shown = try Tools.run("vfs-keygen", ["-y", key.path])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.out == key.line.replacingOccurrences(of: " user@host", with: "") + "\n")
        // Another key of the same type does not match: 77, nothing written.
        let other = try sshKey(scratch, type: type, bits: bits, name: "other")
        let wrong = try Tools.run("vfs-decrypt", ["-i", other.path, "-o", scratch.path("w.out"), scratch.path("c.age")])
        #expect(wrong.status == 77)
        #expect(!scratch.exists("w.out"))
    }

    @Test("an X25519 and an SSH recipient in one file: each identity opens it")
    func mixed() throws {
        let scratch = try TestFolder()
        let ssh = try sshKey(scratch, type: "ed25519", name: "id")
        #expect(try Tools.run("vfs-keygen", ["-o", scratch.path("age.txt")]).status == 0)
        let input = try scratch.write("plain", Data("both\n".utf8))
        let enc = try Tools.run("vfs-encrypt", ["-r", ssh.line, "-i", scratch.path("age.txt"), "-o", scratch.path("m.age"), input])
        #expect(enc.status == 0, "\(enc.stderr)")
        #expect(try Tools.run("vfs-decrypt", ["-i", ssh.path, scratch.path("m.age")]).out == "both\n")
        #expect(try Tools.run("age", ["-d", "-i", scratch.path("age.txt"), scratch.path("m.age")]).out == "both\n")
    }

    @Test("refusals: a short RSA key, a passphrase-protected SSH key (one hint everywhere), a public key given as -i")
    func refusals() throws {
        let scratch = try TestFolder()
        let small = try sshKey(scratch, type: "rsa", bits: 1024, name: "small")
        let input = try scratch.write("plain", Data("x".utf8))
        let short = try Tools.run("vfs-encrypt", ["-R", small.path + ".pub", input])
        #expect(short.status == 65)
        #expect(short.stderr.contains("1024 bits"))
        let locked = try sshKey(scratch, type: "ed25519", passphrase: "hunter22", name: "locked")
        #expect(try Tools.run("vfs-encrypt", ["-R", locked.path + ".pub", "-o", scratch.path("x.age"), input]).status == 0)
        let hint = "vfs-encrypt -p -a -o key.age COPY"
        for (tool, arguments) in [("vfs-decrypt", ["-i", locked.path, scratch.path("x.age")]), ("vfs-encrypt", ["-i", locked.path, input]),
                                  ("vfs-keygen", ["-y", locked.path])] {
            let run = try Tools.run(tool, arguments)
            #expect(run.status == 65, "\(tool): \(run.stderr)")
            #expect(run.stderr.contains("\(tool): error: \"\(locked.path)\": passphrase-protected SSH private keys are not supported"), "\(run.stderr)")
            #expect(run.stderr.contains("\(tool): hint: ") && run.stderr.contains(hint), "\(run.stderr)")
        }
        let pub = try Tools.run("vfs-decrypt", ["-i", locked.path + ".pub", scratch.path("x.age")])
        #expect(pub.status == 65)
        #expect(pub.stderr.contains("is an SSH public key, not an identity"))
    }

    @Test("the keychain keeps no SSH key: identity import refuses one with a hint and leaves the keychain as it was")
    func keychainRefusesSSH() throws {
        let kc = try KeychainFixture()
        try kc.initialise()
        let before = try kc.bytes()
        let key = try sshKey(kc.scratch, type: "ed25519", name: "id_ed25519")
        let run = try kc.run(["identity", "import", "deploy", key.path], passcode: true)
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("an SSH key is not kept in the keychain; use it with -i FILE"))
        #expect(try kc.bytes() == before)
        let list = try kc.run(["identity", "list", "--json"], passcode: true)
        #expect(list.out == "[]\n")
    }

    @Test("passphrase-protected identity files: age's, read by vfs; vfs's, read by age")
    func protectedIdentityFiles() throws {
        let scratch = try TestFolder()
        #expect(try Tools.run("vfs-keygen", ["-o", scratch.path("key.txt")]).status == 0)
        let plain = Data("secret payload\n".utf8)
        let input = try scratch.write("plain", plain)
        #expect(try Tools.run("vfs-encrypt", ["-i", scratch.path("key.txt"), "-o", scratch.path("f.age"), input]).status == 0)
        // age protects the identity file (asks twice on its terminal); vfs-decrypt opens it
        // with the passphrase from --passphrase-file, VFS_PASSPHRASE, or its own prompt.
        let made = try Tools.run("python3", [Self.withTTY, "passphrase", "tulip lamp", "--", "age", "-p", "-a",
                                             "-o", scratch.path("key.age"), scratch.path("key.txt")])
        #expect(made.status == 0, "\(made.out)")
        let passFile = try scratch.write("pass", Data("tulip lamp\n".utf8))
        let viaFile = try Tools.run("vfs-decrypt", ["-i", scratch.path("key.age"), "--passphrase-file", passFile, scratch.path("f.age")])
        #expect(viaFile.status == 0, "\(viaFile.stderr)")
        #expect(viaFile.stdout == plain)
        let viaEnv = try Tools.run("vfs-decrypt", ["-i", scratch.path("key.age"), scratch.path("f.age")], environment: ["VFS_PASSPHRASE": "tulip lamp"])
        #expect(viaEnv.stdout == plain)
        let prompted = try Tools.run("python3", [Self.withTTY, "passphrase for identity file", "tulip lamp", "--",
                                                 Tools.binDir.appendingPathComponent("vfs-decrypt").path, "-o", scratch.path("p.out"),
                                                 "-i", scratch.path("key.age"), scratch.path("f.age")])
        #expect(prompted.status == 0, "\(prompted.out)")
        #expect(try scratch.read("p.out") == plain)
        // The recipients of a protected file, as age-keygen -y can't but age -i can.
        let recipient = try Tools.run("vfs-keygen", ["-y", scratch.path("key.txt")]).out
        #expect(try Tools.run("vfs-keygen", ["-y", scratch.path("key.age")], environment: ["VFS_PASSPHRASE": "tulip lamp"]).out == recipient)
        // Wrong passphrase: 77, no output; no source and no terminal: 64 at once.
        let wrong = try Tools.run("vfs-decrypt", ["-i", scratch.path("key.age"), "-o", scratch.path("w.out"), scratch.path("f.age")],
                                  environment: ["VFS_PASSPHRASE": "wrong"])
        #expect(wrong.status == 77)
        #expect(wrong.stderr == "vfs-decrypt: error: incorrect passphrase for identity file \"\(scratch.path("key.age"))\"\n")
        #expect(!scratch.exists("w.out"))
        #expect(try Tools.run("vfs-decrypt", ["-i", scratch.path("key.age"), scratch.path("f.age")]).status == 64)
        // vfs protects it (binary, not armored); age opens it at its prompt.
        #expect(try Tools.run("vfs-encrypt", ["-p", "--passphrase-file", passFile, "-o", scratch.path("key.vfs.age"), scratch.path("key.txt")]).status == 0)
        let age = try Tools.run("python3", [Self.withTTY, "passphrase", "tulip lamp", "--", "age", "-d", "-i", scratch.path("key.vfs.age"),
                                            "-o", scratch.path("age.out"), scratch.path("f.age")])
        #expect(age.status == 0, "\(age.out)")
        #expect(try scratch.read("age.out") == plain)
        #expect(try Tools.run("vfs-decrypt", ["-i", scratch.path("key.vfs.age"), "--passphrase-file", passFile, scratch.path("f.age")]).stdout == plain)
    }
}
