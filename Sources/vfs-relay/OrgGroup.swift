import ArgumentParser
import Foundation
import VFSCommandLine
import VFSCore
import VFSRelayProtocol
import VFSRelayServer

/// `vfs-relay group`: an organisation's groups of people (issue 28), as its
/// administrators keep them through the API.
struct OrgGroupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "group",
        abstract: "Manage an organisation's groups of people (vfs-push --to-group NAME sends to every member).",
        subcommands: [Add.self, List.self, Member.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an empty group of people to an organisation.")
        @OptionGroup var data: DataOptions
        @Argument(help: "The group's name (letters, digits, '.', '_', '-').") var name: String
        @Option(help: ArgumentHelp("The organisation.", valueName: "name")) var org: String

        func run() async throws {
            guard !name.isEmpty, name.utf8.count <= 64,
                  name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0)) }) else {
                throw ToolError.usage("invalid group name \"\(name)\"", hints: ["use letters, digits, '.', '_' and '-' (up to 64)"])
            }
            let (store, _) = try await data.open()
            _ = try await store.createOrgGroup(org: try await store.organisationID(name: org), name: name, actor: "operator", now: Date())
            data.report("added group \(name) to \(org)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List an organisation's groups of people: name, members.")
        @OptionGroup var data: DataOptions
        @Option(help: ArgumentHelp("The organisation.", valueName: "name")) var org: String
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let (store, _) = try await data.open()
            let groups = try await store.orgGroups(org: try await store.organisationID(name: org), member: nil)
            if json { return try JSONOutput.print(groups) }
            for group in groups { print("\(group.name)\t\(group.members.joined(separator: ","))") }
        }
    }

    struct Member: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add, remove or list a group's members.",
                                                        subcommands: [MemberAdd.self, MemberRemove.self, MemberList.self])
    }

    struct MemberAdd: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a user of the organisation to a group.")
        @OptionGroup var data: DataOptions
        @Argument(help: "The group.") var name: String
        @Argument(help: "The user's email address.") var email: String
        @Option(help: ArgumentHelp("The organisation.", valueName: "name")) var org: String

        func run() async throws { try await changeMember(data: data, org: org, group: name, email: email, add: true) }
    }

    struct MemberRemove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove",
                                                        abstract: "Remove a member from a group: nothing sent to the group from then on reaches them.")
        @OptionGroup var data: DataOptions
        @Argument(help: "The group.") var name: String
        @Argument(help: "The user's email address.") var email: String
        @Option(help: ArgumentHelp("The organisation.", valueName: "name")) var org: String

        func run() async throws { try await changeMember(data: data, org: org, group: name, email: email, add: false) }
    }

    struct MemberList: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List a group's members' email addresses.")
        @OptionGroup var data: DataOptions
        @Argument(help: "The group.") var name: String
        @Option(help: ArgumentHelp("The organisation.", valueName: "name")) var org: String
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let (store, _) = try await data.open()
            let group = try await store.orgGroup(org: try await store.organisationID(name: org), name: name)
            if json { return try JSONOutput.print(group.members) }
            for member in group.members { print(member) }
        }
    }
}

/// Adds or removes a member, as the operator.
private func changeMember(data: DataOptions, org: String, group: String, email: String, add: Bool) async throws {
    let (store, _) = try await data.open()
    _ = try await store.changeOrgGroupMember(org: try await store.organisationID(name: org), group: group, email: email, add: add,
                                             actor: "operator", now: Date())
    data.report(add ? "added \(email) to group \(group)" : "removed \(email) from group \(group)")
}
