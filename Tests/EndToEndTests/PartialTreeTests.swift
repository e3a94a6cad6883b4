import Foundation
import Testing
import VFSCore
import VFSTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 44, item 5: a tree with names the relay or a bundle can't take and a file that
/// can't be read goes as far as it can: each left out is named, the rest is sent, and the
/// tool exits 1 (as tar goes on and exits 2, and vfs-shred exits 1).
@Suite("partial trees: put -r, push -r and wrap leave out what can't go, name it, send the rest", .serialized)
struct PartialTreeTests {
    /// Runs `tool` on `machine` unable to read what its mode forbids, also as root (the
    /// capabilities that override file modes dropped).
    func runModeBound(_ machine: Machine, _ tool: String, _ arguments: [String]) throws -> Run {
        guard getuid() == 0 else { return try machine.run(tool, arguments) }
        return try Tools.run("setpriv", ["--bounding-set=-dac_override,-dac_read_search", Tools.binDir.appendingPathComponent(tool).path] + arguments,
                             environment: machine.environment)
    }

    @Test("put -r, push -r and wrap over a tree with a newline name, a non-UTF-8 name and an unreadable file: everything else goes, each left out is named, exit 1")
    func partialTrees() throws {
        let fleet = try Fleet()
        let tree = fleet.scratch.path("tree")
        let made = try Tools.run("sh", ["-c", """
            cd '\(fleet.scratch.url.path)' && mkdir -p tree/sub && printf 'fine\\n' > tree/ok.txt && printf 'inner\\n' > tree/sub/inner.txt \
            && printf 'newline\\n' > "tree/new$(printf '\\nline').txt" && printf 'raw\\n' > "tree/$(printf 'caf\\377').txt" \
            && printf 'secret\\n' > tree/secret.txt && chmod 000 tree/secret.txt
            """])
        #expect(made.status == 0, "\(made.stderr)")

        // vfs-cloud put -r: the newline name (the relay can't store it) and the unreadable
        // file are left out, named; the rest, the non-UTF-8 name too, is stored.
        let put = try runModeBound(fleet.laptop, "vfs-cloud", ["put", "-r", tree, "/backup/"])
        #expect(put.status == 1, "\(put.stderr)")
        #expect(put.stderr.contains("leaving out \"\(tree)/secret.txt\": it can't be read"), "\(put.stderr)")
        #expect(put.stderr.contains("leaving out \"\(tree)/new\\nline.txt\": the relay can't store its name"), "\(put.stderr)")
        #expect(put.stderr.contains("2 names could not be stored or read and were left out"), "\(put.stderr)")
        let listed = try fleet.laptop.run("vfs-cloud", ["ls", "-R", "/backup"])
        #expect(listed.status == 0, "\(listed.stderr)")
        for name in ["ok.txt", "inner.txt", "sub"] { #expect(listed.out.contains(name), "\(listed.out)") }
        #expect(!listed.out.contains("secret"))
        let raw = try fleet.laptop.run("vfs-cloud", ["get", "/backup/tree/caf\u{f7ff}.txt", "-o", fleet.scratch.path("raw-back.txt")])
        #expect(raw.status == 0, "\(raw.stderr)")
        #expect(try String(contentsOfFile: fleet.scratch.path("raw-back.txt"), encoding: .utf8) == "raw\n")

        // vfs-push -r: the unreadable file is left out, named; the others arrive (a
        // newline and a non-UTF-8 name travel in the bundle).
        let push = try runModeBound(fleet.laptop, "vfs-push", ["-d", "phone", "-r", tree])
        #expect(push.status == 1, "\(push.stderr)")
        #expect(push.stderr.contains("leaving out \"\(tree)/secret.txt\": it can't be read"), "\(push.stderr)")
        #expect(push.stderr.contains("1 name could not be stored or read and was left out"), "\(push.stderr)")
        let inbox = fleet.scratch.path("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        let fetched = try fleet.phone.run("vfs-fetch", ["--all", "-C", inbox])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let arrived = try Tools.run("sh", ["-c", "cd '\(inbox)/tree' && cat ok.txt sub/inner.txt \"new$(printf '\\nline').txt\" \"$(printf 'caf\\377').txt\" && ! test -e secret.txt"])
        #expect(arrived.status == 0 && arrived.out == "fine\ninner\nnewline\nraw\n", "\(arrived.out)\(arrived.stderr)")

        // vfs-wrap: the same, into a bundle.
        let key = fleet.scratch.path("phone.key")
        try fleet.phone.exportIdentity(to: key)
        let wrap = try runModeBound(fleet.laptop, "vfs-wrap", ["-i", key, "-o", fleet.scratch.path("tree.vfs"), tree])
        #expect(wrap.status == 1, "\(wrap.stderr)")
        #expect(wrap.stderr.contains("leaving out \"\(tree)/secret.txt\": it can't be read"), "\(wrap.stderr)")
        let members = try Tools.run("vfs-unwrap", ["-t", "-i", key, fleet.scratch.path("tree.vfs")])
        #expect(members.status == 0, "\(members.stderr)")
        for name in ["tree/ok.txt", "tree/sub/inner.txt", "tree/caf\\xff.txt"] { #expect(members.out.contains(name), "\(members.out)") }
        #expect(!members.out.contains("secret"))
    }

    @Test("vfs-cloud put -r then get -r of a tree with names that are not UTF-8 (files and a folder): the same names back, byte for byte, with the same contents; a single get -C too")
    func nonUTF8NamesRoundTrip() throws {
        let fleet = try Fleet()
        let tree = fleet.scratch.path("tree"), back = fleet.scratch.path("back"), single = fleet.scratch.path("single")
        let made = try Tools.run("sh", ["-c", """
            cd '\(fleet.scratch.url.path)' && mkdir -p "tree/$(printf 'dir\\376')" back single && printf 'raw\\n' > "tree/$(printf 'caf\\377').txt" \
            && printf 'deep\\n' > "tree/$(printf 'dir\\376')/$(printf '\\351t\\351').txt" && printf 'plain\\n' > tree/plain.txt
            """])
        #expect(made.status == 0, "\(made.stderr)")
        let put = try fleet.laptop.run("vfs-cloud", ["put", "-r", tree, "/backup/"])
        #expect(put.status == 0, "\(put.stderr)")
        let got = try fleet.phone.run("vfs-cloud", ["get", "-r", "/backup/tree", "-C", back])
        #expect(got.status == 0, "\(got.stderr)")
        // diff -r compares the names as bytes, and the contents.
        let same = try Tools.run("diff", ["-r", tree, back + "/tree"])
        #expect(same.status == 0, "\(same.out)\(same.stderr)")
        let names = try Tools.run("sh", ["-c", "cd '\(back)/tree' && find . -print0 | sort -z | od -An -c"])
        let expected = try Tools.run("sh", ["-c", "cd '\(tree)' && find . -print0 | sort -z | od -An -c"])
        #expect(names.out == expected.out && !names.out.isEmpty, "\(names.out) vs \(expected.out)")
        // One file, into a folder under its own name.
        let one = try fleet.phone.run("vfs-cloud", ["get", "/backup/tree/caf\u{f7ff}.txt", "-C", single])
        #expect(one.status == 0, "\(one.stderr)")
        let placed = try Tools.run("sh", ["-c", "cd '\(single)' && test \"$(cat \"$(printf 'caf\\377').txt\")\" = raw && test \"$(ls | wc -l)\" = 1"])
        let listing = try Tools.run("ls", ["-b", single]).out
        #expect(placed.status == 0, "\(listing)")
    }
}
