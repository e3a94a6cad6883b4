#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCore
import VFSRelayProtocol

/// Who a push goes to, as vfs-push names them: devices, device groups, people and groups
/// of people of the organisation.
package struct PushAddressees {
    package var devices: [String] = []
    package var groups: [String] = []
    /// `--to`: users by email address.
    package var people: [String] = []
    /// `--to-group`: groups of people.
    package var peopleGroups: [String] = []
    /// Also this user's own approved devices (not the sending one).
    package var ccMe = false
    /// Refuse a person whose safety code was not confirmed.
    package var verifiedOnly = false
    /// The cloud file that also keeps the push (its readers are every device of the user).
    package var cloud: String?

    package init() {}

    /// --to or --to-group.
    package var sendsToPeople: Bool { !people.isEmpty || !peopleGroups.isEmpty }
}

/// A person sent to (`--to`) and the devices of their verified chain.
package struct Colleague {
    package var user: String
    package var devices: [DeviceChain.DeviceEntry]
}

/// A push's targets resolved and checked against this device's trust: the devices, the
/// people, the recipients the bundle is encrypted to, and who signs it.
package struct PushTargets {
    package var devices: [Device]
    package var colleagues: [Colleague]
    package var recipients: [AgeRecipient]
    /// This device's recipient, named in the manifest.
    package var sender: String?
    /// Signed by this device, so receivers verify who sent it (docs/device-chain.md).
    package var signer: BundleSignature.Signer?

    /// A device named outright must be approved (77 otherwise); a group's pending and
    /// revoked members are left out with a warning, as is the sender from its own groups.
    package static func resolve(_ addressees: PushAddressees, session: RelaySession, client: RelayClient,
                                report: ClientReport) async throws -> PushTargets {
        let all = try await client.devices()
        let trust = try await session.deviceTrust(client)
        var targets: [Device] = []
        func add(_ device: Device, via: String?) {
            guard !targets.contains(where: { $0.id == device.id }) else { return }
            guard device.invalidated == nil else {
                return report.warn("skipping \"\(device.name)\"\(via.map { " in group \"\($0)\"" } ?? ""): it was revoked")
            }
            targets.append(device)
        }
        // A device named outright must be approved (77 otherwise); a group's pending members are left out.
        let named = try addressees.devices.map { try RelaySession.device($0, in: all) }
        try trust.requireApproved(named.filter { $0.invalidated == nil })
        for device in named { add(device, via: nil) }
        for group in addressees.groups {
            // The sender is left out of its own group push (a --wait would wait for itself).
            for id in try await RelaySession.group(group, client: client).members where id != session.config.device {
                if let device = all.first(where: { $0.id == id }), !trust.leavingOutPending([device], warn: report.warn).isEmpty {
                    add(device, via: group)
                }
            }
        }
        // --cc-me: this user's approved devices, as a person sent to (not the sending device).
        if addressees.ccMe {
            for device in trust.approved where device.id != session.config.device { add(device, via: nil) }
        }
        let colleagues = try await colleagueTargets(addressees, session: session, trust: trust, client: client, report: report)
        guard !targets.isEmpty || !colleagues.isEmpty else {
            throw TransferError.noLiveDevice
        }
        if let cloud = addressees.cloud, try await client.cloudLookup(cloud) != nil {
            throw TransferError.cloudFileExists(cloud)
        }
        // A cloud copy must open on every device of the user, not just the targets.
        let readers = addressees.cloud == nil ? targets
            : targets + trust.leavingOutPending(all.filter { $0.invalidated == nil && !targets.map(\.id).contains($0.id) },
                                                warn: report.warn)
        // The chain's word on every reader of this user: a send-only device is refused
        // (77; issue 48), whatever listed it.
        for reader in readers { _ = try trust.verified?.recipient(reader.id) }
        let recipients = try session.pinnedRecipients(readers)
            + colleagues.flatMap { $0.devices }.map { try AgeRecipient($0.recipient) }
        let sender = all.first { $0.id == session.config.device }?.recipient
        // The devices it is for and the time are signed too: a receiver not among them, or
        // one handed the same signature again, is refused (issue 43, item 8).
        let readerIDs = readers.map(\.id) + colleagues.flatMap { $0.devices }.map(\.id)
        let signer = session.credentials.signingKey.map {
            BundleSignature.Signer(user: trust.user, device: session.config.device, key: $0, recipients: readerIDs,
                                   time: Int64(Date().timeIntervalSince1970))
        }
        return PushTargets(devices: targets, colleagues: colleagues, recipients: recipients, sender: sender, signer: signer)
    }

    /// Each person of --to: their chain from the relay, verified and pinned (a changed
    /// root is refused, 77), and its devices, in the chain's order. A person whose safety
    /// code was not confirmed is named once on stderr (refused, 77, with --verified-only).
    /// This user's own address counts as --cc-me.
    static func colleagueTargets(_ addressees: PushAddressees, session: RelaySession, trust: DeviceTrust,
                                 client: RelayClient, report: ClientReport) async throws -> [Colleague] {
        var users = addressees.people
        for name in addressees.peopleGroups {
            let group: OrgGroup
            do {
                group = try await client.call(.GET, RelayPaths.orgGroup(name), as: OrgGroup.self)
            } catch RelayClientError.rejected(let status, _, _) where status == 404 || status == 400 {
                throw TransferError.noPeopleGroup(name)
            }
            // This user is a member too: their own devices come with --cc-me.
            users += group.members.filter { $0 != trust.user }
        }
        var colleagues: [Colleague] = []
        for user in users where user != trust.user && !colleagues.contains(where: { $0.user == user }) {
            let chain = try await session.colleagueChain(user, client: client)
            // A device whose recipient this vfs can't encrypt to (a newer kind, or junk a
            // device of theirs approved) is left out and named; the others still get it.
            var devices: [DeviceChain.DeviceEntry] = []
            for device in chain.devices.values.sorted(by: { $0.id < $1.id }) {
                guard (try? AgeRecipient(device.recipient)) != nil else {
                    report.warn("leaving out \"\(DisplayText.printable(device.name))\" of \(DisplayText.printable(user)): its recipient is not one this vfs can encrypt to")
                    continue
                }
                devices.append(device)
            }
            guard !devices.isEmpty else {
                report.warn("leaving out \(DisplayText.printable(user)): none of their devices has a recipient this vfs can encrypt to")
                continue
            }
            colleagues.append(Colleague(user: user, devices: devices))
        }
        let pins = try PinStore(home: session.home)
        let unverified = colleagues.map(\.user).filter { !pins.isVerified($0) }
        if !unverified.isEmpty {
            let names = unverified.map { DisplayText.printable($0) }.joined(separator: ", ")
            if addressees.verifiedOnly { throw TransferError.notVerified(names: unverified) }
            let hint = TransferError.verifyHint(unverified[0])
            report.warn("sending to \(names), whose safety code you have not confirmed (\(hint))")
        }
        return colleagues
    }
}
