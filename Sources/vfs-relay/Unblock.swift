import ArgumentParser
import Foundation
import VFSCommandLine
import VFSRelayServer

struct Unblock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Let an address that sent too many wrong enrolment codes try again at once.",
        discussion: """
        After 5 wrong codes in a row an address waits 15 minutes (429). The address is the \
        client's: behind a proxy named with `serve --trusted-proxy`, the one it forwards for. \
        Exit status: 0 unblocked; 1 the address was not blocked.
        """)

    @OptionGroup var data: DataOptions
    @Argument(help: ArgumentHelp("The client address, as the request log shows it.", valueName: "address")) var address: String

    func run() async throws {
        guard CIDR(address) != nil, !address.contains("/") else {
            throw ToolError.usage("invalid address \"\(address)\"", hints: ["write one IPv4 or IPv6 address, such as 198.51.100.7 or 2001:db8::1"])
        }
        let (store, _) = try await data.open()
        let now = Date()
        guard try await store.enrolmentWait(address: address, now: now) != nil else {
            FileHandle.standardError.write(Data("vfs-relay: \(address) is not blocked\n".utf8))
            throw ExitCode(ExitStatus.no.rawValue)
        }
        try await store.enrolmentSucceeded(address: address)
        try await store.audit(org: nil, actor: "operator", action: "enrolment.unblock", subject: address, detail: "", now: now)
        data.report("\(address) may enrol again")
    }
}
