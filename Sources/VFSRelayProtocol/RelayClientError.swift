/// What a relay client (vfs-device, vfs-push, vfs-fetch) can run into. The data only:
/// VFSCommandLine's ErrorReporting gives each its exit status and hints.
public enum RelayClientError: Error, CustomStringConvertible, Equatable, Sendable {
    /// No connection to the relay (refused, reset before an answer, no such host).
    case unreachable(url: String, reason: String)
    /// The relay answered with an error status and its JSON body.
    case rejected(status: Int, code: String, message: String)
    /// The relay's answer did not make sense (not JSON, missing header).
    case badAnswer(url: String, reason: String)
    /// The relay sent an id or digest that breaks its rule (`CheckedAnswer`): never used.
    case invalidAnswer(what: String, value: String, rule: String)
    /// A relay URL that is not http(s)://HOST[:PORT][/PATH] (`source`: VFS_RELAY, relay.json…).
    case invalidURL(url: String, source: String)
    /// An http:// relay beyond loopback without `--insecure-http`: refused before a byte
    /// is sent (the enrolment code and the token would cross the network in clear).
    case cleartext(url: String, host: String)
    /// The https:// relay's certificate is not signed by a trusted CA (`reason`: NIOSSL's).
    case untrustedCertificate(url: String, reason: String)
    /// The CA file to trust (`--cacert`, VFS_RELAY_CACERT, relay.json) can't be read
    /// (`missing`) or holds no PEM certificate.
    case badCAFile(path: String, missing: Bool)
    /// No `relay.json`: this machine is not enrolled.
    case notEnrolled(config: String)
    /// The relay reports another recipient for a device than the one pinned.
    case keyChanged(device: String, pinned: String, reported: String)
    case noSuchDevice(String)
    case noSuchGroup(String)
    case noSuchTransfer(String)
    /// A transfer fetched while it uploaded whose upload never ended: its sender cancelled
    /// it or stopped uploading (the relay removed the upload). Nothing of it was placed.
    case abandoned(transfer: String)
    /// A transfer followed while it uploaded (`vfs-fetch --all`) that got no byte for
    /// `seconds`: its sender stopped, for now or for good. Left in the inbox.
    case stalled(transfer: String, seconds: Int)
    /// A transfer taken while it uploaded, unchecked as it arrives (`vfs-fetch --raw`,
    /// `--allow-unverified`), ran past `limit` bytes: refused, its partial file removed.
    case pastLimit(transfer: String, limit: Int64)
    /// No user of that address in this device's organisation (or one without a device chain).
    case noSuchUser(String)
    /// A name or id prefix that fits more than one (`what`: "transfer", "device").
    case ambiguous(what: String, reference: String, candidates: [String])
    /// The device's token or identity is not where it should be.
    case missingCredential(what: String, place: String)
    /// The relay logged this device out (a `logout` event).
    case loggedOut(device: String)
    /// A downloaded transfer does not have the SHA-256 the relay listed.
    case corruptDownload(transfer: String, expected: String, actual: String)
    /// `--wait` ended with some targets that will never get the transfer.
    case undelivered(transfer: String, devices: [String])
    /// Devices the relay lists but the user's verified device chain does not (names).
    case pending(devices: [String])

    public var description: String {
        switch self {
        case let .unreachable(url, reason): return "relay unreachable at \(url): \(reason)"
        case let .rejected(503, code, message) where code == RelayErrorCode.unavailable.rawValue:
            // The relay runs; the store it keeps files in (an S3 bucket) does not answer.
            return "the relay's storage is unavailable: \(message) (503 \(code))"
        case let .rejected(status, code, message): return "the relay refused: \(message) (\(status) \(code))"
        case let .badAnswer(url, reason): return "unexpected answer from the relay at \(url): \(reason)"
        case let .invalidAnswer(what, value, rule): return "the relay sent an invalid \(what) \"\(value)\" (not \(rule)); nothing was written"
        case let .invalidURL(url, source): return "invalid relay URL \"\(url)\" (\(source))"
        case let .cleartext(url, host):
            return "refusing \(url): plain http to \(host), beyond this machine, would send the enrolment code and the token in clear"
        case let .untrustedCertificate(url, reason):
            return "the relay at \(url) has a TLS certificate this machine does not trust (\(reason))"
        case let .badCAFile(path, missing):
            return missing ? "cannot read the CA file \"\(path)\"" : "no PEM certificate in the CA file \"\(path)\""
        case let .notEnrolled(config): return "this machine is not enrolled with a relay (no \"\(config)\")"
        case let .keyChanged(device, pinned, reported):
            return "the relay reports a new key for device \"\(device)\" (pinned \(pinned), now \(reported)); refusing to encrypt to it"
        case let .noSuchDevice(name): return "no device \"\(name)\""
        case let .noSuchGroup(name): return "no group \"\(name)\""
        case let .noSuchTransfer(id): return "no transfer \"\(id)\""
        case let .abandoned(id): return "transfer \"\(id)\" was abandoned by its sender before its upload ended: nothing was placed"
        case let .stalled(id, seconds):
            return "transfer \"\(id)\" is still uploading, and its sender sent nothing for \(seconds) s: left in the inbox, nothing was placed"
        case let .pastLimit(id, limit):
            return "transfer \"\(id)\" ran past \(limit) bytes while it uploaded, the most taken of a transfer not checked as it arrives: nothing was kept"
        case let .noSuchUser(user): return "no such user in your organisation: \"\(user)\""
        case let .ambiguous(what, reference, candidates):
            return "\"\(reference)\" names more than one \(what): " + candidates.joined(separator: ", ")
        case let .missingCredential(what, place): return "no \(what) for this device in \(place)"
        case let .loggedOut(device): return "device \"\(device)\" was logged out by the relay; its token and identity were erased"
        case let .corruptDownload(transfer, expected, actual):
            return "transfer \"\(transfer)\" downloaded with SHA-256 \(actual), not \(expected)"
        case let .undelivered(transfer, devices):
            return "transfer \"\(transfer)\" was not delivered to " + devices.map { "\"\($0)\"" }.joined(separator: ", ")
        case let .pending(devices):
            return "not approved by your devices yet, refusing to encrypt to it: " + devices.map { "\"\($0)\"" }.joined(separator: ", ")
        }
    }

    /// The HTTP status, for a rejection.
    public var status: Int? {
        if case .rejected(let status, _, _) = self { return status }
        return nil
    }
}
