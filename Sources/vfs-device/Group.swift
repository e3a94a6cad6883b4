import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSCore
import VFSRelayClient
import VFSRelayProtocol

extension DeviceTool {
    struct GroupCommand: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            commandName: "group",
            abstract: "Manage device groups (named sets of your own devices).",
            discussion: """
            Examples:
              vfs-device group create home laptop phone
              vfs-device group add home tablet
              vfs-device group remove home phone
              vfs-device group list --json
              vfs-device group delete home
            """,
            subcommands: [Create.self, Add.self, Remove.self, ListGroups.self, Delete.self])
    }
}

extension DeviceTool.GroupCommand {
    /// Device names (or ids) to ids, from the user's devices.
    static func ids(_ names: [String], client: RelayClient) async throws -> [String] {
        guard !names.isEmpty else { return [] }
        let devices = try await client.devices()
        return try names.map { try RelaySession.device($0, in: devices).id }
    }

    /// A group call whose 404 means the group is missing.
    static func onGroup<R>(_ name: String, _ body: () async throws -> R) async throws -> R {
        do {
            return try await body()
        } catch RelayClientError.rejected(404, _, let message) where message.contains("group") {
            throw RelayClientError.noSuchGroup(name)
        }
    }

    struct Create: AsyncVFSCommand {
        static let configuration = CommandConfiguration(abstract: "Create a group, optionally with its first members.")
        @Argument(help: ArgumentHelp("The group's name.", valueName: "group")) var name: String
        @Argument(help: ArgumentHelp("Devices to put in it.", valueName: "device")) var devices: [String] = []
        @OptionGroup var options: DeviceOptions

        func run() async throws {
            try await options.session().withClient { client in
                _ = try await client.createGroup(name, members: try await ids(devices, client: client))
            }
        }
    }

    struct Add: AsyncVFSCommand {
        static let configuration = CommandConfiguration(abstract: "Add devices to a group.")
        @Argument(help: ArgumentHelp("The group.", valueName: "group")) var name: String
        @Argument(help: ArgumentHelp("Devices to add.", valueName: "device")) var devices: [String]
        @OptionGroup var options: DeviceOptions

        func run() async throws {
            try await options.session().withClient { client in
                for id in try await ids(devices, client: client) {
                    _ = try await onGroup(name) { try await client.addMember(name, id) }
                }
            }
        }
    }

    struct Remove: AsyncVFSCommand {
        static let configuration = CommandConfiguration(abstract: "Remove devices from a group.")
        @Argument(help: ArgumentHelp("The group.", valueName: "group")) var name: String
        @Argument(help: ArgumentHelp("Devices to remove.", valueName: "device")) var devices: [String]
        @OptionGroup var options: DeviceOptions

        func run() async throws {
            try await options.session().withClient { client in
                for id in try await ids(devices, client: client) {
                    _ = try await onGroup(name) { try await client.removeMember(name, id) }
                }
            }
        }
    }

    struct ListGroups: AsyncVFSCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List your groups and their members.")
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: DeviceOptions

        func run() async throws {
            let (groups, devices) = try await options.session().withClient { client in
                (try await client.groups(), try await client.devices())
            }
            if json { return try JSONOutput.print(groups) }
            let names = Dictionary(devices.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
            Listing.print(["GROUP", "MEMBERS"], groups.map { group in
                [DisplayText.printable(group.name), group.members.map { DisplayText.printable(names[$0] ?? $0) }.joined(separator: " ")]
            })
        }
    }

    struct Delete: AsyncVFSCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a group (its devices stay).")
        @Argument(help: ArgumentHelp("The group.", valueName: "group")) var name: String
        @OptionGroup var options: DeviceOptions

        func run() async throws {
            try await options.session().withClient { client in
                try await onGroup(name) { try await client.deleteGroup(name) }
            }
        }
    }
}
