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
            try checkPlainName(name, what: "group name")
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
        @OptionGroup var member: MemberArguments

        func run() async throws { try await member.change(add: true) }
    }

    struct MemberRemove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove",
                                                        abstract: "Remove a member from a group: nothing sent to the group from then on reaches them.")
        @OptionGroup var member: MemberArguments

        func run() async throws { try await member.change(add: false) }
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

/// What member add and remove take.
struct MemberArguments: ParsableArguments {
    @OptionGroup var data: DataOptions
    @Argument(help: "The group.") var name: String
    @Argument(help: "The user's email address.") var email: String
    @Option(help: ArgumentHelp("The organisation.", valueName: "name")) var org: String

    /// Adds or removes the member, as the operator.
    func change(add: Bool) async throws {
        let (store, _) = try await data.open()
        _ = try await store.changeOrgGroupMember(org: try await store.organisationID(name: org), group: name, email: email, add: add,
                                                 actor: "operator", now: Date())
        data.report(add ? "added \(email) to group \(name)" : "removed \(email) from group \(name)")
    }
}
