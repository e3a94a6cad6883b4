import Foundation
import Testing
import VFSTestSupport
import VFSBundle
import VFSCore

/// vfs-wrap and vfs-unwrap as a user runs them, with the standard tools beside them.
@Suite("vfs-wrap / vfs-unwrap end to end")
struct WrapTests {
    func keypair(_ scratch: TestFolder, _ name: String = "key.txt") throws -> (path: String, recipient: String) {
        try AgeToolsTests().keypair(scratch, name)
    }

    /// A small tree: a file, a folder with a private mode, a larger file, a relative link.
    func makeTree(_ scratch: TestFolder) throws -> String {
        let root = scratch.path("docs")
        try FileManager.default.createDirectory(atPath: root + "/sub", withIntermediateDirectories: true)
        try Data("quarterly numbers\n".utf8).write(to: URL(fileURLWithPath: root + "/report.txt"))
        try testBytes(200_000, seed: 3).write(to: URL(fileURLWithPath: root + "/sub/data.bin"))
        try FileManager.default.createSymbolicLink(atPath: root + "/sub/latest", withDestinationPath: "../report.txt")
        chmod(root + "/sub", 0o750)
        chmod(root + "/report.txt", 0o600)
        return root
    }

    func sh(_ script: String) throws -> Run { try Tools.run("bash", ["-c", "set -o pipefail; " + script]) }

    @Test("a tree round-trips; age | bsdtar opens it; zstd -t accepts the stream; bsdtar lists it from a pipe")
    func roundTripAndStandardTools() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let tree = try makeTree(scratch)
        let wrap = try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("docs.vfs"), tree])
        #expect(wrap.status == 0, "\(wrap.stderr)")
        #expect(wrap.stderr.isEmpty)
        try FileManager.default.createDirectory(atPath: scratch.path("out"), withIntermediateDirectories: false)
        let unwrap = try Tools.run("vfs-unwrap", ["-i", key.path, "-C", scratch.path("out"), scratch.path("docs.vfs")])
        #expect(unwrap.status == 0, "\(unwrap.stderr)")
        #expect(unwrap.stdout.isEmpty)
        #expect(try sh("diff -r '\(tree)' '\(scratch.path("out/docs"))'").status == 0)
        #expect(try scratch.listing().contains("out") && FileManager.default.contentsOfDirectory(atPath: scratch.path("out")) == ["docs"])
        let mode = try FileManager.default.attributesOfItem(atPath: scratch.path("out/docs/sub"))[.posixPermissions] as? Int
        #expect(mode == 0o750)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: scratch.path("out/docs/sub/latest")) == "../report.txt")

        // Standard tools: age decrypts, zstd checks, bsdtar reads from a pipe and extracts.
        let bundle = scratch.path("docs.vfs")
        #expect(try sh("age -d -i '\(key.path)' '\(bundle)' | zstd -t -q").status == 0)
        let listing = try sh("age -d -i '\(key.path)' '\(bundle)' | bsdtar -tf -")
        #expect(listing.status == 0, "\(listing.stderr)")
        #expect(listing.out.split(separator: "\n").first == ".vfs-manifest.json")
        #expect(listing.out.contains("docs/sub/data.bin"))
        try FileManager.default.createDirectory(atPath: scratch.path("bsd"), withIntermediateDirectories: false)
        let bsd = try sh("cd '\(scratch.path("bsd"))' && age -d -i '\(key.path)' '\(bundle)' | bsdtar -xf -")
        #expect(bsd.status == 0, "\(bsd.stderr)")
        #expect(try sh("diff -r '\(tree)' '\(scratch.path("bsd/docs"))'").status == 0)
        let manifest = try JSONSerialization.jsonObject(with: scratch.read("bsd/.vfs-manifest.json")) as? [String: Any]
        #expect(manifest?["version"] as? Int == 1)
    }

    @Test("names that are not UTF-8 keep their bytes through vfs-wrap / vfs-unwrap and age | bsdtar; one that can't go is named and the rest still goes")
    func rawNames() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        // docs/caf\xff.txt, docs/d\xfe/x, docs/l -> caf\xff.txt, and docs/odd\u{f7ff} (a real
        // U+F7FF, which the bundle uses for raw bytes: it can't go).
        let made = try sh("""
            cd '\(scratch.url.path)' && mkdir -p docs/"$(printf 'd\\376')" && printf 'raw name\\n' > docs/"$(printf 'caf\\377.txt')" \
            && printf 'inner\\n' > docs/"$(printf 'd\\376')"/x && ln -s "$(printf 'caf\\377.txt')" docs/l \
            && printf 'odd\\n' > docs/"$(printf 'odd\\357\\237\\277')"
            """)
        #expect(made.status == 0, "\(made.stderr)")
        let bundle = scratch.path("docs.vfs")
        let wrap = try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", bundle, scratch.path("docs")])
        #expect(wrap.status == 1, "\(wrap.stderr)")
        #expect(wrap.stderr.contains("leaving out \"\(scratch.path("docs"))/odd\\u{f7ff}\""), "\(wrap.stderr)")
        #expect(wrap.stderr.contains("1 name could not be stored or read"), "\(wrap.stderr)")
        // The exact bytes come back, from vfs-unwrap and from age -d | bsdtar -x.
        let check = """
            [ "$(cat "$(printf 'docs/caf\\377.txt')")" = 'raw name' ] && [ "$(cat "$(printf 'docs/d\\376/x')")" = inner ] \
            && [ "$(readlink docs/l)" = "$(printf 'caf\\377.txt')" ] && [ "$(ls docs | wc -l)" = 3 ]
            """
        try FileManager.default.createDirectory(atPath: scratch.path("out"), withIntermediateDirectories: false)
        let unwrap = try Tools.run("vfs-unwrap", ["-i", key.path, "-C", scratch.path("out"), bundle])
        #expect(unwrap.status == 0, "\(unwrap.stderr)")
        let unwrapped = try sh("cd '\(scratch.path("out"))' && " + check)
        #expect(unwrapped.status == 0, "\(unwrapped.stderr)")
        try FileManager.default.createDirectory(atPath: scratch.path("bsd"), withIntermediateDirectories: false)
        let bsd = try sh("cd '\(scratch.path("bsd"))' && age -d -i '\(key.path)' '\(bundle)' | bsdtar -xf - && " + check)
        #expect(bsd.status == 0, "\(bsd.stderr)")
        // The manifest records the bytes: base64 beside a readable \xHH form.
        let manifest = try JSONSerialization.jsonObject(with: scratch.read("bsd/.vfs-manifest.json")) as? [String: Any]
        let entries = manifest?["entries"] as? [[String: Any]] ?? []
        let raw = entries.first { $0["path"] as? String == "docs/caf\\xff.txt" }
        #expect(raw?["path_base64"] as? String == Data(Array("docs/caf".utf8) + [0xFF] + Array(".txt".utf8)).base64EncodedString())
        let link = entries.first { $0["path"] as? String == "docs/l" }
        #expect(link?["target_base64"] as? String == Data(Array("caf".utf8) + [0xFF] + Array(".txt".utf8)).base64EncodedString())
        // The listing escapes the byte.
        let list = try Tools.run("vfs-unwrap", ["-t", "-i", key.path, bundle])
        #expect(list.out.contains("docs/caf\\xff.txt"), "\(list.out)")
    }

    @Test("--no-compress stores a plain pax archive")
    func noCompress() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let file = try scratch.write("a.txt", Data("hello\n".utf8))
        #expect(try Tools.run("vfs-wrap", ["-r", key.recipient, "--no-compress", "-o", scratch.path("a.vfs"), file]).status == 0)
        let plain = try Tools.run("age", ["-d", "-i", key.path, scratch.path("a.vfs")])
        // A tar header: the pax "ustar" magic at offset 257, no zstd magic at the start.
        #expect(plain.stdout.count % 512 == 0 && plain.stdout.count >= 1024)
        #expect(String(decoding: plain.stdout[257..<262], as: UTF8.self) == "ustar")
        #expect(try Tools.run("vfs-unwrap", ["-i", key.path, "--stdout", scratch.path("a.vfs")]).out == "hello\n")
    }

    @Test("random content is wrapped without zstd and round-trips; text and a folder of both by their weight are compressed; --compress and --no-compress force either")
    func compressionFromSamples() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let random = try scratch.write("random.bin", testBytes(6 << 20, seed: 31))
        let text = try scratch.write("log.txt", base64Text(5 << 20, seed: 32))
        try FileManager.default.createDirectory(atPath: scratch.path("mixed"), withIntermediateDirectories: true)
        try scratch.write("mixed/big.bin", testBytes(6 << 20, seed: 33))
        for i in 0..<3 { try scratch.write("mixed/note\(i).txt", base64Text(2 << 10, seed: 40 + UInt64(i))) }
        /// The bundle's plaintext starts with zstd's magic.
        func zstd(_ arguments: [String], _ name: String) throws -> Bool {
            let bundle = scratch.path(name + ".vfs")
            let wrap = try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", bundle] + arguments)
            #expect(wrap.status == 0, "\(wrap.stderr)")
            let plain = try Tools.run("age", ["-d", "-i", key.path, bundle])
            #expect(plain.status == 0)
            let zstd = plain.stdout.prefix(4) == Data([0x28, 0xB5, 0x2F, 0xFD])
            if !zstd { #expect(String(decoding: plain.stdout[257..<262], as: UTF8.self) == "ustar", "a plain pax archive") }
            return zstd
        }
        #expect(try !zstd([random], "random"))
        #expect(try zstd([text], "text"))
        // 6 KiB of text beside 6 MiB of random data: not worth it.
        #expect(try !zstd([scratch.path("mixed")], "mixed"))
        #expect(try zstd(["--compress", random], "forced"))
        #expect(try !zstd(["--no-compress", text], "plain"))

        // The plain one opens as any other, its digest checked.
        let out = scratch.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let unwrap = try Tools.run("vfs-unwrap", ["-i", key.path, "-C", out, scratch.path("random.vfs")])
        #expect(unwrap.status == 0, "\(unwrap.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/random.bin")) == testBytes(6 << 20, seed: 31))
    }

    @Test("-g GROUP encrypts to the group's recipients file and records the group; --access-id is recorded")
    func groups() throws {
        let scratch = try TestFolder()
        let a = try keypair(scratch, "a.txt"), b = try keypair(scratch, "b.txt")
        let home = scratch.path("home")
        try FileManager.default.createDirectory(atPath: home + "/groups", withIntermediateDirectories: true)
        try Data("# the team\n\(a.recipient)\n\(b.recipient)\n".utf8).write(to: URL(fileURLWithPath: home + "/groups/team"))
        let env = ["VFS_HOME": home]
        let file = try scratch.write("note.md", Data("# note\n".utf8))
        let wrap = try Tools.run("vfs-wrap", ["-g", "team", "--access-id", "viewer-1", "-o", scratch.path("n.vfs"), file], environment: env)
        #expect(wrap.status == 0, "\(wrap.stderr)")
        for key in [a, b] {
            let list = try Tools.run("vfs-unwrap", ["-i", key.path, "--list", "--json", scratch.path("n.vfs")])
            #expect(list.status == 0, "\(list.stderr)")
            let json = try JSONSerialization.jsonObject(with: list.stdout) as? [String: Any]
            #expect(json?["group"] as? String == "team")
            #expect(json?["access_id"] as? String == "viewer-1")
            let entries = json?["entries"] as? [[String: Any]]
            #expect(entries?.count == 1 && entries?[0]["path"] as? String == "note.md" && entries?[0]["type"] as? String == "file")
            #expect(entries?[0]["sha256"] as? String == SHA256.hash(Array("# note\n".utf8)).hexString)
            #expect(entries?[0]["mode"] as? String != nil && entries?[0]["mtime"] as? Int != nil && entries?[0]["size"] as? Int == 7)
        }
        let text = try Tools.run("vfs-unwrap", ["-i", a.path, "--list", scratch.path("n.vfs")])
        #expect(text.out.contains("# group: team\n") && text.out.contains("# access id: viewer-1\n"))
        #expect(text.out.contains(" 7 ") && text.out.hasSuffix(" note.md\n"))

        let unknown = try Tools.run("vfs-wrap", ["-g", "nobody", "-o", scratch.path("x.vfs"), file], environment: env)
        #expect(unknown.status == 66)
        #expect(unknown.stderr.contains("unknown group \"nobody\"") && unknown.stderr.contains("hint: create"))
        #expect(try Tools.run("vfs-wrap", ["-g", "../etc", "-o", scratch.path("x.vfs"), file], environment: env).status == 64)
        #expect(try Tools.run("vfs-wrap", ["-g", "team", "-g", "team", "-o", scratch.path("x.vfs"), file], environment: env).status == 64)
        #expect(!scratch.exists("x.vfs"))
    }

    @Test("standard input with --name; --stdout streams a one-file bundle")
    func standardInput() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let data = testBytes(300_000, seed: 9)
        let wrap = try Tools.run("vfs-wrap", ["-r", key.recipient, "--name", "dump.sql", "-"], stdin: data)
        #expect(wrap.status == 0, "\(wrap.stderr)")
        let bundle = try scratch.write("dump.vfs", wrap.stdout)
        let out = try Tools.run("vfs-unwrap", ["-i", key.path, "--stdout", bundle])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stdout == data)
        // From stdin too, and extracted under its name.
        let extracted = try Tools.run("vfs-unwrap", ["-i", key.path, "-C", scratch.url.path], stdin: wrap.stdout)
        #expect(extracted.status == 0, "\(extracted.stderr)")
        #expect(try scratch.read("dump.sql") == data)

        // (No stdin for runs that fail before reading it: the runner must not get SIGPIPE.)
        let noName = try Tools.run("vfs-wrap", ["-r", key.recipient, "-"])
        #expect(noName.status == 64 && noName.stderr.contains("--name"))
        #expect(try Tools.run("vfs-wrap", ["-r", key.recipient]).status == 64)
        #expect(try Tools.run("vfs-wrap", ["-r", key.recipient, "--name", "a/b", "-"]).status == 64)
    }

    @Test("--stdout writes the files of a bundle of several entries one after another, as tar -xO")
    func stdoutConcatenates() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let tree = try makeTree(scratch)
        #expect(try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("t.vfs"), tree]).status == 0)
        let run = try Tools.run("vfs-unwrap", ["-i", key.path, "--stdout", scratch.path("t.vfs")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == Data("quarterly numbers\n".utf8) + testBytes(200_000, seed: 3))
        #expect(run.stderr.isEmpty)
    }

    @Test("existing files are kept without --force and replaced with it")
    func force() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        try FileManager.default.createDirectory(atPath: scratch.path("in"), withIntermediateDirectories: true)
        try Data("new\n".utf8).write(to: URL(fileURLWithPath: scratch.path("in/a.txt")))
        #expect(try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("a.vfs"), scratch.path("in/a.txt")]).status == 0)
        try FileManager.default.createDirectory(atPath: scratch.path("out"), withIntermediateDirectories: true)
        try Data("mine\n".utf8).write(to: URL(fileURLWithPath: scratch.path("out/a.txt")))
        let refused = try Tools.run("vfs-unwrap", ["-i", key.path, "-C", scratch.path("out"), scratch.path("a.vfs")])
        #expect(refused.status == 73)
        #expect(refused.stderr.contains("already exists") && refused.stderr.contains("--force"))
        #expect(try scratch.read("out/a.txt") == Data("mine\n".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("out")) == ["a.txt"])
        let forced = try Tools.run("vfs-unwrap", ["-i", key.path, "-C", scratch.path("out"), "--force", scratch.path("a.vfs")])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try scratch.read("out/a.txt") == Data("new\n".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("out")) == ["a.txt"])
    }

    @Test("input that is not age: exit 65 with a hint, or copied out unchanged with --passthrough")
    func passthrough() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let plain = try scratch.write("plain.pdf", Data("%PDF-1.7 not wrapped".utf8))
        let refused = try Tools.run("vfs-unwrap", ["-i", key.path, "--stdout", plain])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("not an age file") && refused.stderr.contains("--passthrough"))
        #expect(refused.stdout.isEmpty)
        let out = try Tools.run("vfs-unwrap", ["--passthrough", "--stdout", plain])
        #expect(out.status == 0 && out.stdout == Data("%PDF-1.7 not wrapped".utf8))
        try FileManager.default.createDirectory(atPath: scratch.path("inbox"), withIntermediateDirectories: true)
        let copied = try Tools.run("vfs-unwrap", ["--passthrough", "-C", scratch.path("inbox"), plain])
        #expect(copied.status == 0, "\(copied.stderr)")
        #expect(try scratch.read("inbox/plain.pdf") == Data("%PDF-1.7 not wrapped".utf8))
        #expect(try Tools.run("vfs-unwrap", ["--passthrough", "-C", scratch.path("inbox"), plain]).status == 73)
        #expect(try Tools.run("vfs-unwrap", ["--passthrough", "--stdout"], stdin: Data("x".utf8)).out == "x")
        // An age file that is not a bundle is not passed through.
        let age = try Tools.run("vfs-encrypt", ["-r", key.recipient, "-o", scratch.path("p.age"), plain])
        #expect(age.status == 0)
        let notBundle = try Tools.run("vfs-unwrap", ["-i", key.path, "--passthrough", "--stdout", scratch.path("p.age")])
        #expect(notBundle.status == 65 && notBundle.stderr.contains("not a vfs bundle") && notBundle.stdout.isEmpty)
    }

    @Test("no identity or the wrong one is 77; a tampered bundle is 65; a failed wrap leaves no output")
    func failures() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch), other = try keypair(scratch, "other.txt")
        let tree = try makeTree(scratch)
        #expect(try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("t.vfs"), tree]).status == 0)
        try FileManager.default.createDirectory(atPath: scratch.path("out"), withIntermediateDirectories: true)
        let noKey = try Tools.run("vfs-unwrap", ["-C", scratch.path("out"), scratch.path("t.vfs")])
        #expect(noKey.status == 77 && noKey.stderr.contains("hint: use -i FILE"))
        #expect(try Tools.run("vfs-unwrap", ["-i", other.path, "-C", scratch.path("out"), scratch.path("t.vfs")]).status == 77)
        var bytes = try scratch.read("t.vfs")
        bytes[bytes.count - 300] ^= 0x01
        try scratch.write("bad.vfs", bytes)
        let tampered = try Tools.run("vfs-unwrap", ["-i", key.path, "-C", scratch.path("out"), scratch.path("bad.vfs")])
        #expect(tampered.status == 65, "\(tampered.stderr)")
        let truncated = try scratch.write("cut.vfs", try scratch.read("t.vfs").dropLast(20))
        #expect(try Tools.run("vfs-unwrap", ["-i", key.path, "-C", scratch.path("out"), truncated]).status == 65)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("out")) == [])

        let missing = try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("m.vfs"), tree, scratch.path("nope")])
        #expect(missing.status == 66 && missing.stderr.contains("nope"))
        #expect(!scratch.exists("m.vfs"))
        #expect(try Tools.run("vfs-unwrap", ["-i", key.path, scratch.path("nope")]).status == 66)
        let noFolder = try Tools.run("vfs-unwrap", ["-i", key.path, "-C", scratch.path("nope"), scratch.path("t.vfs")])
        #expect(noFolder.status == 73 && noFolder.stderr.contains("cannot extract into"))
        #expect(try Tools.run("vfs-unwrap", ["-i", key.path, "--stdout", "--list", scratch.path("t.vfs")]).status == 64)
        #expect(try Tools.run("vfs-wrap", [tree]).status == 64)
    }

    /// Each hostile bundle: what the manifest says, what the archive holds, and a word of the refusal.
    static let hostile: [(name: String, manifest: [BundleManifest.Entry], entries: [RawEntry], why: String)] = [
        ("absolute path", [manifestEntry("/tmp/vfs-evil-abs", content: "x")], [RawEntry(path: "/tmp/vfs-evil-abs", content: "x")], "absolute"),
        ("absolute path not in the manifest", [manifestEntry("a", content: "x")], [RawEntry(path: "/tmp/vfs-evil-abs", content: "x")], "absolute"),
        ("dot-dot", [manifestEntry("../evil.txt", content: "x")], [RawEntry(path: "../evil.txt", content: "x")], "\"..\""),
        ("dot-dot not in the manifest", [manifestEntry("a", content: "x")], [RawEntry(path: "../evil.txt", content: "x")], "\"..\""),
        ("symlink out", [manifestEntry("l", .symlink, mode: 0o777, target: "../outside")],
         [RawEntry(path: "l", kind: .symlink, mode: 0o777, target: "../outside")], "outside"),
        ("symlink to an absolute path", [manifestEntry("l", .symlink, mode: 0o777, target: "/etc")],
         [RawEntry(path: "l", kind: .symlink, mode: 0o777, target: "/etc")], "outside"),
        ("write through a symlink", [manifestEntry("l", .symlink, mode: 0o777, target: "."), manifestEntry("l/evil", content: "x")],
         [RawEntry(path: "l", kind: .symlink, mode: 0o777, target: "."), RawEntry(path: "l/evil", content: "x")], "below the symbolic link"),
        ("hard link out", [manifestEntry("h", content: "")], [RawEntry(path: "h", kind: .hardlink, target: "../../etc/passwd")], "hard link"),
        ("hard link inside", [manifestEntry("a", content: "x"), manifestEntry("h", content: "")],
         [RawEntry(path: "a", content: "x"), RawEntry(path: "h", kind: .hardlink, target: "a")], "hard link"),
        ("device node", [manifestEntry("null", content: "")], [RawEntry(path: "null", kind: .characterDevice, mode: 0o666)], "character device"),
        ("setuid in the archive", [manifestEntry("run", content: "#!/bin/sh\n", mode: 0o755)],
         [RawEntry(path: "run", content: "#!/bin/sh\n", mode: 0o4755)], "setuid"),
        ("setgid in the manifest", [manifestEntry("run", content: "#!/bin/sh\n", mode: 0o2755)],
         [RawEntry(path: "run", content: "#!/bin/sh\n", mode: 0o2755)], "setuid or setgid"),
        ("entry not in the manifest", [manifestEntry("a", content: "x")],
         [RawEntry(path: "a", content: "x"), RawEntry(path: "extra", content: "y")], "not in the manifest"),
        ("digest mismatch", [manifestEntry("a", content: "honest")], [RawEntry(path: "a", content: "forged")], "SHA-256"),
        ("no manifest", [], [RawEntry(path: "a", content: "x")], "not a vfs bundle"),
        ("sparse file", [manifestEntry("s", content: "x")], [RawEntry(path: "s", kind: .sparse, content: "x")], "it is a sparse file"),
    ]

    @Test("hostile bundles are refused with 65, nothing written in or outside DIR", arguments: WrapTests.hostile.indices)
    func hostileBundles(index: Int) throws {
        let (name, manifest, entries, why) = Self.hostile[index]
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        try writeRawBundle(to: scratch.path("plain.tar.zst"),
                           manifest: name == "no manifest" ? nil : BundleManifest(group: nil, accessID: nil, sender: nil, entries: manifest),
                           entries: entries)
        #expect(try Tools.run("age", ["-r", key.recipient, "-o", scratch.path("evil.vfs"), scratch.path("plain.tar.zst")]).status == 0)
        let target = scratch.path("dir/inner")
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        let before = try scratch.listing()
        let run = try Tools.run("vfs-unwrap", ["-i", key.path, "-C", target, scratch.path("evil.vfs")])
        #expect(run.status == 65, "\(name): \(run.stderr)")
        #expect(run.stderr.contains(why), "\(name): \(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: target) == [], "\(name)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("dir")) == ["inner"], "\(name)")
        #expect(try scratch.listing() == before, "\(name)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/vfs-evil-abs"))
    }

    @Test("names with control characters are escaped in --list and in messages (--json keeps them exact)")
    func controlCharactersEscaped() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let name = "evil\u{1B}[2J\u{1B}[31mred\nrwxr-xr-x fake.txt"
        try FileManager.default.createDirectory(atPath: scratch.path("in"), withIntermediateDirectories: true)
        try Data("x\n".utf8).write(to: URL(fileURLWithPath: scratch.path("in") + "/" + name))
        #expect(try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("b.vfs"), scratch.path("in") + "/" + name]).status == 0)
        let list = try Tools.run("vfs-unwrap", ["-i", key.path, "--list", scratch.path("b.vfs")])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(!list.out.contains("\u{1B}"))
        #expect(list.out.contains("evil\\x1b[2J\\x1b[31mred\\nrwxr-xr-x fake.txt"), "\(list.out)")
        #expect(list.out.split(separator: "\n").filter { !$0.hasPrefix("#") }.count == 1, "one entry, one line")
        let json = try Tools.run("vfs-unwrap", ["-i", key.path, "--list", "--json", scratch.path("b.vfs")])
        let manifest = try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any]
        #expect((manifest?["entries"] as? [[String: Any]])?.first?["path"] as? String == name)
        // The same name already in DIR: the error quotes it escaped, on one line.
        let out = scratch.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try Data("mine\n".utf8).write(to: URL(fileURLWithPath: out + "/" + name))
        let refused = try Tools.run("vfs-unwrap", ["-i", key.path, "-C", out, scratch.path("b.vfs")])
        #expect(refused.status == 73)
        #expect(!refused.stderr.contains("\u{1B}"))
        #expect(refused.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("vfs-unwrap: ") }, "\(refused.stderr)")
    }

    @Test("a move into place that fails midway takes back what it placed: exit 73, DIR as it was")
    func failedMoveRollsBack() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        try FileManager.default.createDirectory(atPath: scratch.path("in/d"), withIntermediateDirectories: true)
        try Data("a\n".utf8).write(to: URL(fileURLWithPath: scratch.path("in/a.txt")))
        try Data("x\n".utf8).write(to: URL(fileURLWithPath: scratch.path("in/d/x.txt")))
        #expect(try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("b.vfs"), scratch.path("in/a.txt"), scratch.path("in/d")]).status == 0)
        // DIR holds a folder d that can't be written: a.txt moves in, then d/x.txt can't.
        let out = scratch.path("out")
        try FileManager.default.createDirectory(atPath: out + "/d", withIntermediateDirectories: true)
        var arguments = ["-q", "-i", key.path, "-C", out, scratch.path("b.vfs")]
        var tool = "vfs-unwrap"
        if getuid() == 0 {
            // root writes anywhere: run as nobody, who owns DIR and may read the inputs.
            for path in [out, out + "/d"] { #expect(chown(path, 65534, 65534) == 0) }
            #expect(chmod(key.path, 0o644) == 0)
            arguments = OtherUser.setpriv + [try OtherUser.tool("vfs-unwrap")] + arguments
            tool = "setpriv"
        }
        #expect(chmod(out + "/d", 0o555) == 0)
        defer { chmod(out + "/d", 0o755) }
        let run = try Tools.run(tool, arguments)
        #expect(run.status == 73, "\(run.stderr)")
        #expect(run.stderr.contains("cannot move into place"), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["d"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: out + "/d") == [])
    }

    /// Writes all of `bundle` but its last MiB to a running vfs-unwrap, then waits until
    /// its staging folder appears in `out`: the plan is made and extraction has begun.
    func feedAllButLastMiB(_ bundle: Data, to input: Pipe, stagingIn out: String) throws {
        try input.fileHandleForWriting.write(contentsOf: bundle.prefix(bundle.count - (1 << 20)))
        var staged = false
        for _ in 0..<3000 where !staged {
            staged = (try? FileManager.default.contentsOfDirectory(atPath: out))?.contains { $0.hasPrefix(".vfs-unwrap-") } ?? false
            if !staged { usleep(10_000) }
        }
        #expect(staged, "the staging folder never appeared")
    }

    @Test("a file that appears in DIR during extraction is not replaced without --force (exit 73, nothing left)")
    func appearsDuringExtraction() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let tree = scratch.path("t")
        try FileManager.default.createDirectory(atPath: tree, withIntermediateDirectories: true)
        try Data("from the bundle\n".utf8).write(to: URL(fileURLWithPath: tree + "/late.txt"))
        try testBytes(8 << 20, seed: 9).write(to: URL(fileURLWithPath: tree + "/big.bin"))
        #expect(try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("t.vfs"), tree + "/late.txt", tree + "/big.bin"]).status == 0)
        let bundle = try scratch.read("t.vfs")
        let out = scratch.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        _ = Tools.ignoreSIGPIPE
        let process = Process()
        process.executableURL = Tools.binDir.appendingPathComponent("vfs-unwrap")
        process.arguments = ["-q", "-i", key.path, "-C", out]
        let input = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardError = errors
        try process.run()
        // All but the last MiB: the plan is made and extraction waits for more.
        try feedAllButLastMiB(bundle, to: input, stagingIn: out)
        try Data("the user's own file\n".utf8).write(to: URL(fileURLWithPath: out + "/late.txt"))
        try input.fileHandleForWriting.write(contentsOf: bundle.suffix(1 << 20))
        try input.fileHandleForWriting.close()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 73, "\(stderr)")
        #expect(stderr.contains("late.txt"), "\(stderr)")
        #expect(try String(contentsOfFile: out + "/late.txt", encoding: .utf8) == "the user's own file\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["late.txt"])
    }

    @Test("a folder being merged into, swapped for a link or another folder mid-extraction: nothing lands outside DIR (exit 73)",
          arguments: ["link", "folder"])
    func mergeFolderSwapped(swap: String) throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let tree = scratch.path("t")
        try FileManager.default.createDirectory(atPath: tree + "/d", withIntermediateDirectories: true)
        try Data("first\n".utf8).write(to: URL(fileURLWithPath: tree + "/a.txt"))
        try Data("planted\n".utf8).write(to: URL(fileURLWithPath: tree + "/d/x.txt"))
        try testBytes(8 << 20, seed: 5).write(to: URL(fileURLWithPath: tree + "/z.bin"))
        #expect(try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("t.vfs"), tree + "/a.txt", tree + "/d", tree + "/z.bin"]).status == 0)
        let bundle = try scratch.read("t.vfs")
        // DIR already has d/, so the plan merges into it.
        let out = scratch.path("out"), outside = scratch.path("outside")
        for folder in [out + "/d", outside] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        try Data("mine\n".utf8).write(to: URL(fileURLWithPath: out + "/d/mine.txt"))
        _ = Tools.ignoreSIGPIPE
        let process = Process()
        process.executableURL = Tools.binDir.appendingPathComponent("vfs-unwrap")
        process.arguments = ["-q", "-i", key.path, "-C", out]
        let input = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardError = errors
        try process.run()
        try feedAllButLastMiB(bundle, to: input, stagingIn: out)
        // Another user who may rename in DIR moves d away and puts a link (or a folder
        // of their own) in its place.
        #expect(rename(out + "/d", out + "/d-moved") == 0)
        if swap == "link" {
            #expect(symlink(outside, out + "/d") == 0)
        } else {
            #expect(rename(outside, out + "/d") == 0)
        }
        try input.fileHandleForWriting.write(contentsOf: bundle.suffix(1 << 20))
        try input.fileHandleForWriting.close()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 73, "\(stderr)")
        #expect(stderr.contains("error: \"\(out)/d\" was replaced during extraction; nothing is placed through it"), "\(stderr)")
        let swapped = swap == "link" ? outside : out + "/d"
        #expect(try FileManager.default.contentsOfDirectory(atPath: swapped) == [], "a file landed in the swapped-in folder")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["d", "d-moved"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: out + "/d-moved") == ["mine.txt"])
    }

    @Test("a bundle that expands more than 1000 times is refused (65) before writing, or as it streams from a pipe; --max-expansion 0 lifts the cap")
    func expansionCapped() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        try Data(count: 64 << 20).write(to: URL(fileURLWithPath: scratch.path("zeros.img")))
        #expect(try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("z.vfs"), scratch.path("zeros.img")]).status == 0)
        let bundleSize = try scratch.read("z.vfs").count
        #expect(bundleSize * 1000 < 64 << 20, "zeros compress more than 1000:1 (\(bundleSize) bytes)")
        let out = scratch.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)

        let file = try Tools.run("vfs-unwrap", ["-q", "-i", key.path, "-C", out, scratch.path("z.vfs")])
        #expect(file.status == 65, "\(file.stderr)")
        #expect(file.stderr.contains("the bundle's files hold 64.0 MiB in a bundle of"), "\(file.stderr)")
        #expect(file.stderr.contains("more than 1000 times its size"))
        #expect(file.stderr.contains("hint: if you trust it, raise the cap with --max-expansion RATIO, or lift it with --max-expansion 0"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == [])

        let piped = try Tools.run("vfs-unwrap", ["-q", "-i", key.path, "-C", out], stdin: try scratch.read("z.vfs"))
        #expect(piped.status == 65, "\(piped.stderr)")
        #expect(piped.stderr.contains("came out of the first"), "\(piped.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == [])

        let lifted = try Tools.run("vfs-unwrap", ["-q", "-i", key.path, "-C", out, "--max-expansion", "0", scratch.path("z.vfs")])
        #expect(lifted.status == 0, "\(lifted.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/zeros.img")) == Data(count: 64 << 20))
        #expect(try Tools.run("vfs-unwrap", ["--max-expansion", "-1", scratch.path("z.vfs")]).status == 64)
    }

    @Test("the manifest's total is checked against DIR's free space before a byte is written (73 with the figures), as root and as a user", .enabled(if: getuid() == 0, "mounting a small tmpfs and running as another user take root"))
    func freeSpaceChecked() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        #expect(chmod(key.path, 0o644) == 0)
        try testBytes(4 << 20, seed: 12).write(to: URL(fileURLWithPath: scratch.path("big.bin")))
        #expect(try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("b.vfs"), scratch.path("big.bin")]).status == 0)
        let small = scratch.path("small")
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: false)
        try #require(try Tools.run("mount", ["-t", "tmpfs", "-o", "size=2m,mode=0777", "vfs-test", small]).status == 0,
                     "mounting a small tmpfs needs root (CI runs as root)")
        defer { _ = try? Tools.run("umount", ["-l", small]) }
        let unwrap = try OtherUser.tool("vfs-unwrap")
        for asUser in [false, true] {
            let arguments = ["-q", "-i", key.path, "-C", small, scratch.path("b.vfs")]
            let run = asUser ? try Tools.run("setpriv", OtherUser.setpriv + [unwrap] + arguments)
                             : try Tools.run("vfs-unwrap", arguments)
            #expect(run.status == 73, "\(run.stderr)")
            #expect(run.stderr.contains("error: the bundle's files need 4.0 MiB but \"\(small)\" has 2.0 MiB free"), "\(run.stderr)")
            #expect(run.stderr.contains("hint: nothing was written"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: small) == [])
        }
    }

    @Test("modes: a user's umask applies to what vfs-unwrap creates (as tar does); root keeps the bundle's modes", .enabled(if: getuid() == 0, "running as another user takes root"))
    func umaskApplies() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        #expect(chmod(key.path, 0o644) == 0)
        let tree = scratch.path("t")
        try FileManager.default.createDirectory(atPath: tree + "/shared", withIntermediateDirectories: true)
        try Data("notes\n".utf8).write(to: URL(fileURLWithPath: tree + "/shared/notes.txt"))
        try Data("plain\n".utf8).write(to: URL(fileURLWithPath: tree + "/plain.txt"))
        #expect(chmod(tree + "/shared", 0o777) == 0 && chmod(tree + "/shared/notes.txt", 0o666) == 0 && chmod(tree + "/plain.txt", 0o644) == 0)
        #expect(try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("t.vfs"), tree + "/shared", tree + "/plain.txt"]).status == 0)
        func modes(_ folder: String) -> [String] {
            ["shared", "shared/notes.txt", "plain.txt"].map { name in
                var info = stat()
                return lstat(folder + "/" + name, &info) == 0 ? String(info.st_mode & 0o7777, radix: 8) : "missing"
            }
        }
        let unwrap = try OtherUser.tool("vfs-unwrap")
        for (umask, user, expected) in [("077", true, ["700", "600", "600"]), ("022", true, ["755", "644", "644"]),
                                        ("077", false, ["777", "666", "644"])] {
            let out = scratch.path("out-\(umask)-\(user)")
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
            if user { #expect(chown(out, 65534, 65534) == 0) }
            let shell = ["/bin/sh", "-c", "umask \(umask) && exec \"$0\" \"$@\"", unwrap, "-q", "-i", key.path, "-C", out, scratch.path("t.vfs")]
            let run = user ? try Tools.run("setpriv", OtherUser.setpriv + shell)
                           : try Tools.run(shell[0], Array(shell.dropFirst()))
            #expect(run.status == 0, "\(run.stderr)")
            #expect(modes(out) == expected, "umask \(umask), \(user ? "as a user" : "as root")")
        }
    }

    /// Runs a tool as root, or as nobody with `setpriv`.
    func run(_ tool: String, _ arguments: [String], asUser: Bool) throws -> Run {
        guard asUser else { return try Tools.run(tool, arguments) }
        return try Tools.run("setpriv", OtherUser.setpriv + [
                                         try OtherUser.tool(tool)] + arguments)
    }

    @Test("what vfs-wrap makes, vfs-unwrap opens: a setgid folder and a read-only folder go through; a setuid file and a link out are refused at wrap, by name", .enabled(if: getuid() == 0, "the setgid folder and the run as another user take root"),
          arguments: [false, true])
    func wrapMatchesUnwrap(asUser: Bool) throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        #expect(chmod(key.path, 0o644) == 0)
        let tree = scratch.path("t")
        try FileManager.default.createDirectory(atPath: tree + "/group", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: tree + "/sealed", withIntermediateDirectories: true)
        try Data("shared\n".utf8).write(to: URL(fileURLWithPath: tree + "/group/a.txt"))
        try Data("kept\n".utf8).write(to: URL(fileURLWithPath: tree + "/sealed/b.txt"))
        #expect(chmod(tree + "/group", 0o2775) == 0 && chmod(tree + "/sealed", 0o555) == 0)
        defer { chmod(tree + "/sealed", 0o755) }
        let out = scratch.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        if asUser { #expect(chown(out, 65534, 65534) == 0 && chown(scratch.path, 0, 0) == 0 && chmod(scratch.path, 0o777) == 0) }

        // The setgid folder and the read-only folder (each moved into DIR itself).
        let wrapped = try run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("ok.vfs"), tree + "/group", tree + "/sealed"], asUser: asUser)
        #expect(wrapped.status == 0, "\(wrapped.stderr)")
        let list = try Tools.run("vfs-unwrap", ["-i", key.path, "--list", "--json", scratch.path("ok.vfs")])
        let entries = (try JSONSerialization.jsonObject(with: list.stdout) as? [String: Any])?["entries"] as? [[String: Any]]
        #expect(entries?.first { $0["path"] as? String == "group" }?["mode"] as? String == "0775", "the setgid bit is not kept")
        let unwrapped = try run("vfs-unwrap", ["-q", "-i", key.path, "-C", out, scratch.path("ok.vfs")], asUser: asUser)
        #expect(unwrapped.status == 0, "\(unwrapped.stderr)")
        #expect(try String(contentsOfFile: out + "/sealed/b.txt", encoding: .utf8) == "kept\n")
        #expect(try String(contentsOfFile: out + "/group/a.txt", encoding: .utf8) == "shared\n")
        var info = stat()
        #expect(stat(out + "/sealed", &info) == 0 && info.st_mode & 0o7777 == 0o555)
        #expect(stat(out + "/group", &info) == 0 && info.st_mode & 0o2000 == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["group", "sealed"])
        chmod(out + "/sealed", 0o755)

        // A setuid file, and links that leave the wrapped tree: refused by name, no output.
        try Data("#!/bin/sh\n".utf8).write(to: URL(fileURLWithPath: tree + "/group/run"))
        #expect(chmod(tree + "/group/run", 0o4755) == 0)
        let setuid = try run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("suid.vfs"), tree + "/group"], asUser: asUser)
        #expect(setuid.status == 65, "\(setuid.stderr)")
        #expect(setuid.stderr.contains("error: can't wrap \"\(tree)/group/run\": it has the setuid or setgid bit"), "\(setuid.stderr)")
        #expect(setuid.stderr.contains("hint: wrap a copy without the bit"))
        unlink(tree + "/group/run")
        for target in ["../../outside.txt", "/etc/passwd", "hop/.."] {
            try FileManager.default.createDirectory(atPath: tree + "/links", withIntermediateDirectories: true)
            #expect(symlink(target, tree + "/links/l") == 0)
            if target == "hop/.." { #expect(symlink("..", tree + "/links/hop") == 0) }  // out through another link
            let link = try run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("link.vfs"), tree + "/links"], asUser: asUser)
            #expect(link.status == 65, "\(target): \(link.stderr)")
            #expect(link.stderr.contains("error: can't wrap \"\(tree)/links/"), "\(target): \(link.stderr)")
            #expect(link.stderr.contains("the symbolic link points outside what is wrapped"), "\(link.stderr)")
            #expect(!FileManager.default.fileExists(atPath: scratch.path("link.vfs")))
            try FileManager.default.removeItem(atPath: tree + "/links")
        }
    }

    @Test("killed mid-extraction (input stalled), vfs-unwrap removes its staging folder and dies of the signal")
    func interrupted() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let tree = scratch.path("t")
        try FileManager.default.createDirectory(atPath: tree, withIntermediateDirectories: true)
        try Data("first\n".utf8).write(to: URL(fileURLWithPath: tree + "/a.txt"))
        try testBytes(8 << 20, seed: 4).write(to: URL(fileURLWithPath: tree + "/b.bin"))
        #expect(try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("t.vfs"), tree]).status == 0)
        let bundle = try scratch.read("t.vfs")
        let out = scratch.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        _ = Tools.ignoreSIGPIPE
        let process = Process()
        // Through python, which gives the child default signal handling (the test runner
        // may ignore or block SIGTERM, and a signal ignored on entry rightly stays ignored).
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import os, signal, sys; signal.signal(signal.SIGTERM, signal.SIG_DFL); signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM]); os.execv(sys.argv[1], sys.argv[1:])",
                             Tools.binDir.appendingPathComponent("vfs-unwrap").path, "-i", key.path, "-C", out]
        let input = Pipe()
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        try process.run()
        // All but the last MiB, then nothing: the extraction has begun and waits for more.
        try feedAllButLastMiB(bundle, to: input, stagingIn: out)
        kill(process.processIdentifier, SIGTERM)
        for _ in 0..<1000 where process.isRunning { usleep(10_000) }
        if process.isRunning {
            Issue.record("vfs-unwrap ignored SIGTERM")
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == [])
    }

    /// A bundle of a pdf and a txt sealed for group "finance", with a policy file of its own.
    func policyFixture(_ scratch: TestFolder) throws -> (key: (path: String, recipient: String), bundle: String, env: [String: String]) {
        let key = try keypair(scratch)
        try FileManager.default.createDirectory(atPath: scratch.path("in"), withIntermediateDirectories: true)
        try Data("%PDF".utf8).write(to: URL(fileURLWithPath: scratch.path("in/q3.pdf")))
        try Data("notes".utf8).write(to: URL(fileURLWithPath: scratch.path("in/notes.TXT")))
        let home = scratch.path("home")
        try FileManager.default.createDirectory(atPath: home + "/groups", withIntermediateDirectories: true)
        try Data((key.recipient + "\n").utf8).write(to: URL(fileURLWithPath: home + "/groups/finance"))
        let env = ["VFS_HOME": home, "VFS_POLICY": scratch.path("policy.json")]
        let wrap = try Tools.run("vfs-wrap", ["-g", "finance", "-o", scratch.path("q3.vfs"), scratch.path("in/q3.pdf"), scratch.path("in/notes.TXT")],
                                 environment: env)
        #expect(wrap.status == 0, "\(wrap.stderr)")
        return (key, scratch.path("q3.vfs"), env)
    }

    @Test("--for APP: the policy allows, or denies with 77, its reason, and nothing written", arguments: [
        (["add", "viewer"], "viewer", ""),
        (["add", "viewer", "--group", "finance", "--type", "pdf", "--type", "txt", "--expires", "30d"], "viewer", ""),
        ([], "viewer", "is not an approved app"),
        (["add", "other"], "viewer", "is not an approved app"),
        (["add", "viewer", "--type", "pdf"], "viewer", "may not receive files of type \"txt\""),
        (["add", "viewer", "--group", "hr"], "viewer", "may not receive files of group \"finance\""),
        (["add", "viewer", "--expires", "2020-01-01"], "viewer", "expired"),
        (["add", "viewer", "--disable"], "viewer", "disabled"),
    ] as [([String], String, String)])
    func policy(setup: [String], app: String, denial: String) throws {
        let scratch = try TestFolder()
        let (key, bundle, env) = try policyFixture(scratch)
        if !setup.isEmpty {
            // --disable is an update of an added item.
            let add = setup.filter { $0 != "--disable" }
            #expect(try Tools.run("vfs-policy", add, environment: env).status == 0)
            if setup.contains("--disable") { #expect(try Tools.run("vfs-policy", ["update", setup[1], "--disable"], environment: env).status == 0) }
        }
        try FileManager.default.createDirectory(atPath: scratch.path("out"), withIntermediateDirectories: true)
        for mode in [["-C", scratch.path("out")], ["--list"]] {
            let run = try Tools.run("vfs-unwrap", ["-i", key.path, "--for", app] + mode + [bundle], environment: env)
            if denial.isEmpty {
                #expect(run.status == 0, "\(run.stderr)")
            } else {
                #expect(run.status == 77, "\(run.stderr)")
                #expect(run.stderr.contains("vfs-unwrap: error: ") && run.stderr.contains(denial), "\(run.stderr)")
                #expect(run.stdout.isEmpty)
            }
        }
        let written = try FileManager.default.contentsOfDirectory(atPath: scratch.path("out")).sorted()
        #expect(written == (denial.isEmpty ? ["notes.TXT", "q3.pdf"] : []))
    }

    @Test("--for APP with no group in the bundle, a corrupt policy, and passthrough input")
    func policyEdges() throws {
        let scratch = try TestFolder()
        let (key, _, env) = try policyFixture(scratch)
        #expect(try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("nogroup.vfs"), scratch.path("in/q3.pdf")]).status == 0)
        #expect(try Tools.run("vfs-policy", ["add", "viewer", "--group", "finance"], environment: env).status == 0)
        let noGroup = try Tools.run("vfs-unwrap", ["-i", key.path, "--for", "viewer", "--stdout", scratch.path("nogroup.vfs")], environment: env)
        #expect(noGroup.status == 77 && noGroup.stderr.contains("has no group") && noGroup.stdout.isEmpty)
        // Passed-through input is judged by its name's type, with no group.
        #expect(try Tools.run("vfs-policy", ["add", "reader", "--type", "pdf"], environment: env).status == 0)
        let plain = try scratch.write("plain.pdf", Data("%PDF plain".utf8))
        #expect(try Tools.run("vfs-unwrap", ["--passthrough", "--for", "reader", "--stdout", plain], environment: env).out == "%PDF plain")
        let other = try scratch.write("plain.exe", Data("MZ".utf8))
        let denied = try Tools.run("vfs-unwrap", ["--passthrough", "--for", "reader", "--stdout", other], environment: env)
        #expect(denied.status == 77 && denied.stdout.isEmpty)
        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: scratch.path("policy.json")))
        let corrupt = try Tools.run("vfs-unwrap", ["-i", key.path, "--for", "viewer", "--stdout", scratch.path("nogroup.vfs")], environment: env)
        #expect(corrupt.status == 65 && corrupt.stdout.isEmpty)
    }

    @Test("the sender is shown as an unverified claim: a bundle forged by anyone with the group's recipient names any sender")
    func senderIsAClaim() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let forgedSender = "age1qyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqs3290gq"
        try writeRawBundle(to: scratch.path("plain.tar.zst"),
                           manifest: BundleManifest(group: "finance", accessID: nil, sender: forgedSender, entries: [manifestEntry("a.txt", content: "x")]),
                           entries: [RawEntry(path: "a.txt", content: "x")])
        #expect(try Tools.run("age", ["-r", key.recipient, "-o", scratch.path("forged.vfs"), scratch.path("plain.tar.zst")]).status == 0)
        let list = try Tools.run("vfs-unwrap", ["-i", key.path, "--list", scratch.path("forged.vfs")])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.out.contains("# claimed sender: \(forgedSender) (not verified)\n"), "\(list.out)")
        #expect(!list.out.contains("# sender:"))
        let help = try Tools.run("vfs-unwrap", ["--help"])
        #expect(help.out.contains("The sender in a manifest is a claim, not a proof"))
        let flat = help.out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flat.contains("the \"sender\" field of --json is the same unverified claim"))
    }

    @Test("-K NAME: wrap to a keychain identity (recorded as the sender) and unwrap with it")
    func keychain() throws {
        let keychain = try KeychainFixture()
        try keychain.initialise()
        let made = try keychain.run(["identity", "new", "me"], passcode: true)
        #expect(made.status == 0, "\(made.stderr)")
        let recipient = made.out.trimmingCharacters(in: .whitespacesAndNewlines)
        let scratch = keychain.scratch
        let file = try scratch.write("doc.txt", Data("for me\n".utf8))
        let wrap = try keychain.runTool("vfs-wrap", ["-K", "me", "-o", scratch.path("doc.vfs"), file], passcode: true)
        #expect(wrap.status == 0, "\(wrap.stderr)")
        let list = try keychain.runTool("vfs-unwrap", ["-K", "me", "--list", "--json", scratch.path("doc.vfs")], passcode: true)
        #expect(list.status == 0, "\(list.stderr)")
        let json = try JSONSerialization.jsonObject(with: list.stdout) as? [String: Any]
        #expect(json?["sender"] as? String == recipient)
        let out = try keychain.runTool("vfs-unwrap", ["-K", "me", "--passcode-file", keychain.passcodeFile, "--stdout", scratch.path("doc.vfs")])
        #expect(out.status == 0 && out.out == "for me\n", "\(out.stderr)")
        let unknown = try keychain.runTool("vfs-unwrap", ["-K", "nobody", "--stdout", scratch.path("doc.vfs")], passcode: true)
        #expect(unknown.status == 66)
        let wrong = try keychain.runTool("vfs-unwrap", ["-K", "me", "--stdout", scratch.path("doc.vfs")],
                                         environment: ["VFS_PASSCODE": "wrong passcode"])
        #expect(wrong.status == 77 && wrong.stdout.isEmpty)
        #expect(try keychain.runTool("vfs-wrap", ["-K", "nobody", "-o", scratch.path("x.vfs"), file], passcode: true).status == 66)
        #expect(!scratch.exists("x.vfs"))
    }

    @Test("on a terminal: a progress bar while wrapping and unwrapping, and no binary output to the screen")
    func terminal() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let big = try scratch.write("big.bin", testBytes(17 << 20, seed: 5))
        let tool = Tools.binDir.appendingPathComponent("vfs-wrap").path
        let shown = try Tools.run("python3", [AgeToolsTests.withTTY, "never-asked", "", "--", tool, "-r", key.recipient, "-o", scratch.path("big.vfs"), big])
        #expect(shown.status == 0)
        #expect(shown.out.contains("wrapping"))
        let quiet = try Tools.run("python3", [AgeToolsTests.withTTY, "never-asked", "", "--", tool, "-q", "-r", key.recipient, "-o", scratch.path("big2.vfs"), big])
        #expect(quiet.status == 0 && !quiet.out.contains("wrapping"))
        let refused = try Tools.run("python3", [AgeToolsTests.withTTY, "never-asked", "", "--", tool, "-r", key.recipient, big])
        #expect(refused.status == 64 && refused.out.contains("refusing to write binary output to a terminal"))
        try FileManager.default.createDirectory(atPath: scratch.path("out"), withIntermediateDirectories: true)
        let unwrap = try Tools.run("python3", [AgeToolsTests.withTTY, "never-asked", "", "--", Tools.binDir.appendingPathComponent("vfs-unwrap").path,
                                               "-i", key.path, "-C", scratch.path("out"), scratch.path("big.vfs")])
        #expect(unwrap.status == 0 && unwrap.out.contains("unwrapping"))
        #expect(try scratch.read("out/big.bin") == testBytes(17 << 20, seed: 5))
    }

    @Test("--help has a synopsis, an example and the exit statuses", arguments: ["vfs-wrap", "vfs-unwrap"])
    func help(tool: String) throws {
        let help = try Tools.run(tool, ["--help"])
        #expect(help.status == 0)
        #expect(help.out.contains("USAGE: \(tool)") && help.out.contains("Examples:") && help.out.contains("Exit status:"))
        #expect(try Tools.run(tool, ["--version"]).status == 0)
    }
}
