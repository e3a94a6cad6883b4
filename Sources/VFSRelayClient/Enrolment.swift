#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCore
import VFSRelayProtocol

/// `vfs-device enroll`'s workflow: a new device on the relay with new keys, its credentials
/// and `relay.json` in the home, and, on a machine enrolled before (`--force`), the old
/// device's place in the user's device chain handed to the new one and the old device
/// revoked (docs/device-chain.md). The tool checks its options, finds the old enrolment
/// and prints; the steps and their order are here.
package struct Enrolment {
    /// The relay's URL, checked already.
    package var url: String
    package var code: String
    package var name: String
    package var platform: String
    /// The device's decryption key: a new X25519 identity, or a plugin's stub (whose
    /// recipient is given apart, kept in `relay.json`).
    package var identity: AgeIdentity
    package var stubRecipient: String?
    /// The CA to trust for this enrolment's https (`--cacert`, else VFS_RELAY_CACERT).
    package var caFile: String?
    /// `--cacert`: copied to `HOME/relay-ca.pem` for later commands.
    package var keepCA: String?
    package var insecureHTTP: Bool
    package var timeout: Int?
    /// Where the token, identity and signing key go.
    package var place: CredentialPlace
    package var home: String
    /// How a chain of the user this device has never seen is taken.
    package var acceptance: ChainAcceptance
    package var report: ClientReport
    /// `--send-only` (issue 48): a device that signs its pushes and is never a recipient;
    /// its fingerprint says so, and an approved device adds it to the chain as such.
    package var sendOnly = false

    package init(url: String, code: String, name: String, platform: String, identity: AgeIdentity, stubRecipient: String?,
                 caFile: String?, keepCA: String?, insecureHTTP: Bool, timeout: Int?, place: CredentialPlace, home: String,
                 acceptance: ChainAcceptance, report: ClientReport) {
        (self.url, self.code, self.name, self.platform, self.identity, self.stubRecipient) = (url, code, name, platform, identity, stubRecipient)
        (self.caFile, self.keepCA, self.insecureHTTP, self.timeout, self.place, self.home) = (caFile, keepCA, insecureHTTP, timeout, place, home)
        (self.acceptance, self.report) = (acceptance, report)
    }

    /// What an enrolment made: the new device, and the chain it could not trust (enrolled,
    /// but trusting nothing of a chain nobody confirmed: the tool says so, 77).
    package struct Outcome {
        package var device: Device
        package var signingKey: Ed25519.SigningKey
        package var unseen: UnseenChain?
    }

    package var recipient: String { stubRecipient ?? identity.recipient.string }

    /// Enrols the device, replacing `old` (this machine's enrolment with a live token, or
    /// nil) and `oldSigner` (its id and signing key, kept even when its token is dead).
    /// `join` makes the new device's session join the user's chain (the tool's words go
    /// with it); an `UnseenChain` it throws is the outcome's, any other failure a warning.
    package func run(replacing old: RelaySession?, oldSigner: (id: String, key: Ed25519.SigningKey)?,
                     join: (RelaySession, RelayClient, Ed25519.SigningKey) async throws -> Void) async throws -> Outcome {
        var old = old
        // The old device gives up its name while the new one takes it (back if that fails).
        let keepsName = old?.config.name == name
        if let session = old, keepsName {
            do {
                try await Self.rename(session, to: "old-" + session.config.device)
            } catch RelayClientError.rejected(401, _, _) {
                // Revoked already (its token refused): nothing of it is left to replace.
                old = nil
            }
        }
        let signingKey = try Ed25519.SigningKey()
        let recipient = recipient
        let answer: EnrollResponse
        do {
            answer = try await RelayClient.with(baseURL: url, token: nil, timeout: timeout, caFile: caFile) { client in
                try await client.enroll(EnrollRequest(code: code, name: name, platform: platform, recipient: recipient,
                                                      sendOnly: sendOnly ? true : nil))
            }
        } catch {
            if let old, keepsName { try? await Self.rename(old, to: name) }
            throw error
        }
        try DeviceCredentials.save(place, token: answer.token, identity: identity, signingKey: signingKey)
        try saveConfig(answer.device)
        var pins = try PinStore(home: home)
        pins.trust(answer.device)
        try pins.save()
        report.info("enrolled \"\(answer.device.name)\" with \(url)")
        report.info("fingerprint \(Fingerprint.device(signingKey: signingKey.publicKey, recipient: recipient, sendOnly: sendOnly))")
        // The new device as the chain holds it (a name it can't hold fails where it is used).
        func entry() throws -> DeviceChain.DeviceEntry {
            DeviceChain.DeviceEntry(id: answer.device.id, name: try RelaySession.chainName(answer.device.name),
                                    recipient: recipient, signingKey: signingKey.publicKey, sendOnly: sendOnly)
        }
        // An approved old device hands its place in the chain to the new one.
        if let old, let oldKey = old.credentials.signingKey {
            let entry = try entry()
            do {
                if try await Self.handOver(from: old, key: oldKey, to: entry) {
                    report.info("the old device approved the new one and left your device chain")
                }
            } catch {
                report.warn("the old device could not hand its place in your device chain to the new one (\(error)); approve it from another device")
            }
        }
        // The user's first device starts the device chain; a later one is pending until
        // approved, once the person took the chain as theirs (issue 43, item 6).
        var unseen: UnseenChain?
        do {
            let session = try RelaySession.open(home: home, place: place, timeout: timeout)
            _ = try await session.withClient { client in
                // The old token is dead, its key maybe not: it approves the new device through the new token.
                if old == nil, let oldSigner {
                    let entry = try entry()
                    do {
                        if try await Self.handOver(from: oldSigner, to: entry, key: signingKey, session: session, client: client,
                                                   acceptance: acceptance) {
                            report.info("the old device's key approved the new one, which removed the old one from your device chain")
                        }
                    } catch let error as UnseenChain {
                        throw error
                    } catch {
                        report.warn("the old device's key could not approve the new one (\(error)); approve it from another device")
                    }
                }
                try await join(session, client, signingKey)
            }
        } catch let error as UnseenChain {
            unseen = error
        } catch {
            report.warn("could not join the device chain yet (\(error)); vfs-device list tries again")
        }
        if let old {
            // A vfs-fetch --watch of the old device hears its logout, sees this new
            // enrolment, and leaves the new credentials alone (Watcher.logOut).
            do {
                try await old.withClient { try await $0.invalidateDevice(old.config.device) }
                report.info("revoked the old device \"\(DisplayText.printable(old.config.name))\" (\(old.config.device))")
            } catch {
                report.warn("could not revoke the old device \(old.config.device): \(error)")
            }
        }
        return Outcome(device: answer.device, signingKey: signingKey, unseen: unseen)
    }

    /// `relay.json`, and the CA kept as a copy: the file named may be a download that goes away.
    func saveConfig(_ device: Device) throws {
        var kept: String?
        if let keepCA {
            kept = home + "/relay-ca.pem"
            // With --token-file and --identity-file nothing else may have made the folder yet.
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try AtomicOutputFile.write(Array(try Data(contentsOf: URL(fileURLWithPath: keepCA))), to: home + "/relay-ca.pem", mode: 0o600)
        }
        try DeviceConfig(relay: url, device: device.id, name: device.name, ca: kept, insecureHTTP: insecureHTTP,
                         recipient: stubRecipient, sendOnly: sendOnly).save(home: home)
    }

    /// When the old device is approved: it adds `entry` (the new device) to the chain and
    /// then removes itself, both statements signed by its own key. False when it is not
    /// in the verified chain (pending, or no chain): nothing to hand over.
    static func handOver(from old: RelaySession, key: Ed25519.SigningKey, to entry: DeviceChain.DeviceEntry) async throws -> Bool {
        try await old.withClient { client in
            let trust = try await old.deviceTrust(client)
            guard let verified = trust.verified, verified.devices[old.config.device] != nil else { return false }
            let added = try await old.append(.add(entry), to: trust, key: key, client: client)
            _ = try await old.append(.remove(deviceId: old.config.device), to: added, key: key, client: client)
            return true
        }
    }

    /// When the old device's token is dead (its user disabled, then enabled): its key, if
    /// live in the verified chain, adds `entry` (posted with the new device's token), and
    /// the new device then removes the old one with its own `key`. False when the old
    /// device is not live in the chain (pending, removed, or the chain is gone).
    static func handOver(from old: (id: String, key: Ed25519.SigningKey), to entry: DeviceChain.DeviceEntry,
                         key: Ed25519.SigningKey, session: RelaySession, client: RelayClient,
                         acceptance: ChainAcceptance) async throws -> Bool {
        let trust = try await session.deviceTrust(client, enrolling: true, acceptance: acceptance)
        guard let verified = trust.verified, verified.devices[old.id] != nil, verified.devices[entry.id] == nil else { return false }
        let added = try await session.append(.add(entry), to: trust, key: old.key, signer: old.id, client: client)
        _ = try await session.append(.remove(deviceId: old.id), to: added, key: key, client: client)
        return true
    }

    static func rename(_ session: RelaySession, to name: String) async throws {
        _ = try await session.withClient { try await $0.renameDevice(session.config.device, to: name) }
    }
}
