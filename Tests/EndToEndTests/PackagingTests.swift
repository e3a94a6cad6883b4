import Foundation
import Testing
import VFSTestSupport

/// Every tool has a committed man page and completions that match the command as built.
@Suite("packaging")
struct PackagingTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let tools: [String] = {
        let manifest = (try? String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)) ?? ""
        // Entries of the tools list open a line with `("vfs-name",` (the Makefile's TOOLS
        // reads them the same way).
        return manifest.split(separator: "\n").compactMap { line in
            let t = line.trimmingCharacters(in: .whitespaces)
            guard t.hasPrefix("(\"vfs-") else { return nil }
            let name = t.dropFirst(2).prefix(while: { $0 != "\"" })
            guard t.dropFirst(2 + name.count).hasPrefix("\",") else { return nil }
            return String(name)
        }
    }()

    @Test("Package.swift lists the tools")
    func toolsListed() {
        #expect(Self.tools.contains("vfs-encrypt") && Self.tools.contains("vfs-decrypt") && Self.tools.contains("vfs-keygen"))
    }

    @Test("make build, test and demo check what the build links first: each missing library named with its Debian package and make deps, before any compile")
    func buildChecksDependencies() throws {
        let scratch = try TestFolder()
        // SWIFT=echo: a compile that starts shows as "compiled" on stdout. PACKAGES=
        // coreutils: make deps (before test and demo) finds nothing to install.
        let settings = ["SWIFT=echo compiled", "PACKAGES=coreutils"]
        for target in ["build", "test", "demo"] {
            // pkg-config that finds nothing: as on a machine without the -dev packages.
            let bare = try Tools.run("make", ["-s", "-C", Self.root.path, target] + settings,
                                     environment: ["PKG_CONFIG_LIBDIR": scratch.url.path])
            #expect(bare.status != 0)
            #expect(bare.stderr.contains("make: error: missing what the build links: libssl-dev libarchive-dev zlib1g-dev"), "\(bare.stderr)")
            #expect(bare.stderr.contains("hint: run `make deps`"), "\(bare.stderr)")
            #expect(!bare.out.contains("compiled"), "\(target) compiled: \(bare.out)")
        }
        let ready = try Tools.run("make", ["-s", "-C", Self.root.path, "build"] + settings)
        #expect(ready.status == 0, "\(ready.stderr)")
        #expect(ready.out.contains("compiled"))
    }

    /// What each tool may load beside Swift's own libraries (static in a release build),
    /// by the names its binary's NEEDED entries give (docs/tools.md, "What each tool
    /// links"). Every tool is named: a tool added to Package.swift fails until it is here.
    /// libarchive (and through it libxml2 and ICU) only where a bundle is made or opened;
    /// zlib comes with the relay client's HTTP (NIO); SQLite with the relay. Under make
    /// sanitize every tool also needs the sanitizer runtime's libresolv (its dn_expand
    /// interceptor), and nothing else.
    static let linkMap: [String: Set<String>] = {
        let base = Set(["libcrypto", "libm", "libstdc++", "libgcc_s", "libc"] + (Tools.sanitizer == nil ? [] : ["libresolv"]))
        let archive: Set<String> = ["libarchive"], http: Set<String> = ["libz"]
        return [
            "vfs-encrypt": base, "vfs-decrypt": base, "vfs-keygen": base, "vfs-keychain": base, "vfs-shred": base,
            "vfs-wrap": base.union(archive), "vfs-unwrap": base.union(archive),
            "vfs-policy": base.union(http), "vfs-device": base.union(http), "vfs-cloud": base.union(http),
            "vfs-push": base.union(http).union(archive), "vfs-fetch": base.union(http).union(archive),
            "vfs-share": base.union(http).union(archive),
            "vfs-relay": base.union(http).union(["libsqlite3"]),
        ]
    }()

    /// A library's name without its version (libcrypto.so.3: libcrypto); nil for Swift's
    /// own libraries (dynamic in a debug build) and the dynamic loader.
    static func libraryName(_ soname: String) -> String? {
        let name = soname.components(separatedBy: ".so").first ?? soname
        if name.hasPrefix("libswift") || name.hasPrefix("libFoundation") || name.hasPrefix("lib_Foundation") || name.hasPrefix("ld-linux")
            || ["libdispatch", "libBlocksRuntime", "libCoreFoundation"].contains(name) { return nil }
        return name
    }

    @Test("Package.swift's 14 tools are the link map's: each is checked")
    func linkMapNamesEveryTool() {
        #expect(Self.tools.count == 14)
        #expect(Set(Self.tools) == Set(Self.linkMap.keys))
    }

    @Test("each tool, built as a release is (Swift's libraries static), needs exactly the libraries of its line in the link map, and only the bundle tools load libarchive, libxml2 or ICU", arguments: PackagingTests.tools)
    func linksWhatItUses(tool: String) throws {
        let bin = try PackagingInstallTests.staticBin.get()
        let binary = bin + "/" + tool
        let elf = try Tools.run("readelf", ["-d", binary])
        #expect(elf.status == 0, "\(tool): \(elf.stderr)")
        let needed = Set(elf.out.split(separator: "\n").compactMap { line -> String? in
            guard line.contains("(NEEDED)"), let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return Self.libraryName(String(line[line.index(after: open)..<close]))
        })
        #expect(needed == Self.linkMap[tool], "\(tool) needs \(needed.sorted()), the link map says \((Self.linkMap[tool] ?? []).sorted())")
        // What those load in turn: libarchive's libxml2 and ICU stay with it.
        let ldd = try Tools.run("ldd", [binary])
        #expect(ldd.status == 0, "\(tool): \(ldd.stderr)")
        let bundles = Self.linkMap[tool]?.contains("libarchive") == true
        for library in ["libarchive.so", "libxml2.so", "libicuuc.so"] where !bundles {
            #expect(!ldd.out.contains(library), "\(tool) loads \(library)")
        }
        if bundles { #expect(ldd.out.contains("libarchive.so"), "\(tool) makes or opens bundles, so it links libarchive") }
    }

    @Test("completion scripts are committed and match the built commands", arguments: PackagingTests.tools)
    func completions(tool: String) throws {
        for (shell, file) in [("bash", "bash/\(tool)"), ("zsh", "zsh/_\(tool)"), ("fish", "fish/\(tool).fish")] {
            let committed = try String(contentsOf: Self.root.appendingPathComponent("completions/\(file)"), encoding: .utf8)
            let generated = try Tools.run(tool, ["--generate-completion-script", shell]).out
            #expect(committed == generated, "completions/\(file) is stale: run make completions")
        }
    }

    @Test("the man page is committed, regenerated from the built tool, and documents every option of --help", arguments: PackagingTests.tools)
    func manPage(tool: String) throws {
        let page = try String(contentsOf: Self.root.appendingPathComponent("man/man1/\(tool).1"), encoding: .utf8)
        #expect(page.contains(".Nm \(tool)"))
        let help = try Tools.run(tool, ["--help"]).out
        // The options --help lists (a line of OPTIONS starts "  -" with the option or its
        // short form), not those its prose names, such as another tool's.
        // An option and its inversion share a line ("--compress/--no-compress"): both count.
        let options = help.split(separator: "\n").flatMap { line -> [Substring] in
            guard line.hasPrefix("  -") else { return [] }
            // The names column ends where two spaces start the description.
            let names = line.dropFirst(2).components(separatedBy: "  ")[0]
            let words = names.split(whereSeparator: { " ,<>[]=/".contains($0) })
            return words.filter { $0.hasPrefix("--") && $0.count > 2 }
        }
        for option in Set(options) where option != "--help" && option != "--version" {
            #expect(page.contains("Fl -\(option.dropFirst(2))"), "man/man1/\(tool).1 lacks \(option): run make man")
        }
        // What make man writes from the tool as built (the Makefile's MAN_DATE).
        let makefile = try String(contentsOf: Self.root.appendingPathComponent("Makefile"), encoding: .utf8)
        let date = makefile.split(separator: "\n").first { $0.hasPrefix("MAN_DATE ?= ") }.map { String($0.dropFirst(12)) } ?? ""
        let generated = try Tools.run("python3", [Self.root.appendingPathComponent("scripts/make-man.py").path, "--date", date,
                                                  "--tools", Self.tools.joined(separator: " "), tool,
                                                  Tools.binDir.appendingPathComponent(tool).path])
        #expect(generated.status == 0, "\(generated.stderr)")
        #expect(generated.out == page, "man/man1/\(tool).1 is stale: run make man")
    }

    @Test("man pages: real sections, the real exit codes, literal examples with every character", arguments: PackagingTests.tools)
    func manSections(tool: String) throws {
        let page = try String(contentsOf: Self.root.appendingPathComponent("man/man1/\(tool).1"), encoding: .utf8)
        for section in [".Sh NAME", ".Sh SYNOPSIS", ".Sh DESCRIPTION", ".Sh OPTIONS", ".Sh EXAMPLES", ".Sh EXIT STATUS", ".Sh SEE ALSO"] {
            #expect(page.contains(section + "\n"), "man/man1/\(tool).1 lacks \(section)")
        }
        #expect(!page.contains(".Ex -std"), "the generic exit-status line contradicts the real codes")
        #expect(page.contains(".It Sy 0\n") && page.contains(".It Sy 64\n"))
        #expect(page.contains(".Bd -literal"))
        // Inside a literal block every '-' is a minus, so a copied command runs.
        var literal = false
        for line in page.split(separator: "\n") {
            if line.hasPrefix(".Bd -literal") { literal = true; continue }
            if line == ".Ed" { literal = false; continue }
            if literal { #expect(!line.replacingOccurrences(of: "\\-", with: "").contains("-"), "\(line)") }
        }
        // Nothing outside ASCII is left for a formatter to drop: age1… keeps its '…'.
        let ascii = page.unicodeScalars.allSatisfy { $0.isASCII }
        #expect(ascii)
        if ["vfs-encrypt", "vfs-keygen", "vfs-keychain"].contains(tool) { #expect(page.contains("\\[u2026]")) }
    }

    @Test("MANPATH=man finds every page from the clone: man/man1/TOOL.1 and the vfs(7) overview, which links every tool, as every tool's SEE ALSO links it")
    func manPath() throws {
        let manpath = ["MANPATH": Self.root.appendingPathComponent("man").path]
        for tool in Self.tools {
            let found = try Tools.run("man", ["-w", tool], environment: manpath)
            #expect(found.out == Self.root.appendingPathComponent("man/man1/\(tool).1").path + "\n", "\(tool): \(found.out) \(found.stderr)")
            let page = try String(contentsOf: Self.root.appendingPathComponent("man/man1/\(tool).1"), encoding: .utf8)
            #expect(page.components(separatedBy: ".Sh SEE ALSO\n").last?.contains(".Xr vfs 7") == true, "\(tool)")
        }
        let overview = try Tools.run("man", ["-w", "7", "vfs"], environment: manpath)
        #expect(overview.out == Self.root.appendingPathComponent("man/man7/vfs.7").path + "\n", "\(overview.stderr)")
        let page = try String(contentsOf: Self.root.appendingPathComponent("man/man7/vfs.7"), encoding: .utf8)
        for tool in Self.tools { #expect(page.contains(".It Xr \(tool) 1\n") && page.contains(".Xr \(tool) 1 ,\n"), "vfs(7) lacks \(tool)") }
        // groff reads it without a warning.
        let lint = try Tools.run("groff", ["-mdoc", "-ww", "-z", Self.root.appendingPathComponent("man/man7/vfs.7").path])
        #expect(lint.status == 0 && lint.stderr.isEmpty, "\(lint.stderr)")
    }

    @Test("vfs-keychain's man page holds the file format that --help leaves out")
    func keychainFormat() throws {
        let page = try String(contentsOf: Self.root.appendingPathComponent("man/man1/vfs-keychain.1"), encoding: .utf8)
        #expect(page.contains(".Sh FILE FORMAT") && page.contains("VFSKEYCH") && page.contains(".Sh ENVIRONMENT") && page.contains(".Sh FILES"))
    }

    @Test("--help: every example line stays indented at 80 columns; a default is printed once", arguments: PackagingTests.tools)
    func helpExamples(tool: String) throws {
        let dump = try Tools.run(tool, ["--experimental-dump-help"]).stdout
        let command = (try JSONSerialization.jsonObject(with: dump) as? [String: Any])?["command"] as? [String: Any] ?? [:]
        var paths: [[String]] = [[]]
        for sub in command["subcommands"] as? [[String: Any]] ?? [] {
            guard let name = sub["commandName"] as? String, name != "help" else { continue }
            paths.append([name])
            for leaf in sub["subcommands"] as? [[String: Any]] ?? [] {
                if let leafName = leaf["commandName"] as? String, leafName != "help" { paths.append([name, leafName]) }
            }
        }
        for path in paths {
            let help = try Tools.run(tool, path + ["--help"], removing: ["COLUMNS"]).out
            var inExamples = false
            for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasSuffix("Examples:") { inExamples = true; continue }
                if line.isEmpty { inExamples = false; continue }
                if inExamples { #expect(line.hasPrefix("  "), "\(tool) \(path): example line at column 0: \(line)") }
            }
        }
        // ArgumentParser prints "(default: …)" after an option that has a default value:
        // its own text must not say the default again.
        func check(_ command: [String: Any]) {
            for argument in command["arguments"] as? [[String: Any]] ?? [] where argument["defaultValue"] != nil {
                let text = (argument["abstract"] as? String ?? "").lowercased()
                #expect(!text.contains("default"), "\(tool): \(text)")
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] { check(sub) }
        }
        check(command)
    }
}
