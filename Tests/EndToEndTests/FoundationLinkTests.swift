import Foundation
import Testing
import VFSTestSupport

/// The tools link FoundationEssentials, not full Foundation and its ICU data (about 40 MiB
/// of each static binary, and start-up time): only the relay server keeps Foundation,
/// which its dependencies (Hummingbird, postgres-nio, GRDB…) bring anyway.
@Suite("packaging: FoundationEssentials only")
struct FoundationLinkTests {
    static let root = PackagingTests.root
    /// The tools that may link full Foundation, and the source folders that may import it.
    static let fullFoundationTools: Set<String> = ["vfs-relay"]
    static let fullFoundationSources: Set<String> = ["vfs-relay", "VFSRelayServer"]

    /// Full Foundation's libraries and the toolchain's ICU. (Debian's libicuuc.so.72 still
    /// loads: libarchive needs libxml2, which needs it.)
    static let fullFoundationLibraries = ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so"]

    @Test("the built tools load FoundationEssentials; only the relay carries full Foundation and its ICU data (ldd, or the symbols of a static tool)", arguments: PackagingTests.tools)
    func linkedLibraries(tool: String) throws {
        let path = Tools.testBuildDir.appendingPathComponent(tool).path
        if try Tools.loadsSwiftLibraries(Tools.testBuildDir, tool: tool) {
            // A dynamic build (CONFIG=debug): ldd names each Swift library a tool loads.
            let ldd = try Tools.run("ldd", [path])
            #expect(ldd.status == 0, "ldd \(tool): \(ldd.stderr)")
            let names = ldd.out.split(separator: "\n").compactMap { $0.split(separator: " ").first.map { String($0.drop(while: { $0 == "\t" })) } }
            let full = names.filter { name in Self.fullFoundationLibraries.contains { name.hasPrefix($0) } }
            Self.expect(tool: tool, carriesFullFoundation: !full.isEmpty, carriesEssentials: names.contains { $0.hasPrefix("libFoundationEssentials.so") }, "\(names)")
        } else {
            // make build's tools carry the libraries inside (not stripped until make install):
            // full Foundation brings ICU's data table (icudt…), FoundationEssentials its own
            // symbols (mangled with the module's name).
            let symbols = try Tools.run("nm", ["--defined-only", path])
            #expect(symbols.status == 0, "nm \(tool): \(symbols.stderr)")
            let icuData = symbols.out.split(separator: "\n").filter { $0.contains(" icudt") }
            Self.expect(tool: tool, carriesFullFoundation: !icuData.isEmpty, carriesEssentials: symbols.out.contains("$s20FoundationEssentials"), "ICU data: \(icuData)")
        }
    }

    static func expect(tool: String, carriesFullFoundation: Bool, carriesEssentials: Bool, _ detail: String) {
        if fullFoundationTools.contains(tool) {
            #expect(carriesFullFoundation, "\(tool) no longer carries full Foundation: take it off fullFoundationTools")
        } else {
            #expect(!carriesFullFoundation, "\(tool) carries full Foundation or ICU: \(detail); import FoundationEssentials (see the other sources)")
            #expect(carriesEssentials, "\(tool): \(detail)")
        }
    }

    /// Sources outside the relay server import Foundation only as the fallback of
    /// `#if canImport(FoundationEssentials) import FoundationEssentials #else …`, and never
    /// FoundationInternationalization or FoundationNetworking: a file merged later cannot
    /// bring full Foundation back unseen.
    @Test("no source outside the relay server imports full Foundation unconditionally")
    func conditionalImports() throws {
        let offences = try Self.offendingLines(skippingTargets: Self.fullFoundationSources, Self.unconditionalImports)
        #expect(offences.isEmpty, "import FoundationEssentials instead (#if canImport(FoundationEssentials) … #else import Foundation #endif): \(offences)")
    }

    @Test("the import check catches a bare import, accepts the conditional one")
    func importCheckCatches() {
        let conditional = "#if canImport(FoundationEssentials)\nimport FoundationEssentials\n#else\nimport Foundation\n#endif\nimport VFSCore\n"
        #expect(Self.unconditionalImports(conditional).isEmpty)
        #expect(Self.unconditionalImports("import Glibc\nimport Foundation\n") == [2])
        #expect(Self.unconditionalImports("@preconcurrency import Foundation\n") == [1])
        #expect(Self.unconditionalImports("import struct Foundation.URL\n") == [1])
        #expect(Self.unconditionalImports("import FoundationInternationalization\n") == [1])
        #expect(Self.unconditionalImports("#if canImport(Foundation)\nimport Foundation\n#endif\n") == [2])
        #expect(Self.unconditionalImports("#if canImport(FoundationEssentials)\nimport FoundationEssentials\n#else\nimport Foundation\n#endif\nimport Foundation\n") == [6])
    }

    /// "Sources/FILE:LINE" for each line `check` finds in a Swift file under Sources (the
    /// targets in `skippingTargets` left out); fails the test when too few files are found
    /// (a wrong root would check nothing).
    static func offendingLines(skippingTargets: Set<String> = [], _ check: (String) -> [Int],
                               sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let sources = root.appendingPathComponent("Sources")
        var checked = 0
        var offences: [String] = []
        let walker = FileManager.default.enumerator(atPath: sources.path)
        while let name = walker?.nextObject() as? String {
            guard name.hasSuffix(".swift"), !skippingTargets.contains(String(name.prefix(while: { $0 != "/" }))) else { continue }
            checked += 1
            let text = try String(contentsOf: sources.appendingPathComponent(name), encoding: .utf8)
            offences += check(text).map { "Sources/\(name):\($0)" }
        }
        #expect(checked > 100, "only \(checked) sources found under \(sources.path)", sourceLocation: sourceLocation)
        return offences
    }

    /// The lines (from 1) of `text` that import Foundation other than as the fallback
    /// branch right after `#if canImport(FoundationEssentials)` / `import FoundationEssentials` / `#else`.
    static func unconditionalImports(_ text: String) -> [Int] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        var offending: [Int] = []
        for (index, line) in lines.enumerated() {
            let words = line.split(separator: " ").filter { !$0.hasPrefix("@") }
            guard let at = words.firstIndex(of: "import"), at == 0, words.count >= 2 else { continue }
            let module = String(words.last!.prefix(while: { $0 != "." }))
            switch module {
            case "FoundationInternationalization", "FoundationNetworking", "FoundationXML":
                offending.append(index + 1)
            case "Foundation":
                let fallback = index >= 3 && line == "import Foundation" && lines[index - 1] == "#else"
                    && lines[index - 2] == "import FoundationEssentials" && lines[index - 3] == "#if canImport(FoundationEssentials)"
                if !fallback { offending.append(index + 1) }
            default:
                continue
            }
        }
        return offending
    }
}
