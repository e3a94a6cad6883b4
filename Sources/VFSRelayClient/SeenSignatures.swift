#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCore

/// `$VFS_HOME/seen-signatures.json`: the bundle signatures this device accepted, each with
/// its transfer and signed time (issue 43, item 8). The same signature under another
/// transfer is a replay: the relay delivering an old bundle again. Entries older than
/// `window` are forgotten, and a signature signed longer ago than that is refused, so the
/// file stays small and no replay slips past a forgotten entry.
package struct SeenSignatures: Sendable {
    package struct Seen: Codable, Equatable, Sendable {
        package var transfer: String
        package var time: Int64
    }

    /// 400 days: longer than a transfer waits on the relay.
    package static let window: Int64 = 400 * 86_400

    package let path: String
    /// By the base64 SHA-256 of the signature entry's signature.
    package private(set) var seen: [String: Seen]

    package init(home: String) throws {
        path = home + "/seen-signatures.json"
        seen = try PinFile.load(path, what: "a file of seen bundle signatures") ?? [:]
    }

    /// Records `signature` as received with `transfer`; throws `.replayed` when it came
    /// before with another transfer, `.tooOld` when signed before the window. The same
    /// transfer again (a fetch retried, resumed, or read twice) is no replay.
    package mutating func record(_ signature: BundleSignature, transfer: String, now: Date = Date()) throws {
        guard let time = signature.time else { throw BundleSignatureError.unaddressed(version: signature.version) }
        let today = Int64(now.timeIntervalSince1970)
        guard time >= today - Self.window else { throw BundleSignatureError.tooOld(signed: time) }
        let key = Data(SHA256.hash(Array(signature.signature.utf8))).base64EncodedString()
        if let before = seen[key], before.transfer != transfer { throw BundleSignatureError.replayed(seen: before.transfer) }
        seen = seen.filter { $0.value.time >= today - Self.window }
        seen[key] = Seen(transfer: transfer, time: time)
    }

    /// Written atomically, private to the user.
    package func save() throws { try PinFile.save(seen, to: path) }
}
