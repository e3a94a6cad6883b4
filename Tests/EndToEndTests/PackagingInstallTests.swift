import Foundation
import Testing
import VFSTestSupport

/// make install, make uninstall and make deb, on the build the tests run: make build's own
/// (as make test runs them), or another build's tools relinked as make build links them
/// (Swift's libraries static: packaging/relink-static.sh, from the same object files, into
/// BUILD-static beside the build). The installed tools must run
/// where the toolchain is not: each run below happens in a private mount namespace with an
/// empty tmpfs over the toolchain's folder, under `env -i`.
@Suite("packaging: install and deb", .serialized)
struct PackagingInstallTests {
    static let root = PackagingTests.root
    static let tools = PackagingTests.tools
    /// The toolkit's version, as Sources/VFSCore/Version.swift writes it.
    static let version: String = {
        let source = (try? String(contentsOf: root.appendingPathComponent("Sources/VFSCore/Version.swift"), encoding: .utf8)) ?? ""
        guard let open = source.range(of: "vfsVersion = \""), let close = source[open.upperBound...].firstIndex(of: "\"") else { return "?" }
        return String(source[open.upperBound..<close])
    }()

    /// The toolchain's root (/opt/swift): the folder above usr/lib/swift of the
    /// libswiftCore.so this test runner loaded.
    static let toolchain: String = {
        // Read to the end: /proc files report a size of 0, which String(contentsOfFile:) trusts.
        let maps = String(decoding: FileHandle(forReadingAtPath: "/proc/self/maps")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        for line in maps.split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/") else { continue }
            let path = String(line[slash...])
            if path.hasSuffix("/libswiftCore.so"), let range = path.range(of: "/usr/lib/swift") {
                return String(path[..<range.lowerBound])
            }
        }
        return ""
    }()

    /// The tools with Swift's libraries static: the tools under test when they are make
    /// build's (as make test runs them), else relinked so (once per test run); or why not.
    static let staticBin: Result<String, RelinkError> = {
        if let loads = try? Tools.loadsSwiftLibraries(Tools.binDir), !loads { return .success(Tools.binDir.path) }
        let out = Tools.binDir.deletingLastPathComponent().appendingPathComponent(Tools.binDir.lastPathComponent + "-static").path
        do {
            let run = try Tools.run("bash", [root.appendingPathComponent("packaging/relink-static.sh").path, Tools.binDir.path, out] + tools)
            return run.status == 0 ? .success(out) : .failure(RelinkError(message: run.stderr))
        } catch {
            return .failure(RelinkError(message: "\(error)"))
        }
    }()
    struct RelinkError: Error { let message: String }

    /// Runs make in the package root with `arguments`.
    static func make(_ arguments: [String]) throws -> Run {
        try Tools.run("make", ["--no-print-directory", "-C", root.path] + arguments)
    }

    /// Every file (path, size, mtime, inode) in the package tree, .git aside: what make
    /// install must leave as it found it.
    static func treeSnapshot() throws -> [String: String] {
        var snapshot: [String: String] = [:]
        let manager = FileManager.default
        guard let walker = manager.enumerator(atPath: root.path) else { return [:] }
        for case let name as String in walker {
            if name == ".git" || name.hasPrefix(".git/") || name.hasPrefix(".build-") { walker.skipDescendants(); continue }
            if name == ".build/.lock" { continue }
            var info = stat()
            guard lstat(root.path + "/" + name, &info) == 0 else { continue }
            snapshot[name] = "\(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec) \(info.st_ino) \(info.st_uid)"
        }
        return snapshot
    }

    /// Runs `script` (sh) with the toolchain hidden: a private mount namespace with an
    /// empty tmpfs over it, `env -i` with a LD_LIBRARY_PATH of Debian's folders only.
    static func runWithoutToolchain(_ script: String, in folder: TestFolder) throws -> Run {
        #expect(!toolchain.isEmpty, "the test runner loads no libswiftCore.so: cannot tell the toolchain's folder")
        let file = try folder.write("run.sh", script)
        let hidden = "mount -t tmpfs -o size=1m vfs-hidden '\(toolchain)' && test -z \"$(ls -A '\(toolchain)')\" && " +
            "exec env -i PATH=/usr/bin:/bin HOME='\(folder.path)/home' LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu:/lib/x86_64-linux-gnu sh '\(file)'"
        // Root gets a mount namespace; a user gets one inside a user namespace of its own,
        // as its root there (only that uid is mapped, so the tools run as the user outside).
        let namespaces = getuid() == 0 ? ["--mount"] : ["--user", "--map-root-user", "--mount"]
        return try Tools.run("unshare", namespaces + ["--propagation", "private", "sh", "-c", hidden])
    }

    /// --version of every tool in `bin`, then an encrypt/decrypt round trip and a sealed
    /// bundle (vfs-wrap/vfs-unwrap) with the installed binaries.
    static func roundTripScript(bin: String, work: String) -> String {
        var lines = ["set -e", "mkdir -p '\(work)/home' && cd '\(work)'"]
        for tool in tools { lines.append("'\(bin)/\(tool)' --version") }
        lines += [
            "'\(bin)/vfs-keygen' -o key.txt 2>/dev/null",
            "recipient=$('\(bin)/vfs-keygen' -y key.txt)",
            "printf 'installed and static\\n' > plain.txt",
            "'\(bin)/vfs-encrypt' -r \"$recipient\" -o secret.age plain.txt",
            "'\(bin)/vfs-decrypt' -i key.txt -o back.txt secret.age",
            "cmp plain.txt back.txt",
            "echo round-trip-ok",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `ldd` of every tool in `bin`: nothing under the toolchain, nothing missing.
    static func expectNoToolchainLibraries(bin: String) throws {
        for tool in tools {
            let ldd = try Tools.run("ldd", [bin + "/" + tool])
            #expect(ldd.status == 0, "ldd \(tool): \(ldd.stderr)")
            #expect(!ldd.out.contains(toolchain + "/"), "\(tool) loads from the toolchain:\n\(ldd.out)")
            #expect(!ldd.out.contains("not found"), "\(tool) misses a library:\n\(ldd.out)")
            #expect(!ldd.out.contains("libswift") && !ldd.out.contains("libFoundation"), "\(tool):\n\(ldd.out)")
        }
    }

    @Test("make install copies the build without building or writing in the tree; the installed tools run without the toolchain; make uninstall removes them")
    func installAndUninstall() throws {
        let folder = try TestFolder("install")
        let dest = folder.path("dest")
        let bin = try Self.staticBin.get()
        let before = try Self.treeSnapshot()
        let install = try Self.make(["install", "DESTDIR=" + dest, "PREFIX=/opt/vfs", "BIN=" + bin])
        #expect(install.status == 0, "make install: \(install.stderr)")
        let after = try Self.treeSnapshot()
        let changed = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }.sorted()
        #expect(changed.isEmpty, "make install wrote in the tree: \(changed.prefix(10))")
        #expect(!install.out.contains("swift build") && !install.out.contains("Compiling"), "make install built: \(install.out)")

        let prefix = dest + "/opt/vfs"
        let manager = FileManager.default
        for tool in Self.tools {
            for path in ["bin/\(tool)", "share/man/man1/\(tool).1", "share/bash-completion/completions/\(tool)",
                         "share/zsh/site-functions/_\(tool)", "share/fish/vendor_completions.d/\(tool).fish"] {
                #expect(manager.fileExists(atPath: prefix + "/" + path), "make install did not install \(path)")
            }
            #expect(manager.fileExists(atPath: prefix + "/share/man/man7/vfs.7"), "make install did not install vfs.7")
            // Stripped: no symbol table left (the build keeps its own).
            let sections = try Tools.run("readelf", ["-S", "-W", prefix + "/bin/\(tool)"])
            #expect(sections.status == 0 && !sections.out.contains(" .symtab "), "\(tool) is not stripped")
            let mode = try manager.attributesOfItem(atPath: prefix + "/bin/\(tool)")[.posixPermissions] as? Int
            #expect(mode == 0o755)
        }
        try Self.expectNoToolchainLibraries(bin: prefix + "/bin")
        let run = try Self.runWithoutToolchain(Self.roundTripScript(bin: prefix + "/bin", work: folder.path("work")), in: folder)
        #expect(run.status == 0, "installed tools without the toolchain: \(run.stderr)")
        #expect(run.out.contains("round-trip-ok"))
        #expect(run.out.split(separator: "\n").filter { $0.contains(Self.version) }.count == Self.tools.count,
                "not every tool printed its version: \(run.out)")

        let uninstall = try Self.make(["uninstall", "DESTDIR=" + dest, "PREFIX=/opt/vfs"])
        #expect(uninstall.status == 0, "make uninstall: \(uninstall.stderr)")
        let left = (manager.enumerator(atPath: dest)?.allObjects as? [String] ?? []).filter {
            var isFolder: ObjCBool = false
            return manager.fileExists(atPath: dest + "/" + $0, isDirectory: &isFolder) && !isFolder.boolValue
        }
        #expect(left.isEmpty, "make uninstall left \(left)")
    }

    @Test("make install refuses, installing nothing, when nothing is built")
    func installWithoutBuild() throws {
        let folder = try TestFolder("install-none")
        try FileManager.default.createDirectory(atPath: folder.path("empty"), withIntermediateDirectories: true)
        let run = try Self.make(["install", "DESTDIR=" + folder.path("dest"), "BIN=" + folder.path("empty")])
        #expect(run.status != 0)
        #expect(run.stderr.contains("make install: error: nothing built to install"), "\(run.stderr)")
        #expect(run.stderr.contains("make install: hint: run `make build` first"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("dest")), "a refused install created files")
    }

    @Test("make install refuses binaries that load the toolchain's Swift libraries")
    func installRefusesDynamicBuild() throws {
        let folder = try TestFolder("install-dynamic")
        // A build linked the default way, against the toolchain's libswiftCore.so (what a
        // plain `swift build` makes): the test runner's tools when it is a debug build, else
        // (make test's release build, whose tools carry the libraries) the test runner
        // itself, which is always linked so, under each tool's name.
        var dynamic = Tools.testBuildDir
        if try !Tools.loadsSwiftLibraries(dynamic) {
            dynamic = folder.url.appendingPathComponent("dynamic")
            try FileManager.default.createDirectory(at: dynamic, withIntermediateDirectories: true)
            let runner = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            for tool in Self.tools { try FileManager.default.copyItem(at: runner, to: dynamic.appendingPathComponent(tool)) }
        }
        #expect(try Tools.loadsSwiftLibraries(dynamic), "\(dynamic.path) is not dynamically linked")
        let run = try Self.make(["install", "DESTDIR=" + folder.path("dest"), "BIN=" + dynamic.path])
        #expect(run.status != 0)
        #expect(run.stderr.contains("loads the Swift toolchain's libraries"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("dest")))
    }

    /// make deb of the tests' static build into `folder`/out: the package's path.
    static func makeDeb(in folder: TestFolder) throws -> String {
        let out = folder.path("out")
        let build = try Self.make(["deb", "BIN=" + (try Self.staticBin.get()), "DEB_OUT=" + out, "DEB_STAGE=" + folder.path("stage"), "DEB_COMPRESSION=none"])
        #expect(build.status == 0, "make deb: \(build.stderr)")
        let debs = (try? FileManager.default.contentsOfDirectory(atPath: out))?.filter { $0.hasPrefix("vfs_") && $0.hasSuffix(".deb") } ?? []
        try #require(debs.count == 1, "make deb wrote \(debs)")
        return out + "/" + debs[0]
    }

    @Test("make deb: Depends from what the binaries load, every file, maintainer scripts; the unpacked tools run without the toolchain")
    func debianPackage() throws {
        let folder = try TestFolder("deb")
        let deb = try Self.makeDeb(in: folder)

        // Metadata.
        let fields = try Tools.run("dpkg-deb", ["-f", deb, "Package", "Version", "Architecture", "Depends"]).out
        #expect(fields.contains("Package: vfs"))
        #expect(fields.contains("Architecture: \(try Tools.run("dpkg", ["--print-architecture"]).out.trimmingCharacters(in: .whitespacesAndNewlines))"))
        let depends = fields.split(separator: "\n").first { $0.hasPrefix("Depends: ") }.map(String.init) ?? ""
        for package in ["libc6", "libssl3", "libarchive13", "libstdc++6", "passwd"] {
            #expect(depends.contains(package), "Depends lacks \(package): \(depends)")
        }
        #expect(!depends.lowercased().contains("swift") && !depends.contains("libicu"), "\(depends)")

        // Files.
        let listing = try Tools.run("dpkg-deb", ["-c", deb])
        #expect(listing.status == 0)
        let paths = Set(listing.out.split(separator: "\n").compactMap { $0.split(separator: " ").last.map { String($0.dropFirst()) } })
        for tool in Self.tools {
            for path in ["/usr/bin/\(tool)", "/usr/share/man/man1/\(tool).1.gz", "/usr/share/bash-completion/completions/\(tool)",
                         "/usr/share/zsh/vendor-completions/_\(tool)", "/usr/share/fish/vendor_completions.d/\(tool).fish"] {
                #expect(paths.contains(path), "the package lacks \(path)")
            }
        }
        for path in ["/lib/systemd/system/vfs-relay.service", "/lib/systemd/system/vfs-shred@.service",
                     "/lib/systemd/system/vfs-shred@.timer", "/usr/lib/systemd/user/vfs-fetch.service",
                     "/lib/systemd/system/vfs-push-send@.service", "/lib/systemd/system/vfs-push-send@.timer",
                     "/usr/share/doc/vfs/README.Debian", "/usr/share/man/man7/vfs.7.gz"] {
            #expect(paths.contains(path), "the package lacks \(path)")
        }
        #expect(!listing.out.contains("/usr/local"), "the package installs under /usr/local")
        // Every entry root-owned, whoever built it.
        for line in listing.out.split(separator: "\n") { #expect(line.contains(" root/root "), "\(line)") }

        // Maintainer scripts and README.Debian's keychain note.
        let control = folder.path("control")
        #expect(try Tools.run("dpkg-deb", ["-e", deb, control]).status == 0)
        for script in ["postinst", "prerm", "postrm"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: control + "/" + script)
            #expect(attributes[.posixPermissions] as? Int == 0o755, "\(script) is not executable")
            #expect(try Tools.run("sh", ["-n", control + "/" + script]).status == 0, "\(script) is not valid sh")
        }
        #expect(try folder.text("control/postinst").contains("useradd"))
        let md5 = try Tools.run("dpkg-deb", ["-I", deb, "md5sums"]).out
        #expect(md5.contains("usr/bin/vfs-encrypt"))
        let unpacked = folder.path("unpacked")
        #expect(try Tools.run("dpkg-deb", ["-x", deb, unpacked]).status == 0)
        let note = try String(contentsOfFile: unpacked + "/usr/share/doc/vfs/README.Debian", encoding: .utf8)
        #expect(note.contains("$VFS_HOME/keychain") && note.contains("~/.local/share/vfs"))

        // The unpacked binaries, without the toolchain.
        try Self.expectNoToolchainLibraries(bin: unpacked + "/usr/bin")
        let run = try Self.runWithoutToolchain(Self.roundTripScript(bin: unpacked + "/usr/bin", work: folder.path("work")), in: folder)
        #expect(run.status == 0, "unpacked tools without the toolchain: \(run.stderr)")
        #expect(run.out.contains("round-trip-ok"))
    }

    @Test("make deb, then dpkg --root installs it, adds the relay's user, and purges it; systemd-analyze verify is clean",
          .enabled(if: getuid() == 0, "the maintainer scripts make the relay's system user and chown its folder to it: root only"))
    func debianInstall() throws {
        let folder = try TestFolder("deb")
        let deb = try Self.makeDeb(in: folder)
        // dpkg --root: a throwaway root with an empty dpkg database and a password file.
        // The maintainer scripts run chrootless and work on $DPKG_ROOT, never on this system.
        let throwaway = folder.path("root")
        for sub in ["var/lib/dpkg/info", "var/lib/dpkg/updates", "var/lib/dpkg/triggers", "var/log", "etc", "usr/sbin"] {
            try FileManager.default.createDirectory(atPath: throwaway + "/" + sub, withIntermediateDirectories: true)
        }
        _ = try folder.write("root/var/lib/dpkg/status", "")
        _ = try folder.write("root/etc/passwd", "root:x:0:0:root:/root:/bin/sh\n")
        _ = try folder.write("root/etc/group", "root:x:0:\n")
        _ = try folder.write("root/etc/shadow", "root:*:19000:0:99999:7:::\n")
        _ = try folder.write("root/etc/gshadow", "root:*::\n")
        let hostPasswd = try String(contentsOfFile: "/etc/passwd", encoding: .utf8)
        let dpkg = ["--root=" + throwaway, "--force-script-chrootless", "--force-depends", "--force-not-root", "--log=/dev/null"]
        let install = try Tools.run("dpkg", dpkg + ["-i", deb])
        #expect(install.status == 0, "dpkg -i: \(install.out) \(install.stderr)")
        #expect(try String(contentsOfFile: "/etc/passwd", encoding: .utf8) == hostPasswd, "postinst changed this system's /etc/passwd")
        let passwd = try folder.text("root/etc/passwd")
        let entry = passwd.split(separator: "\n").first { $0.hasPrefix("vfs-relay:") }.map(String.init) ?? ""
        #expect(entry.hasSuffix(":/var/lib/vfs-relay:/usr/sbin/nologin"), "no vfs-relay system user: \(passwd)")
        let uid = Int(entry.split(separator: ":").dropFirst(2).first ?? "") ?? 0
        #expect(uid > 0 && uid < 1000, "vfs-relay is not a system user: \(entry)")
        let state = try FileManager.default.attributesOfItem(atPath: throwaway + "/var/lib/vfs-relay")
        #expect(state[.posixPermissions] as? Int == 0o700)
        #expect((state[.ownerAccountID] as? NSNumber)?.intValue == uid)
        let status = try Tools.run("dpkg-query", ["--admindir=" + throwaway + "/var/lib/dpkg", "-W", "-f", "${Status}", "vfs"])
        #expect(status.out == "install ok installed", "\(status.out) \(status.stderr)")
        for tool in Self.tools { #expect(FileManager.default.isExecutableFile(atPath: throwaway + "/usr/bin/" + tool)) }

        // The units, against the installed root (their ExecStart binaries are there), with
        // this system's own units beside them (sysinit.target and the like).
        for (from, to) in [("/lib/systemd/system/.", "/lib/systemd/system/"), ("/usr/lib/systemd/user/.", "/usr/lib/systemd/user/")] {
            #expect(try Tools.run("cp", ["-an", from, throwaway + to]).status == 0)
        }
        let units = ["lib/systemd/system/vfs-relay.service", "lib/systemd/system/vfs-shred@.service",
                     "lib/systemd/system/vfs-shred@.timer", "lib/systemd/system/vfs-push-send@.service",
                     "lib/systemd/system/vfs-push-send@.timer"].map { throwaway + "/" + $0 }
        let verify = try Tools.run("systemd-analyze", ["verify", "--root=" + throwaway, "--man=no"] + units)
        #expect(verify.status == 0 && verify.stderr.isEmpty && verify.out.isEmpty, "systemd-analyze verify: \(verify.out) \(verify.stderr)")
        // A user unit cannot be verified under --root: a copy naming the installed binaries.
        let runtime = folder.path("runtime")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let fetchUnit = try String(contentsOfFile: throwaway + "/usr/lib/systemd/user/vfs-fetch.service", encoding: .utf8)
        #expect(fetchUnit.contains("ExecStart=/usr/bin/vfs-fetch --watch"))
        let userUnit = try folder.write("runtime/vfs-fetch.service", fetchUnit.replacingOccurrences(of: "/usr/bin/vfs-", with: throwaway + "/usr/bin/vfs-"))
        let user = try Tools.run("systemd-analyze", ["verify", "--user", "--man=no", userUnit], environment: ["XDG_RUNTIME_DIR": runtime])
        #expect(user.status == 0 && user.stderr.isEmpty && user.out.isEmpty, "systemd-analyze verify --user: \(user.out) \(user.stderr)")
        let security = try Tools.run("systemd-analyze", ["security", "--offline=yes", "--root=" + throwaway, "--threshold=30", units[0]])
        #expect(security.status == 0, "vfs-relay.service exposure above 3.0: \(security.out) \(security.stderr)")
        let relayUnit = try String(contentsOfFile: units[0], encoding: .utf8)
        for line in ["User=vfs-relay", "StateDirectory=vfs-relay", "ProtectSystem=strict", "NoNewPrivileges=yes", "PrivateTmp=yes", "Environment=MALLOC_ARENA_MAX=2",
                     "ExecStart=/usr/bin/vfs-relay serve --listen 127.0.0.1:8787 --data /var/lib/vfs-relay"] {
            #expect(relayUnit.contains("\n" + line + "\n"), "vfs-relay.service lacks \(line)")
        }

        let purge = try Tools.run("dpkg", dpkg + ["--purge", "vfs"])
        #expect(purge.status == 0, "dpkg --purge: \(purge.stderr)")
        for tool in Self.tools { #expect(!FileManager.default.fileExists(atPath: throwaway + "/usr/bin/" + tool)) }
        #expect(!FileManager.default.fileExists(atPath: throwaway + "/lib/systemd/system/vfs-relay.service"))
    }
}
