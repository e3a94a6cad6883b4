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

/// An outbox entry with device names, as `vfs-push outbox --json` prints it.
struct OutboxListing: Encodable {
    struct Target: Encodable {
        var device: String
        var name: String
        var status: TransferStatus
        var updated: Date
    }
    var id: String
    var size: Int64
    var created: Date
    var expires: Date
    var recipients: [Target]
}

extension PushTool {
    struct Outbox: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            abstract: "Every transfer this device sent, per target: unattended, initiated, delivered, declined or expired.",
            discussion: "Example:\n  vfs-push outbox --json | jq -r '.[] | .id + \" \" + (.recipients | map(.status) | join(\",\"))'")
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: PushOptions

        func run() async throws {
            let (entries, devices) = try await options.session().withClient { client in
                (try await client.outbox(), try await client.devices())
            }
            let names = Dictionary(devices.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
            let rows = entries.map { entry in
                OutboxListing(id: entry.id, size: entry.size, created: entry.created, expires: entry.expires,
                              recipients: entry.recipients.map { .init(device: $0.device, name: names[$0.device] ?? $0.device,
                                                                       status: $0.status, updated: $0.updated) })
            }
            if json { return try JSONOutput.print(rows) }
            var text = ""
            for row in rows {
                text += "\(row.id)\t\(row.size)\t\(DateText.iso8601(row.created))\texpires \(DateText.iso8601(row.expires))\n"
                for target in row.recipients {
                    text += "  \(DisplayText.printable(target.name))\t\(target.status.rawValue)\n"
                }
            }
            print(text, terminator: "")
        }
    }

    struct Resume: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            abstract: "Finish pushes that were interrupted (from the relay's offset).",
            discussion: "Example:\n  vfs-push resume")
        @OptionGroup var progressOptions: ProgressOptions
        var quiet: Bool { progressOptions.quiet }
        @OptionGroup var options: PushOptions

        func run() async throws {
            let pending = try Spool.pending()
            guard !pending.isEmpty else { return Diagnostics.info("no interrupted push") }
            try await options.session().withClient { client in
                var dropped = 0
                for dir in pending {
                    do {
                        print(try await Spool.deliver(dir, client: client, quiet: quiet).id)
                    } catch let error as ToolError where error.exitStatus == .dataError {
                        // Killed while sealing: removed; the others still go.
                        Diagnostics.warn(error.message)
                        dropped += 1
                    }
                }
                if dropped > 0 {
                    throw ToolError("\(dropped) interrupted push\(dropped == 1 ? " was" : "es were") not sealed to the end and cannot be resumed",
                                    exit: .dataError, hints: ["push those files again"])
                }
            }
        }
    }
}

extension PushTool.Send {
    /// Polls the outbox until no copy of `id` is waiting; 1 (undelivered) if any
    /// target declined or let it expire.
    func waitForDelivery(_ id: String, session: RelaySession) async throws {
        try await session.withClient { client in
            while true {
                guard let entry = try await client.outbox().first(where: { $0.id == id }) else {
                    throw RelayClientError.noSuchTransfer(id)
                }
                if entry.recipients.allSatisfy({ !$0.status.isLive }) {
                    let missed = entry.recipients.filter { $0.status != .delivered }
                    if missed.isEmpty { return }
                    let devices = try await client.devices()
                    throw RelayClientError.undelivered(transfer: id, devices: missed.map { target in
                        "\(devices.first { $0.id == target.device }?.name ?? target.device) (\(target.status.rawValue))"
                    })
                }
                try await Task.sleep(for: .seconds(1))
            }
        }
    }
}

extension PushTool {
    struct Cancel: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            abstract: "Withdraw a transfer: copies not yet fetched expire and the relay deletes the ciphertext.",
            discussion: "Example:\n  vfs-push cancel 3f9c0d…")
        @Argument(help: ArgumentHelp("The transfer's id (vfs-push outbox lists them).", valueName: "id")) var id: String
        @OptionGroup var options: PushOptions

        func run() async throws {
            try await options.session().withClient { client in
                do {
                    try await client.cancel(id)
                } catch RelayClientError.rejected(404, _, _) {
                    throw RelayClientError.noSuchTransfer(id)
                }
            }
        }
    }
}
