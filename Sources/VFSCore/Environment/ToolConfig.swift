#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The tools' settings, `$VFS_HOME/config.json` (`VFSPaths.toolConfig`); a missing file
/// is all defaults. Strict JSON: an unknown key or value is an error (exit 65), never
/// ignored. Today one setting:
///
/// ```json
/// { "policy": { "source": "relay" } }
/// ```
///
/// `policy.source` is `file` (the default: the local policy file) or `relay` (this
/// device's copy of its organisation's list on the relay; see RelayPolicyCache). It
/// decides for vfs-policy's list and check and for `--for APP` in vfs-unwrap and vfs-fetch.
public struct ToolConfig: Sendable, Equatable {
    public enum PolicySourceKind: String, Sendable, Codable, CaseIterable {
        case file, relay
    }

    public var policySource: PolicySourceKind = .file

    public init(policySource: PolicySourceKind = .file) {
        self.policySource = policySource
    }

    struct FileBody: Decodable {
        struct Policy: Decodable {
            var source: PolicySourceKind?
            enum CodingKeys: String, CodingKey, CaseIterable { case source }
            init(from decoder: Decoder) throws {
                try AnyKey.rejectUnknownKeys(in: decoder, known: CodingKeys.self)
                source = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(PolicySourceKind.self, forKey: .source)
            }
        }
        var policy: Policy?
        enum CodingKeys: String, CodingKey, CaseIterable { case policy }
        init(from decoder: Decoder) throws {
            try AnyKey.rejectUnknownKeys(in: decoder, known: CodingKeys.self)
            policy = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Policy.self, forKey: .policy)
        }
    }

    /// The settings in `path`; defaults when it does not exist. Throws
    /// `PolicyError.corrupt` (naming the file and line) when it does not parse.
    public static func load(path: String) throws -> ToolConfig {
        guard let bytes = try PolicyStore.readIfPresent(path) else { return ToolConfig() }
        let body: FileBody = try PolicyCodec.decodeValue(bytes, source: path)
        return ToolConfig(policySource: body.policy?.source ?? .file)
    }

    public static func load(paths: VFSPaths = .current) throws -> ToolConfig {
        try load(path: try paths.toolConfig)
    }
}

/// The clock staleness is measured with: now, or, for the test suite only
/// (`VFS_TEST_HOOKS=1`), the ISO 8601 time in `VFS_TEST_NOW`, so a test can stand
/// 73 hours after a sync without waiting for them.
enum TestClock {
    static func now(_ paths: VFSPaths) -> Date {
        guard paths.environment["VFS_TEST_HOOKS"] == "1", let text = paths.environment["VFS_TEST_NOW"],
              let date = PolicyDates.parseTime(text) else { return Date() }
        return date
    }
}
