import ArgumentParser
import Foundation
import VFSCommandLine
import VFSCore
import VFSRelayServer

struct Devices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List devices: user, id, name, platform, state; or revoke one.",
        subcommands: [List.self, Revoke.self], defaultSubcommand: List.self, aliases: ["device"])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List devices: user, id, name, platform, state.",
            discussion: "State: active (in its user's device chain), active (send-only) (in its user's device chain as a send-only device: it signs its own pushes, is never a recipient, and its token only sends; vfs-device enroll --send-only), pending (enrolled, but no device of its user approved it yet: vfs-device approve on an approved device; read from the chain the relay stores, whose signatures the clients check, not this command), or logged out.")

        @OptionGroup var data: DataOptions
        @Flag(help: "Print JSON.") var json = false
        @Option(help: ArgumentHelp("Only this user's devices.", valueName: "email")) var user: String?
        @Flag(help: "Only devices not logged out.") var active = false

        func run() async throws {
            let (store, _) = try await data.open()
            let devices = try await store.allDevices().filter { entry in
                (user == nil || entry.user == user) && (!active || entry.device.invalidated == nil)
            }
            if json { return try JSONOutput.print(devices) }
            var approved: [String: [String: Bool]] = [:]
            for user in try await store.users() where devices.contains(where: { $0.user == user.email }) {
                approved[user.email] = Self.approved(try await store.chain(user: user.id))
            }
            for entry in devices {
                let device = entry.device
                let state = switch (device.invalidated, approved[entry.user]?[device.id]) {
                case (.some, _): "logged out"
                case (nil, true?): "active (send-only)"
                case (nil, false?): "active"
                case (nil, nil): "pending"
                }
                print("\(entry.user)\t\(device.id)\t\(DisplayText.printable(device.name))\t\(DisplayText.printable(device.platform))\t\(state)")
            }
        }

        /// The devices a stored chain (base64 statements, in order) adds and has not
        /// removed, each with whether it is send-only (added by kind 4, or restated so by a
        /// checkpoint with roles).
        static func approved(_ statements: [String]) -> [String: Bool] {
            var ids: [String: Bool] = [:]
            for text in statements {
                guard let bytes = Data(base64Encoded: text), let statement = try? DeviceChain.Statement.decode(Array(bytes)) else { continue }
                switch statement.action {
                case .add(let entry): ids[entry.id] = entry.sendOnly
                case .remove(let id): ids[id] = nil
                case .checkpoint(let checkpoint):
                    ids = Dictionary(checkpoint.devices.map { ($0.id, $0.sendOnly) }, uniquingKeysWith: { first, _ in first })
                }
            }
            return ids
        }
    }
}

extension Devices {
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Log a device out (the operator's revoke): its token is refused at once, it gets the logout event, and what waited for it expires; it erases nothing (only its user's device chain removes a device).")

        @OptionGroup var data: DataOptions
        @Argument(help: ArgumentHelp("The device's id, or a unique start of it.", valueName: "id")) var id: String

        func run() async throws {
            let (store, blobs) = try await data.open()
            let all = try await store.allDevices()
            let exact = all.filter { $0.device.id == id }
            let matches = exact.isEmpty ? all.filter { $0.device.id.hasPrefix(id) } : exact
            guard !id.isEmpty, matches.count == 1, let entry = matches.first else {
                if matches.count > 1 {
                    throw ToolError.usage("\"\(id)\" is the start of \(matches.count) device ids", hints: ["give more of it; vfs-relay devices lists them"])
                }
                throw ToolError("no device \"\(DisplayText.printable(id))\"", exit: .noInput, hints: ["vfs-relay devices lists them"])
            }
            guard entry.device.invalidated == nil else {
                FileHandle.standardError.write(Data("vfs-relay: \(entry.device.id) (\(DisplayText.printable(entry.device.name))) was already logged out\n".utf8))
                return
            }
            let owner = try await findUser(entry.user, in: store)
            for blob in try await store.invalidateDevice(id: entry.device.id, user: owner.id, now: Date()) { await blobs.deleteBlob(blob) }
            data.report("logged out \(entry.device.id) (\(DisplayText.printable(entry.device.name))) of \(entry.user)")
        }
    }
}
