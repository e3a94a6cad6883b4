import Foundation
import Testing
import VFSTestSupport

/// A tool's exit while another of its threads is still ending (issue 50's crash: two full
/// runs saw `vfs-cloud get` die of SIGSEGV and of glibc's "double free or corruption"
/// while it exited; under load, an LD_PRELOAD probe saw it free a SHA-256 context on
/// another thread after its exit had begun). OpenSSL used to free its global state in an
/// atexit handler; every tool now asks it not to (`CryptoLibrary.keepUntilExit`), and
/// `onThread` lets go of its work before the caller resumes.
@Suite("exit with a thread still ending")
struct ExitTests {
    static let straggler = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("tools/exit-straggler.c")
    /// SHA-256 of "abc" (FIPS 180-2's example).
    static let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

    /// The C compilers to try: the clang of the toolchain this runner was built with (found
    /// from where its libswiftCore is loaded, for a PATH without the toolchain), then
    /// clang and cc from PATH.
    static var compilers: [String] {
        let maps = (try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8)) ?? ""
        let swiftCore = maps.split(separator: "\n").lazy.compactMap { line -> String? in
            guard let slash = line.firstIndex(of: "/"), line.hasSuffix("/lib/swift/linux/libswiftCore.so") else { return nil }
            return String(line[slash...])
        }.first
        let beside = swiftCore.map { String($0.dropLast("/lib/swift/linux/libswiftCore.so".count)) + "/bin/clang" }
        return (beside.map { [$0] } ?? []) + ["clang", "cc"]
    }

    /// Tests/tools/exit-straggler.c built as a shared library in `folder`.
    static func buildStraggler(in folder: TestFolder) throws -> String {
        let library = folder.path("exit-straggler.so")
        var errors: [String] = []
        for compiler in compilers {
            let built = try Tools.run(compiler, ["-shared", "-fPIC", "-O2", "-o", library, straggler.path, "-ldl"])
            if built.status == 0 { return library }
            errors.append("\(compiler): \(built.status) \(built.stderr)")
        }
        throw HarnessError("cannot build \(straggler.path): \(errors)")
    }

    /// What the library wrote for one process: the digest contexts held back until its
    /// exit, and libcrypto's state then.
    struct Report {
        var program: String
        var held: Int
        var initialised: Int
        var sha256: String
    }

    /// Every line of the report file at `path` (one per process that loaded the library).
    static func reports(_ path: String) -> [Report] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ").map(String.init)
            guard words.count == 7, words[1] == "held", words[3] == "init", words[5] == "sha256",
                  let held = Int(words[2]), let initialised = Int(words[4]) else { return nil }
            return Report(program: words[0], held: held, initialised: initialised, sha256: words[6])
        }
    }

    @Test("every digest context a tool frees, held back until its exit has begun and freed then, finds libcrypto whole (initialised, SHA-256 right): vfs-encrypt, vfs-decrypt, vfs-cloud put and get (--stdout, --raw, --version-id)")
    func libcryptoOutlivesExit() throws {
        let scratch = try TestFolder()
        let library = try Self.buildStraggler(in: scratch)
        var runs = 0
        /// The environment of one run under the library, and the path of its report.
        func probed(_ base: [String: String] = [:]) -> ([String: String], String) {
            runs += 1
            let log = scratch.path("report-\(runs)")
            var env = base
            env["LD_PRELOAD"] = library
            env["EXIT_STRAGGLER_LOG"] = log
            if Tools.sanitizer == "address" {
                // The library comes before ASan's runtime in the load order.
                env["ASAN_OPTIONS"] = (ProcessInfo.processInfo.environment["ASAN_OPTIONS"].map { $0 + ":" } ?? "") + "verify_asan_link_order=0"
            }
            return (env, log)
        }
        func expectWhole(_ log: String, _ tool: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
            let all = Self.reports(log)
            let own = all.filter { $0.program == tool }
            #expect(!own.isEmpty, "\(what): no report from \(tool) (\(all))", sourceLocation: sourceLocation)
            #expect(own.contains { $0.held > 0 }, "\(what): \(tool) freed no digest context, so nothing was tested", sourceLocation: sourceLocation)
            for report in all {
                #expect(report.initialised == 1, "\(what): \(report.program)'s libcrypto was cleaned up before the held contexts were freed",
                        sourceLocation: sourceLocation)
                #expect(report.sha256 == Self.abc, "\(what): \(report.program)'s SHA-256 at exit", sourceLocation: sourceLocation)
            }
        }

        // Local tools: a passphrase file (scrypt, HMAC, ChaCha20-Poly1305).
        let passphrase = try scratch.write("passphrase", "correct horse battery staple\n")
        let plain = try scratch.write("plain.txt", testBytes(200_000, seed: 9))
        let sealed = scratch.path("plain.age")
        var (env, log) = probed()
        let encrypted = try Tools.run("vfs-encrypt", ["-p", "--passphrase-file", passphrase, "-o", sealed, plain], environment: env)
        #expect(encrypted.status == 0, "vfs-encrypt: \(encrypted.stderr)")
        expectWhole(log, "vfs-encrypt", "vfs-encrypt -p")
        (env, log) = probed()
        let decrypted = try Tools.run("vfs-decrypt", ["--passphrase-file", passphrase, sealed], environment: env)
        #expect(decrypted.status == 0, "vfs-decrypt: \(decrypted.stderr)")
        #expect(decrypted.stdout == Data(testBytes(200_000, seed: 9)))
        expectWhole(log, "vfs-decrypt", "vfs-decrypt")

        // Through a relay: the downloads whose reader thread hashes what it reads.
        let fleet = try Fleet()
        let laptop = fleet.laptop
        let first = try fleet.scratch.write("first", testBytes(70_000, seed: 1))
        let second = try fleet.scratch.write("second", testBytes(70_000, seed: 2))
        (env, log) = probed(laptop.environment)
        let put = try Tools.run("vfs-cloud", ["put", first, "/doc.bin"], environment: env)
        #expect(put.status == 0, "put: \(put.stderr)")
        expectWhole(log, "vfs-cloud", "vfs-cloud put")
        #expect(try laptop.run("vfs-cloud", ["put", "-f", second, "/doc.bin"]).status == 0)
        let versions = jsonArray(try laptop.run("vfs-cloud", ["log", "--json", "/doc.bin"]))
        let firstVersion = try #require(versions.last?["version"] as? String)
        for (arguments, expected) in [(["get", "/doc.bin", "--stdout"], testBytes(70_000, seed: 2)),
                                      (["get", "/doc.bin", "--version-id", firstVersion, "--stdout"], testBytes(70_000, seed: 1))] {
            (env, log) = probed(laptop.environment)
            let got = try Tools.run("vfs-cloud", arguments, environment: env)
            #expect(got.status == 0, "\(arguments): \(got.stderr)")
            #expect(got.stdout == Data(expected), "\(arguments)")
            expectWhole(log, "vfs-cloud", "vfs-cloud \(arguments.joined(separator: " "))")
        }
        (env, log) = probed(laptop.environment)
        let raw = try Tools.run("vfs-cloud", ["get", "/doc.bin", "--raw", "--stdout"], environment: env)
        #expect(raw.status == 0, "get --raw: \(raw.stderr)")
        #expect(raw.stdout.starts(with: Data("age-encryption.org/v1\n".utf8)))
        expectWhole(log, "vfs-cloud", "vfs-cloud get --raw")
    }
}
