import Foundation
import Testing
import VFSTestSupport

/// vfs-keygen, vfs-encrypt and vfs-decrypt as a user runs them, and against `age`.
@Suite("age tools end to end")
struct AgeToolsTests {
    static let sizes = [0, 1, 65535, 65536, 65537, 3 * 65536, 5 * 1024 * 1024 + 17]
    static let withTTY = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("tools/with-tty.py").path

    /// A new identity file in `scratch`, and its recipient.
    func keypair(_ scratch: TestFolder, _ name: String = "key.txt") throws -> (path: String, recipient: String) {
        let path = scratch.path(name)
        let run = try Tools.run("vfs-keygen", ["-o", path])
        #expect(run.status == 0, "\(run.stderr)")
        let recipient = run.stderr.replacingOccurrences(of: "Public key: ", with: "").trimmingCharacters(in: .whitespacesAndNewlines)
        return (path, recipient)
    }

    @Test("vfs-keygen writes an age-keygen identity file, 0600, never overwritten")
    func keygen() throws {
        let scratch = try TestFolder()
        let (path, recipient) = try keypair(scratch)
        let text = String(decoding: try scratch.read("key.txt"), as: UTF8.self)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("# created: "))
        #expect(lines[1] == "# public key: \(recipient)")
        #expect(lines[2].hasPrefix("AGE-SECRET-KEY-1") && lines[2].count == 74)
        #expect(recipient.hasPrefix("age1") && recipient.count == 62)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // age-keygen agrees on the recipient, and so does -y.
        #expect(try Tools.run("age-keygen", ["-y", path]).out == recipient + "\n")
        #expect(try Tools.run("vfs-keygen", ["-y", path]).out == recipient + "\n")
        #expect(try Tools.run("vfs-keygen", ["-y"], stdin: try scratch.read("key.txt")).out == recipient + "\n")
        let again = try Tools.run("vfs-keygen", ["-o", path])
        #expect(again.status == 73)
        #expect(again.stderr.contains("vfs-keygen: error: cannot create"))
        #expect(try scratch.read("key.txt") == Data(text.utf8))
    }

    @Test("vfs-keygen -y reads several identities and comments; rejects junk with 65")
    func keygenConvert() throws {
        let scratch = try TestFolder()
        let a = try keypair(scratch, "a.txt"), b = try keypair(scratch, "b.txt")
        let both = try String(contentsOfFile: a.path, encoding: .utf8) + "\n# another\n\n" + (try String(contentsOfFile: b.path, encoding: .utf8))
        let combined = try scratch.write("both.txt", Data(both.utf8))
        #expect(try Tools.run("vfs-keygen", ["-y", combined]).out == "\(a.recipient)\n\(b.recipient)\n")
        let junk = try scratch.write("junk.txt", Data("AGE-SECRET-KEY-1NOTAKEY\n".utf8))
        let run = try Tools.run("vfs-keygen", ["-y", junk])
        #expect(run.status == 65)
        #expect(run.stderr.contains("line 1"))
        #expect(try Tools.run("vfs-keygen", ["-y", scratch.path("missing.txt")]).status == 66)
    }

    @Test("vfs-encrypt output is read by age, at chunk-boundary sizes", arguments: AgeToolsTests.sizes)
    func encryptForAge(size: Int) throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let plain = testBytes(size, seed: UInt64(size) + 1)
        let input = try scratch.write("plain", plain)
        let run = try Tools.run("vfs-encrypt", ["-r", key.recipient, "-o", scratch.path("c.age"), input])
        #expect(run.status == 0, "\(run.stderr)")
        let ageRun = try Tools.run("age", ["-d", "-i", key.path, scratch.path("c.age")])
        #expect(ageRun.status == 0, "\(ageRun.stderr)")
        #expect(ageRun.stdout == plain)
        // Size: header + 16-byte nonce + chunks with 16-byte tags.
        let chunks = max(1, (size + 65535) / 65536)
        let header = try scratch.read("c.age").firstRange(of: Data("\n---".utf8))!
        let ciphertext = try scratch.read("c.age")
        let headerEnd = ciphertext[header.upperBound...].firstIndex(of: 0x0A)! + 1
        #expect(ciphertext.count - headerEnd == 16 + size + 16 * chunks)
    }

    @Test("age output is read by vfs-decrypt, at chunk-boundary sizes", arguments: AgeToolsTests.sizes)
    func decryptFromAge(size: Int) throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let plain = testBytes(size, seed: UInt64(size) + 7)
        let input = try scratch.write("plain", plain)
        #expect(try Tools.run("age", ["-r", key.recipient, "-o", scratch.path("c.age"), input]).status == 0)
        let run = try Tools.run("vfs-decrypt", ["-i", key.path, "-o", scratch.path("out"), scratch.path("c.age")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try scratch.read("out") == plain)
        // And through pipes.
        let piped = try Tools.run("vfs-decrypt", ["-i", key.path], stdin: try scratch.read("c.age"))
        #expect(piped.stdout == plain)
    }

    @Test("several recipients: each identity opens the file, with age and with vfs")
    func severalRecipients() throws {
        let scratch = try TestFolder()
        let a = try keypair(scratch, "a.txt"), b = try keypair(scratch, "b.txt"), c = try keypair(scratch, "c.txt")
        let recipientsFile = try scratch.write("team.txt", Data("# team\n\(b.recipient)\n\n\(c.recipient)\n".utf8))
        let plain = testBytes(200_000)
        let run = try Tools.run("vfs-encrypt", ["-r", a.recipient, "-R", recipientsFile, "-o", scratch.path("c.age")], stdin: plain)
        #expect(run.status == 0, "\(run.stderr)")
        let header = String(decoding: try scratch.read("c.age").prefix(400), as: UTF8.self)
        #expect(header.components(separatedBy: "-> X25519 ").count == 4)
        for key in [a, b, c] {
            #expect(try Tools.run("age", ["-d", "-i", key.path, scratch.path("c.age")]).stdout == plain)
            #expect(try Tools.run("vfs-decrypt", ["-i", key.path, scratch.path("c.age")]).stdout == plain)
        }
        // age with several recipients, read by vfs with only the last identity.
        #expect(try Tools.run("age", ["-r", a.recipient, "-r", b.recipient, "-R", recipientsFile, "-o", scratch.path("d.age"), scratch.write("p", plain)]).status == 0)
        #expect(try Tools.run("vfs-decrypt", ["-i", c.path, scratch.path("d.age")]).stdout == plain)
        // -R - reads recipients from stdin; -i on encrypt uses the identity's recipient.
        let fromStdin = try Tools.run("vfs-encrypt", ["-R", "-", "-i", a.path, "-o", scratch.path("e.age"), scratch.path("p")], stdin: Data(b.recipient.utf8))
        #expect(fromStdin.status == 0, "\(fromStdin.stderr)")
        #expect(try Tools.run("age", ["-d", "-i", a.path, scratch.path("e.age")]).stdout == plain)
        #expect(try Tools.run("age", ["-d", "-i", b.path, scratch.path("e.age")]).stdout == plain)
    }

    @Test("armor: written by vfs, read by age; written by age, detected and read by vfs")
    func armor() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let plain = testBytes(100_000, seed: 9)
        let input = try scratch.write("plain", plain)
        let run = try Tools.run("vfs-encrypt", ["-a", "-r", key.recipient, input])
        #expect(run.status == 0)
        let text = run.out
        #expect(text.hasPrefix("-----BEGIN AGE ENCRYPTED FILE-----\n"))
        #expect(text.hasSuffix("-----END AGE ENCRYPTED FILE-----\n"))
        #expect(text.split(separator: "\n").dropFirst().dropLast().dropLast().allSatisfy { $0.count == 64 })
        try scratch.write("a.txt", run.stdout)
        #expect(try Tools.run("age", ["-d", "-i", key.path, scratch.path("a.txt")]).stdout == plain)
        #expect(try Tools.run("age", ["-a", "-r", key.recipient, "-o", scratch.path("b.txt"), input]).status == 0)
        #expect(try Tools.run("vfs-decrypt", ["-i", key.path, scratch.path("b.txt")]).stdout == plain)
        // Whitespace around the armor is allowed; CRLF too.
        let crlf = "\n \r\n" + String(decoding: try scratch.read("b.txt"), as: UTF8.self).replacingOccurrences(of: "\n", with: "\r\n") + "\n\t\n"
        #expect(try Tools.run("vfs-decrypt", ["-i", key.path], stdin: Data(crlf.utf8)).stdout == plain)
        // A damaged armor line is an armor error, exit 65.
        var broken = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        broken[2] = String(broken[2].dropLast())
        let bad = try Tools.run("vfs-decrypt", ["-i", key.path], stdin: Data(broken.joined(separator: "\n").utf8))
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("invalid armor"))
    }

    @Test("passphrases: from a file, an fd and the environment; prompted on a terminal; read by age")
    func passphrases() throws {
        let scratch = try TestFolder()
        let plain = testBytes(70_000, seed: 3)
        let input = try scratch.write("plain", plain)
        let passFile = try scratch.write("pass", Data("correct horse\n".utf8))
        #expect(try Tools.run("vfs-encrypt", ["-p", "--work-factor", "12", "--passphrase-file", passFile, "-o", scratch.path("p.age"), input]).status == 0)
        #expect(try Tools.run("vfs-decrypt", ["--passphrase-file", passFile, scratch.path("p.age")]).stdout == plain)
        #expect(try Tools.run("vfs-decrypt", [scratch.path("p.age")], environment: ["VFS_PASSPHRASE": "correct horse"]).stdout == plain)
        let fd = try Tools.run("bash", ["-c", "\"$0\" --passphrase-fd 3 \"$1\" 3<\"$2\"",
                                        Tools.binDir.appendingPathComponent("vfs-decrypt").path, scratch.path("p.age"), passFile])
        #expect(fd.stdout == plain, "\(fd.stderr)")
        // age reads it (on a terminal, the only way age takes a passphrase).
        let age = try Tools.run("python3", [Self.withTTY, "passphrase", "correct horse", "--", "age", "-d", "-o", scratch.path("age.out"), scratch.path("p.age")])
        #expect(age.status == 0, "\(age.out)")
        #expect(try scratch.read("age.out") == plain)
        // age's passphrase file is read by vfs, the passphrase typed at our prompt (no echo).
        #expect(try Tools.run("python3", [Self.withTTY, "passphrase", "correct horse", "--", "age", "-p", "-o", scratch.path("q.age"), input]).status == 0)
        let prompted = try Tools.run("python3", [Self.withTTY, "passphrase", "correct horse", "--",
                                                 Tools.binDir.appendingPathComponent("vfs-decrypt").path, "-o", scratch.path("q.out"), scratch.path("q.age")])
        #expect(prompted.status == 0, "\(prompted.out)")
        #expect(!prompted.out.contains("correct horse"), "the passphrase was echoed")
        #expect(try scratch.read("q.out") == plain)
        // Wrong passphrase: 77, no output file.
        let wrong = try Tools.run("vfs-decrypt", ["-o", scratch.path("w.out"), scratch.path("p.age")], environment: ["VFS_PASSPHRASE": "wrong"])
        #expect(wrong.status == 77)
        #expect(wrong.stderr == "vfs-decrypt: error: incorrect passphrase\n")
        #expect(!scratch.exists("w.out"))
    }

    @Test("no passphrase source and no terminal: fails at once with a hint")
    func noPassphraseSource() throws {
        let scratch = try TestFolder()
        let input = try scratch.write("plain", Data("x".utf8))
        let enc = try Tools.run("setsid", ["-w", Tools.binDir.appendingPathComponent("vfs-encrypt").path, "-p", "-o", scratch.path("p.age"), input])
        #expect(enc.status == 64)
        #expect(enc.stderr.contains("vfs-encrypt: error: no passphrase given and no terminal"))
        #expect(enc.stderr.contains("vfs-encrypt: hint: give it with --passphrase-file"))
        #expect(!scratch.exists("p.age"))
    }

    @Test("--max-work-factor refuses expensive files with a hint; raising it works")
    func maxWorkFactor() throws {
        let scratch = try TestFolder()
        let input = try scratch.write("plain", Data("x".utf8))
        let env = ["VFS_PASSPHRASE": "pw"]
        #expect(try Tools.run("vfs-encrypt", ["-p", "--work-factor", "14", "-o", scratch.path("p.age"), input], environment: env).status == 0)
        let refused = try Tools.run("vfs-decrypt", ["--max-work-factor", "13", scratch.path("p.age")], environment: env)
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("work factor 14 is above the maximum 13"))
        #expect(refused.stderr.contains("hint: if you trust the file, raise the limit with --max-work-factor 14"))
        #expect(try Tools.run("vfs-decrypt", ["--max-work-factor", "14", scratch.path("p.age")], environment: env).out == "x")
    }

    @Test("a corrupt file fails with 65, leaves no output file, and releases only authenticated chunks")
    func corruptPayload() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let plain = testBytes(5 * 65536, seed: 5)
        #expect(try Tools.run("vfs-encrypt", ["-r", key.recipient, "-o", scratch.path("c.age")], stdin: plain).status == 0)
        var bytes = try scratch.read("c.age")
        // Flip a byte inside the fourth chunk (index 3).
        let headerEnd = bytes.firstRange(of: Data("\n---".utf8))!.upperBound
        let payloadStart = bytes[headerEnd...].firstIndex(of: 0x0A)! + 1 + 16
        bytes[payloadStart + 3 * 65552 + 100] ^= 1
        try scratch.write("bad.age", bytes)
        let before = try scratch.listing()
        let run = try Tools.run("vfs-decrypt", ["-i", key.path, "-o", scratch.path("out"), scratch.path("bad.age")])
        #expect(run.status == 65)
        #expect(run.stderr.contains("chunk 3 failed to authenticate"))
        #expect(try scratch.listing() == before, "no output or temporary file is left")
        let streamed = try Tools.run("vfs-decrypt", ["-i", key.path, scratch.path("bad.age")])
        #expect(streamed.status == 65)
        #expect(streamed.stdout == plain.prefix(3 * 65536))
        // Truncated: the final chunk is missing.
        try scratch.write("short.age", bytes.prefix(payloadStart + 2 * 65552))
        let short = try Tools.run("vfs-decrypt", ["-i", key.path, "-o", scratch.path("out"), scratch.path("short.age")])
        #expect(short.status == 65)
        #expect(short.stderr.contains("final chunk is missing"))
        #expect(!scratch.exists("out"))
        // Header MAC.
        var mac = try scratch.read("c.age")
        mac[10] = UInt8(ascii: "X")
        let notAge = try Tools.run("vfs-decrypt", ["-i", key.path], stdin: mac)
        #expect(notAge.status == 65)
        #expect(try Tools.run("vfs-decrypt", ["-i", key.path], stdin: Data("hello, not age\n".utf8)).status == 65)
    }

    @Test("exit statuses: wrong identity 77, missing input 66, usage 64, bad recipient with a hint")
    func exitStatuses() throws {
        let scratch = try TestFolder()
        let a = try keypair(scratch, "a.txt"), b = try keypair(scratch, "b.txt")
        let input = try scratch.write("plain", Data("secret".utf8))
        #expect(try Tools.run("vfs-encrypt", ["-r", a.recipient, "-o", scratch.path("c.age"), input]).status == 0)
        let wrong = try Tools.run("vfs-decrypt", ["-i", b.path, "-o", scratch.path("out"), scratch.path("c.age")])
        #expect(wrong.status == 77)
        #expect(wrong.stderr.contains("no identity matched"))
        #expect(!scratch.exists("out"))
        let none = try Tools.run("vfs-decrypt", [scratch.path("c.age")])
        #expect(none.status == 77)
        #expect(none.stderr.contains("hint: use -i FILE"))
        #expect(try Tools.run("vfs-decrypt", ["-i", a.path, scratch.path("nope.age")]).status == 66)
        #expect(try Tools.run("vfs-encrypt", ["-r", a.recipient, scratch.path("nope")]).status == 66)
        let noRecipient = try Tools.run("vfs-encrypt", [input])
        #expect(noRecipient.status == 64)
        #expect(noRecipient.stderr.hasPrefix("vfs-encrypt: error: missing recipients\n"))
        let both = try Tools.run("vfs-encrypt", ["-p", "-r", a.recipient, input])
        #expect(both.status == 64)
        let identityAsRecipient = try Tools.run("vfs-encrypt", ["-r", "AGE-SECRET-KEY-1GFPYYSJZ", input])
        #expect(identityAsRecipient.status == 64)
        #expect(identityAsRecipient.stderr.contains("hint: that is an identity; did you mean -i FILE?"))
        let unknown = try Tools.run("vfs-decrypt", ["--bogus"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.hasPrefix("vfs-decrypt: error: "))
    }

    @Test("binary ciphertext is not written to a terminal unless -o - asks")
    func terminalRefusal() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let input = try scratch.write("plain", Data("x".utf8))
        let refused = try Tools.run("python3", [Self.withTTY, "never-asked", "", "--",
                                                Tools.binDir.appendingPathComponent("vfs-encrypt").path, "-r", key.recipient, input])
        #expect(refused.status == 64)
        #expect(refused.out.contains("refusing to write binary output to a terminal"))
        #expect(refused.out.contains("did you mean -a/--armor?"))
        let forced = try Tools.run("python3", [Self.withTTY, "never-asked", "", "--",
                                               Tools.binDir.appendingPathComponent("vfs-encrypt").path, "-r", key.recipient, "-o", "-", input])
        #expect(forced.status == 0)
        #expect(forced.out.contains("age-encryption.org/v1"))
    }

    @Test("-o onto a device writes to it rather than replacing it; onto a link, its target")
    func specialOutputs() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let input = try scratch.write("plain", Data("x".utf8))
        #expect(try Tools.run("vfs-encrypt", ["-r", key.recipient, "-o", "/dev/null", input]).status == 0)
        var info = stat()
        #expect(stat("/dev/null", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR)
        try FileManager.default.createSymbolicLink(atPath: scratch.path("link"), withDestinationPath: "target")
        #expect(try Tools.run("vfs-encrypt", ["-r", key.recipient, "-o", scratch.path("link"), input]).status == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: scratch.path("link")) == "target")
        #expect(try Tools.run("vfs-decrypt", ["-i", key.path, scratch.path("target")]).out == "x")
    }

    @Test("--help has a synopsis and an example; --version prints the version")
    func helpAndVersion() throws {
        for tool in ["vfs-encrypt", "vfs-decrypt", "vfs-keygen"] {
            let help = try Tools.run(tool, ["--help"])
            #expect(help.status == 0)
            #expect(help.out.contains("USAGE: \(tool)"))
            #expect(help.out.contains("Examples:"))
            #expect(help.out.contains("Exit status:"))
            let version = try Tools.run(tool, ["--version"])
            #expect(version.status == 0 && version.out.hasPrefix("\(tool) ") && version.out.dropFirst(tool.count + 1).first?.isNumber == true)
        }
    }

    @Test("a mistyped option is reported as unknown, before any check across options", arguments: ["vfs-encrypt", "vfs-wrap", "vfs-shred", "vfs-unwrap"])
    func unknownOptionFirst(tool: String) throws {
        let run = try Tools.run(tool, ["--recipeint", "x"])
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("\(tool): error: unknown option '--recipeint'"), "\(run.stderr)")
    }

    @Test("-o over an existing file keeps its permissions (also through a link); a new file follows the umask")
    func outputKeepsMode() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let secret = try scratch.write("secret.txt", Data("the plan\n".utf8))
        #expect(try Tools.run("vfs-encrypt", ["-r", key.recipient, "-o", scratch.path("s.age"), secret]).status == 0)
        func mode(_ name: String) throws -> Int { try FileManager.default.attributesOfItem(atPath: scratch.path(name))[.posixPermissions] as! Int }
        try scratch.write("private.txt", Data("old\n".utf8))
        #expect(chmod(scratch.path("private.txt"), 0o600) == 0)
        #expect(symlink(scratch.path("private.txt"), scratch.path("link")) == 0)
        for target in ["private.txt", "link"] {
            let run = try Tools.run("vfs-decrypt", ["-i", key.path, "-o", scratch.path(target), scratch.path("s.age")])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try mode("private.txt") == 0o600, "after -o \(target)")
            #expect(try scratch.read("private.txt") == Data("the plan\n".utf8))
        }
        #expect(try Tools.run("vfs-decrypt", ["-i", key.path, "-o", scratch.path("new.txt"), scratch.path("s.age")]).status == 0)
        let mask = umask(0o022)
        umask(mask)
        #expect(try mode("new.txt") == 0o666 & ~Int(mask))
    }

    /// Starts vfs-encrypt -o OUT reading a pipe, with SIGHUP at its default or ignored (as
    /// under nohup), feeds it half the input, waits for its temporary file, sends SIGHUP.
    func hangUpMidway(ignored: Bool) throws -> (scratch: TestFolder, process: Process, input: Pipe, plain: Data, recipientKey: String) {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let plain = testBytes(4 << 20, seed: 11)
        _ = Tools.ignoreSIGPIPE
        let process = Process()
        // Through python, which sets the child's SIGHUP as asked whatever the runner has.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import os, signal, sys; signal.signal(signal.SIGHUP, signal.SIG_IGN if sys.argv[1] == 'ignore' else signal.SIG_DFL); signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGHUP]); os.execv(sys.argv[2], sys.argv[2:])",
                             ignored ? "ignore" : "default",
                             Tools.binDir.appendingPathComponent("vfs-encrypt").path, "-r", key.recipient, "-o", scratch.path("out.age")]
        let input = Pipe()
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        try process.run()
        try input.fileHandleForWriting.write(contentsOf: plain.prefix(plain.count / 2))
        #expect(waitForPendingOutput(pid: process.processIdentifier, in: scratch.url.path, prefix: ".out.age.tmp-"),
                "the temporary output file never appeared")
        kill(process.processIdentifier, SIGHUP)
        return (scratch, process, input, plain, key.path)
    }

    @Test("a hang-up mid-run leaves no output and no temporary file; under nohup it is ignored and the run completes", .enabled(if: getuid() == 0, "the tools are not dumpable: only root reads their /proc/PID/fd (waitForPendingOutput)"))
    func hangUp() throws {
        let killed = try hangUpMidway(ignored: false)
        killed.process.waitUntilExit()
        try? killed.input.fileHandleForWriting.close()
        #expect(killed.process.terminationReason == .uncaughtSignal && killed.process.terminationStatus == SIGHUP)
        #expect(try killed.scratch.listing() == ["key.txt"])

        let kept = try hangUpMidway(ignored: true)
        usleep(200_000)
        #expect(kept.process.isRunning, "SIGHUP ignored on entry must stay ignored")
        try kept.input.fileHandleForWriting.write(contentsOf: kept.plain.suffix(from: kept.plain.count / 2))
        try kept.input.fileHandleForWriting.close()
        kept.process.waitUntilExit()
        #expect(kept.process.terminationReason == .exit && kept.process.terminationStatus == 0)
        #expect(try kept.scratch.listing() == ["key.txt", "out.age"])
        let decrypted = try Tools.run("vfs-decrypt", ["-i", kept.recipientKey, kept.scratch.path("out.age")])
        #expect(decrypted.status == 0 && decrypted.stdout == kept.plain)
    }
}
