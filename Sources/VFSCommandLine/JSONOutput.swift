import Foundation
import VFSCore

/// `--json` output: one JSON document on stdout, keys sorted, dates in ISO 8601.
public enum JSONOutput {
    public static func print<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(value)
        // An empty list as `[]`, not over three lines (the pretty printer's way).
        try StandardOutput.write(PolicyCodec.compactingEmptyLists(Array(data)) + [0x0A])
    }
}
