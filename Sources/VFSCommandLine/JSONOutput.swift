#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
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

    /// One compact JSON object on one line (JSON Lines), keys sorted.
    public static func printLine<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        try StandardOutput.write(Array(try encoder.encode(value)) + [0x0A])
    }
}
