import ArgumentParser
import Foundation
import VFSCommandLine
import VFSCore

struct Org: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage organisations.", subcommands: [Add.self, List.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List organisations: name, users.")

        @OptionGroup var data: DataOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let (store, _) = try await data.open()
            let organisations = try await store.organisations()
            if json { return try JSONOutput.print(organisations) }
            for organisation in organisations { print("\(organisation.name)\t\(organisation.users) user(s)") }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an organisation (to a relay made by `vfs-relay init` or `serve`).")

        @OptionGroup var data: DataOptions
        @Argument(help: "The organisation's name (letters, digits, '.', '_', '-').") var name: String

        func run() async throws {
            try checkPlainName(name, what: "organisation name")
            let (store, _) = try await data.open()
            try await store.createOrganisation(name: name, now: Date())
            data.report("added organisation \(name)")
        }
    }
}

/// An organisation's or a group's name: 1 to 64 ASCII letters, digits, '.', '_' and '-'.
func checkPlainName(_ name: String, what: String) throws {
    guard !name.isEmpty, name.utf8.count <= 64,
          name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0)) }) else {
        throw ToolError.usage("invalid \(what) \"\(name)\"", hints: ["use letters, digits, '.', '_' and '-' (up to 64)"])
    }
}
