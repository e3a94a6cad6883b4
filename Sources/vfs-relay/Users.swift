import ArgumentParser
import Foundation
import VFSCommandLine

struct Users: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List users: email, organisation, role, devices.")

    @OptionGroup var data: DataOptions
    @Flag(help: "Print JSON.") var json = false
    @Option(help: ArgumentHelp("Only this organisation's users.", valueName: "name")) var org: String?
    @Flag(help: "Only disabled users.") var disabled = false

    func run() async throws {
        let (store, _) = try await data.open()
        let users = try await store.users().filter { user in
            (org == nil || user.org == org) && (!disabled || user.disabled != nil)
        }
        if json { return try JSONOutput.print(users) }
        for user in users {
            print("\(user.email)\t\(user.org)\t\(user.role)\t\(user.devices) device(s)\(user.disabled == nil ? "" : "\tdisabled")")
        }
    }
}
