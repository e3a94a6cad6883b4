import Foundation
import Testing
import VFSTestSupport
import VFSCore

/// vfs-wrap and vfs-unwrap with a tar user's habits: -C, -T, --exclude, -v, members,
/// --strip-components, --skip-old-files, -O, and vfs-encrypt's -i, -p and -a.
@Suite("vfs-wrap / vfs-unwrap: tar's habits")
struct WrapTarHabitsTests {
    func keypair(_ scratch: TestFolder, _ name: String = "key.txt") throws -> (path: String, recipient: String) {
        try AgeToolsTests().keypair(scratch, name)
    }

    func mkdir(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// a/docs/{report.txt, cache/c.txt, sub/data.bin, sub/x.log, sub/latest -> ../report.txt}, b/other.txt
    func makeTrees(_ scratch: TestFolder) throws {
        try mkdir(scratch.path("a/docs/sub"))
        try mkdir(scratch.path("a/docs/cache"))
        try mkdir(scratch.path("b"))
        try scratch.write("a/docs/report.txt", "quarterly numbers\n")
        try scratch.write("a/docs/cache/c.txt", "cached\n")
        try scratch.write("a/docs/sub/data.bin", testBytes(70_000, seed: 4))
        try scratch.write("a/docs/sub/x.log", "log line\n")
        try FileManager.default.createSymbolicLink(atPath: scratch.path("a/docs/sub/latest"), withDestinationPath: "../report.txt")
        try scratch.write("b/other.txt", "other\n")
    }

    func entries(_ key: String, _ bundle: String) throws -> [String] {
        let list = try Tools.run("vfs-unwrap", ["-i", key, "--list", "--json", bundle])
        let json = try JSONSerialization.jsonObject(with: list.stdout) as? [String: Any]
        return (json?["entries"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
    }

    func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

    @Test("-C between the paths (cumulative), --exclude as GNU tar matches it, -X, -v on stderr")
    func directoriesExcludesVerbose() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        try makeTrees(scratch)
        try scratch.write("excludes.txt", "cache\n\n")
        let wrap = try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", "t.vfs", "-v", "--exclude", "*.log", "-X", "excludes.txt",
                                              "-C", "a", "docs", "-C", "../b", "other.txt"], cwd: scratch.url)
        #expect(wrap.status == 0, "\(wrap.stderr)")
        #expect(wrap.stdout.isEmpty)
        let expected = ["docs", "docs/report.txt", "docs/sub", "docs/sub/data.bin", "docs/sub/latest", "other.txt"]
        #expect(lines(wrap.stderr) == ["docs/", "docs/report.txt", "docs/sub/", "docs/sub/data.bin", "docs/sub/latest", "other.txt"])
        #expect(try entries(key.path, scratch.path("t.vfs")) == expected)

        // A pattern with a '/' matches a tail of the path; a folder pattern takes what is below it.
        let tail = try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", "u.vfs", "--exclude", "sub/*.bin", "--exclude", "docs/cache",
                                              "-C", "a", "docs"], cwd: scratch.url)
        #expect(tail.status == 0, "\(tail.stderr)")
        #expect(try entries(key.path, scratch.path("u.vfs")) == ["docs", "docs/report.txt", "docs/sub", "docs/sub/latest", "docs/sub/x.log"])

        // A -C folder that does not exist: 66, nothing written.
        let missing = try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", "m.vfs", "-C", "nowhere", "docs"], cwd: scratch.url)
        #expect(missing.status == 66, "\(missing.stderr)")
        #expect(missing.stderr.contains("nowhere"))
        #expect(!scratch.exists("m.vfs"))
    }

    @Test("-T lists, one a line or --null from stdin; a listed path that is missing is 66 with nothing written")
    func filesFrom() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        try makeTrees(scratch)
        try scratch.write("list.txt", "docs/report.txt\n\ndocs/sub\n")
        let wrap = try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("t.vfs"), "-C", scratch.path("a"),
                                              "-T", scratch.path("list.txt")])
        #expect(wrap.status == 0, "\(wrap.stderr)")
        #expect(try entries(key.path, scratch.path("t.vfs")) == ["report.txt", "sub", "sub/data.bin", "sub/latest", "sub/x.log"])

        // NUL-separated from stdin, a name with a newline in it included.
        try scratch.write("b/two\nlines.txt", "odd name\n")
        let null = try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("n.vfs"), "--null", "-T", "-"],
                                 stdin: Data((scratch.path("b/other.txt") + "\0" + scratch.path("b/two\nlines.txt") + "\0").utf8))
        #expect(null.status == 0, "\(null.stderr)")
        #expect(try entries(key.path, scratch.path("n.vfs")) == ["other.txt", "two\nlines.txt"])

        // A listed file that does not exist: 66, and no bundle (nor a temporary one) in the folder.
        try scratch.write("bad.txt", "docs/report.txt\ndocs/missing.txt\n")
        let before = try scratch.listing()
        let bad = try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("bad.vfs"), "-C", scratch.path("a"),
                                             "-T", scratch.path("bad.txt")])
        #expect(bad.status == 66, "\(bad.stderr)")
        #expect(bad.stderr.contains("docs/missing.txt"))
        #expect(try scratch.listing() == before)
        // A list that does not exist is 66 too; stdin can't be both the list and a recipients file.
        #expect(try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("x.vfs"), "-T", scratch.path("nolist")]).status == 66)
        let twice = try Tools.run("vfs-wrap", ["-R", "-", "-o", scratch.path("x.vfs"), "-T", "-"])
        #expect(twice.status == 64 && twice.stderr.contains("standard input is used for multiple purposes"))
        #expect(try Tools.run("vfs-wrap", ["-r", key.recipient, "--null", scratch.path("b")]).status == 64)
        #expect(!scratch.exists("x.vfs"))
    }

    @Test("a file that changes as it is read: 75 with nothing written, or left out with --skip-changed (exit 1, valid bundle)")
    func changedFile() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let good = try scratch.write("good.txt", "stable\n")
        // /proc/version says it holds 0 bytes and gives more: it changes on every read.
        let before = try scratch.listing()
        let fail = try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("c.vfs"), good, "/proc/version"])
        #expect(fail.status == 75, "\(fail.stderr)")
        #expect(fail.stderr.contains("\"/proc/version\": file changed as we read it"))
        #expect(fail.stderr.contains("--skip-changed"))
        #expect(try scratch.listing() == before)

        let skip = try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("c.vfs"), "--skip-changed", good, "/proc/version"])
        #expect(skip.status == 1, "\(skip.stderr)")
        #expect(skip.stderr.contains("vfs-wrap: warning: \"/proc/version\": file changed as we read it; left out"))
        #expect(skip.stderr.contains("vfs-wrap: error: 1 file changed as we read it and was left out"))
        #expect(try entries(key.path, scratch.path("c.vfs")) == ["good.txt"])
        try mkdir(scratch.path("out"))
        let unwrap = try Tools.run("vfs-unwrap", ["-i", key.path, "-C", scratch.path("out"), scratch.path("c.vfs")])
        #expect(unwrap.status == 0, "\(unwrap.stderr)")
        #expect(try scratch.listing("out") == ["good.txt"])
    }

    @Test("members: literal names (globs only with --wildcards), folders with what is below; a missing one is 66 with nothing extracted")
    func members() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        try makeTrees(scratch)
        try scratch.write("a/docs/*.txt", "literal star\n")
        #expect(try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("t.vfs"), scratch.path("a/docs")]).status == 0)
        let bundle = scratch.path("t.vfs")

        try mkdir(scratch.path("one"))
        let sub = try Tools.run("vfs-unwrap", ["-i", key.path, "-v", "-C", scratch.path("one"), bundle, "docs/sub/", "docs/*.txt"])
        #expect(sub.status == 0, "\(sub.stderr)")
        #expect(lines(sub.stderr) == ["docs/", "docs/*.txt", "docs/sub/", "docs/sub/data.bin", "docs/sub/latest", "docs/sub/x.log"])
        #expect(try scratch.listing("one/docs") == ["*.txt", "sub"])
        #expect(try scratch.text("one/docs/*.txt") == "literal star\n")

        try mkdir(scratch.path("glob"))
        let glob = try Tools.run("vfs-unwrap", ["-i", key.path, "--wildcards", "-C", scratch.path("glob"), bundle, "docs/*.txt"])
        #expect(glob.status == 0, "\(glob.stderr)")
        #expect(try scratch.listing("glob/docs") == ["*.txt", "cache", "report.txt"])
        #expect(try scratch.listing("glob/docs/cache") == ["c.txt"])  // '*' matches '/' as in GNU tar

        try mkdir(scratch.path("none"))
        let missing = try Tools.run("vfs-unwrap", ["-i", key.path, "-C", scratch.path("none"), bundle, "docs/report.txt", "docs/*.md", "nope"])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("vfs-unwrap: error: \"docs/*.md\", \"nope\" not found in bundle"))
        #expect(missing.stderr.contains("--wildcards"))
        #expect(try scratch.listing("none").isEmpty)

        // --list with members lists those only.
        let list = try Tools.run("vfs-unwrap", ["-i", key.path, "--list", bundle, "docs/cache"])
        #expect(list.status == 0)
        #expect(lines(list.out).filter { !$0.hasPrefix("#") }.map { String($0.split(separator: " ").last!) } == ["docs", "docs/cache", "docs/cache/c.txt"])
    }

    @Test("the expansion cap counts every file of the bundle, also those not chosen")
    func expansionCapCountsAll() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        try mkdir(scratch.path("z"))
        try scratch.write("z/zeros.bin", Data(count: 4 << 20))
        try scratch.write("z/small.txt", "small\n")
        #expect(try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("z.vfs"), scratch.path("z")]).status == 0)
        try mkdir(scratch.path("out"))
        let capped = try Tools.run("vfs-unwrap", ["-i", key.path, "--max-expansion", "10", "-C", scratch.path("out"), scratch.path("z.vfs"), "z/small.txt"])
        #expect(capped.status == 65, "\(capped.stderr)")
        #expect(try scratch.listing("out").isEmpty)
        let lifted = try Tools.run("vfs-unwrap", ["-i", key.path, "--max-expansion", "0", "-C", scratch.path("out"), scratch.path("z.vfs"), "z/small.txt"])
        #expect(lifted.status == 0, "\(lifted.stderr)")
        #expect(try scratch.listing("out/z") == ["small.txt"])
    }

    @Test("--strip-components: shorter names left out; duplicates, a reserved name or a link that leaves DIR refused (65), nothing written")
    func stripComponents() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        try makeTrees(scratch)
        #expect(try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("t.vfs"), scratch.path("a/docs")]).status == 0)
        let bundle = scratch.path("t.vfs")

        try mkdir(scratch.path("s1"))
        let one = try Tools.run("vfs-unwrap", ["-i", key.path, "--strip-components", "1", "-C", scratch.path("s1"), bundle, "docs/sub"])
        #expect(one.status == 0, "\(one.stderr)")
        #expect(try scratch.listing("s1") == ["sub"])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: scratch.path("s1/sub/latest")) == "../report.txt")

        // docs/sub/latest -> ../report.txt would become latest -> ../report.txt, outside DIR.
        try mkdir(scratch.path("s2"))
        let two = try Tools.run("vfs-unwrap", ["-i", key.path, "--strip-components", "2", "-C", scratch.path("s2"), bundle])
        #expect(two.status == 65)
        #expect(two.stderr.contains("\"latest\"") && two.stderr.contains("outside"))
        #expect(try scratch.listing("s2").isEmpty)
        // Without the link, the files two levels down come out under their own names.
        let files = try Tools.run("vfs-unwrap", ["-i", key.path, "--strip-components", "2", "-C", scratch.path("s2"), bundle,
                                                 "docs/sub/data.bin", "docs/sub/x.log"])
        #expect(files.status == 0, "\(files.stderr)")
        #expect(try scratch.listing("s2") == ["data.bin", "x.log"])

        // Every name shorter than N: nothing to extract (empty names are never made).
        try mkdir(scratch.path("s9"))
        let all = try Tools.run("vfs-unwrap", ["-i", key.path, "--strip-components", "9", "-v", "-C", scratch.path("s9"), bundle])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.stderr.isEmpty)
        #expect(try scratch.listing("s9").isEmpty)

        // Two folders whose files strip to the same name; a file that strips to the manifest's name.
        try mkdir(scratch.path("p/x")); try mkdir(scratch.path("q/x"))
        try scratch.write("p/x/same.txt", "p\n"); try scratch.write("q/x/same.txt", "q\n")
        try scratch.write("p/x/.vfs-manifest.json", "{}\n")
        // (Two inputs stored under one name are refused at wrap time, -C or not.)
        let clash = try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("d.vfs"), "-C", scratch.path("p"), "x", "-C", "../q", "x"])
        #expect(clash.status == 64 && clash.stderr.contains("both be stored as \"x\""))
        #expect(try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("d.vfs"), "-C", scratch.path(""), "p", "q"]).status == 0)
        try mkdir(scratch.path("dup"))
        let dup = try Tools.run("vfs-unwrap", ["-i", key.path, "--strip-components", "1", "-C", scratch.path("dup"), scratch.path("d.vfs")])
        #expect(dup.status == 65)
        #expect(dup.stderr.contains("\"x\"") && dup.stderr.contains("twice"))
        let reserved = try Tools.run("vfs-unwrap", ["-i", key.path, "--strip-components", "2", "-C", scratch.path("dup"), scratch.path("d.vfs"), "p/x/.vfs-manifest.json"])
        #expect(reserved.status == 65)
        #expect(reserved.stderr.contains("reserved"))
        #expect(try scratch.listing("dup").isEmpty)
        #expect(try Tools.run("vfs-unwrap", ["-i", key.path, "--strip-components", "-1", scratch.path("d.vfs")]).status == 64)
    }

    @Test("--skip-old-files keeps what exists, silently; -k and the default refuse (73, nothing written); --force replaces")
    func existingFiles() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        try makeTrees(scratch)
        #expect(try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("t.vfs"), scratch.path("a/docs")]).status == 0)
        try mkdir(scratch.path("out/docs"))
        try scratch.write("out/docs/report.txt", "mine\n")
        for flags in [[], ["-k"], ["--keep-old-files"]] {
            let refused = try Tools.run("vfs-unwrap", ["-i", key.path, "-C", scratch.path("out")] + flags + [scratch.path("t.vfs")])
            #expect(refused.status == 73, "\(flags) \(refused.stderr)")
            #expect(try scratch.listing("out/docs") == ["report.txt"])
        }
        let skip = try Tools.run("vfs-unwrap", ["-i", key.path, "-v", "--skip-old-files", "-C", scratch.path("out"), scratch.path("t.vfs")])
        #expect(skip.status == 0, "\(skip.stderr)")
        #expect(!skip.stderr.contains("report.txt"))
        #expect(try scratch.text("out/docs/report.txt") == "mine\n")
        #expect(try scratch.listing("out/docs") == ["cache", "report.txt", "sub"])
        #expect(try scratch.read("out/docs/sub/data.bin") == testBytes(70_000, seed: 4))
        let conflict = try Tools.run("vfs-unwrap", ["-i", key.path, "--force", "--skip-old-files", scratch.path("t.vfs")])
        #expect(conflict.status == 64)
        #expect(try Tools.run("vfs-unwrap", ["-i", key.path, "-k", "--force", scratch.path("t.vfs")]).status == 64)
        // A file that is not age, passed through: kept as it is with --skip-old-files, refused without.
        let plain = try scratch.write("report.txt", "plain\n")
        let kept = try Tools.run("vfs-unwrap", ["--passthrough", "--skip-old-files", "-C", scratch.path("out/docs"), plain])
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(try scratch.text("out/docs/report.txt") == "mine\n")
        #expect(try Tools.run("vfs-unwrap", ["--passthrough", "-C", scratch.path("out/docs"), plain]).status == 73)
        #expect(try Tools.run("vfs-unwrap", ["-i", key.path, "--skip-old-files", "--stdout", scratch.path("t.vfs")]).status == 64)
        #expect(try Tools.run("vfs-unwrap", ["-i", key.path, "--force", "-C", scratch.path("out"), scratch.path("t.vfs")]).status == 0)
        #expect(try scratch.text("out/docs/report.txt") == "quarterly numbers\n")
    }

    @Test("-O writes the chosen files one after another in the bundle's order; -v names them on stderr")
    func standardOutput() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        try makeTrees(scratch)
        #expect(try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("t.vfs"), scratch.path("a/docs")]).status == 0)
        let all = try Tools.run("vfs-unwrap", ["-i", key.path, "-O", "-v", scratch.path("t.vfs")])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.stdout == Data("cached\nquarterly numbers\n".utf8) + testBytes(70_000, seed: 4) + Data("log line\n".utf8))
        #expect(lines(all.stderr) == ["docs/cache/c.txt", "docs/report.txt", "docs/sub/data.bin", "docs/sub/x.log"])
        let some = try Tools.run("vfs-unwrap", ["-i", key.path, "--stdout", "--wildcards", scratch.path("t.vfs"), "*.log", "docs/report.txt"])
        #expect(some.status == 0, "\(some.stderr)")
        #expect(some.out == "quarterly numbers\nlog line\n")
        let none = try Tools.run("vfs-unwrap", ["-i", key.path, "--stdout", scratch.path("t.vfs"), "docs/none"])
        #expect(none.status == 66 && none.stdout.isEmpty)
    }

    @Test("-i FILE, -a and -p as vfs-encrypt has them; vfs-unwrap opens a passphrase bundle")
    func encryptionOptions() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let file = try scratch.write("note.txt", "a note\n")
        let armored = try Tools.run("vfs-wrap", ["-i", key.path, "-a", "-o", scratch.path("n.vfs.asc"), file])
        #expect(armored.status == 0, "\(armored.stderr)")
        #expect(try scratch.text("n.vfs.asc").hasPrefix("-----BEGIN AGE ENCRYPTED FILE-----\n"))
        #expect(try Tools.run("vfs-unwrap", ["-i", key.path, "-O", scratch.path("n.vfs.asc")]).out == "a note\n")
        #expect(try Tools.run("bash", ["-c", "age -d -i '\(key.path)' '\(scratch.path("n.vfs.asc"))' | bsdtar -tf -"]).out.contains("note.txt"))
        // Armor to a terminal-free stdout is allowed (it is text).
        let toStdout = try Tools.run("vfs-wrap", ["-r", key.recipient, "-a", file])
        #expect(toStdout.status == 0 && toStdout.out.hasPrefix("-----BEGIN AGE ENCRYPTED FILE-----"))

        let pass = try scratch.write("pass.txt", "correct horse\n")
        let sealed = try Tools.run("vfs-wrap", ["-p", "--passphrase-file", pass, "--work-factor", "10", "-o", scratch.path("p.vfs"), file])
        #expect(sealed.status == 0, "\(sealed.stderr)")
        let opened = try Tools.run("vfs-unwrap", ["--passphrase-file", pass, "-O", scratch.path("p.vfs")])
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(opened.out == "a note\n")
        let wrong = try scratch.write("wrong.txt", "wrong\n")
        let denied = try Tools.run("vfs-unwrap", ["--passphrase-file", wrong, "-O", scratch.path("p.vfs")])
        #expect(denied.status == 77 && denied.stderr.contains("incorrect passphrase") && denied.stdout.isEmpty)
        let both = try Tools.run("vfs-wrap", ["-p", "-r", key.recipient, "-o", scratch.path("x.vfs"), file])
        #expect(both.status == 64 && both.stderr.contains("-p can't be combined with"))
        #expect(try Tools.run("vfs-wrap", ["--passphrase-file", pass, "-r", key.recipient, "-o", scratch.path("x.vfs"), file]).status == 64)
        #expect(!scratch.exists("x.vfs"))
    }
}
