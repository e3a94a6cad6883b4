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

    @Test("completion scripts are committed and match the built commands", arguments: PackagingTests.tools)
    func completions(tool: String) throws {
        for (shell, file) in [("bash", "bash/\(tool)"), ("zsh", "zsh/_\(tool)"), ("fish", "fish/\(tool).fish")] {
            let committed = try String(contentsOf: Self.root.appendingPathComponent("completions/\(file)"), encoding: .utf8)
            let generated = try Tools.run(tool, ["--generate-completion-script", shell]).out
            #expect(committed == generated, "completions/\(file) is stale: run make completions")
        }
    }

    @Test("the man page is committed and documents every option of --help", arguments: PackagingTests.tools)
    func manPage(tool: String) throws {
        let page = try String(contentsOf: Self.root.appendingPathComponent("man/\(tool).1"), encoding: .utf8)
        #expect(page.contains(".Nm \(tool)"))
        #expect(page.contains("Exit status"))
        let help = try Tools.run(tool, ["--help"]).out
        let options = help.split(whereSeparator: { " ,\n<>[]=".contains($0) }).filter { $0.hasPrefix("--") && $0.count > 2 }
        for option in Set(options) where option != "--help" && option != "--version" {
            #expect(page.contains("Fl -\(option.dropFirst(2))"), "man/\(tool).1 lacks \(option): run make man")
        }
    }
}
