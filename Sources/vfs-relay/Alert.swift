import ArgumentParser
import Foundation
import VFSCommandLine
import VFSRelayProtocol

struct Alert: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send an alert event to every device of a user.",
        discussion: "Devices that are offline get it when they next connect (events are stored).")

    @OptionGroup var data: DataOptions
    @Argument(help: "The user's email address.") var email: String
    @Argument(help: "The message.") var message: String

    func run() async throws {
        guard !message.isEmpty, message.utf8.count <= 4096 else { throw ToolError.usage("the message must be 1 to 4096 bytes") }
        let (store, _) = try await data.open()
        let devices = try await store.deviceIDs(ofUser: email)
        let payload = try JSONSerialization.data(withJSONObject: ["message": message], options: [.sortedKeys])
        try await store.appendEvent(kind: .alert, data: String(decoding: payload, as: UTF8.self), devices: devices, now: Date())
        try await store.audit(org: nil, actor: "operator", action: "alert", subject: email, detail: message, now: Date())
        data.report("alert stored for \(devices.count) device(s) of \(email)")
    }
}
