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

/// TIME as `--at` takes it (restore, get): an RFC 3339 time (`2026-11-29T13:55:01Z`,
/// `…+01:00`; without a fraction it is the end of that second, so a time a log shows
/// includes the version that began in it; with one, the end of that microsecond), a date (`2026-11-29`, its start in UTC),
/// `@SECONDS` since 1970, or a duration as `--retry-for` takes it (`90m`, `2h`, `3d`):
/// that long ago.
enum CloudTime {
    static let help = "an RFC 3339 time (2026-11-29T13:55:01Z), a date (2026-11-29), @SECONDS since 1970, or a duration ago (90m, 2d)"

    static func parse(_ text: String, now: Date = Date()) -> Date? {
        if text.hasPrefix("@") {
            guard let seconds = Double(text.dropFirst()), seconds.isFinite, seconds >= 0 else { return nil }
            return Date(timeIntervalSince1970: seconds)
        }
        if let day = RFC3339Day.start(text) { return day }
        if let time = PreciseTime.date(text) {
            // Without a fraction, the end of that second; with one (as a log's --json
            // writes it, to the microsecond), the end of that microsecond.
            let fraction = text.utf8.count > 19 && [".", ","].contains(Array(text)[19])
            return time.addingTimeInterval(fraction ? 0.000_000_9 : 0.999_999)
        }
        if let first = text.first, first.isASCII, first.isNumber, let seconds = try? DurationText.seconds(text) {
            return now.addingTimeInterval(-Double(seconds))
        }
        return nil
    }

    static func required(_ text: String) throws -> Date {
        guard let time = parse(text) else { throw ToolError.usage("\"\(text)\" is not a time", hints: ["give \(help)"]) }
        return time
    }
}

/// `YYYY-MM-DD` alone: the start of that day in UTC (as `vfs-policy check --at` reads it).
enum RFC3339Day {
    static func start(_ text: String) -> Date? {
        guard text.utf8.count == 10, text.utf8.allSatisfy({ $0 == 0x2D || (0x30...0x39).contains($0) }) else { return nil }
        return try? PolicyDates.parseMoment(text)
    }
}

extension CloudTool {
    struct Log: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            commandName: "log", abstract: "List the versions of a cloud file, newest first.",
            discussion: """
            Every put makes a version, and a replaced or removed file keeps its earlier ones \
            (the relay holds their ciphertext until its retention lets them go). The log of a \
            path lists the versions of the file there now (from before a move too) and of \
            what was at that path before: a line per version, its id, from when and until \
            when it was there (- while it is the current one), the device that put it, its \
            size on the relay and its path then. A move lists the version again under its \
            new path. "vfs-cloud get PATH --version-id ID" or "--at TIME" downloads one; \
            "vfs-cloud restore PATH --at TIME" puts it back.

            Exit status: 0 listed; 64 usage; 66 no such file, now or before; 69 relay \
            unreachable; 75 temporary; 77 a revoked token or a wrong passcode.

            Examples:
              vfs-cloud log /docs/notes.txt
              vfs-cloud log --json /docs/notes.txt | jq -r '.[1].version'
            """)
        @Flag(help: "Print a JSON array of {id, version, path, size, sha256, device, since, until}.") var json = false
        @OptionGroup var retry: RetryOptions
        @OptionGroup var options: CloudOptions
        @Argument(help: ArgumentHelp("The cloud file.", valueName: "path")) var path: String

        func run() async throws {
            let path = try CloudPath.normal(self.path)
            guard path != "/" else { throw ToolError.usage("the root is a folder: name a file") }
            let (versions, names) = try await options.run(retry: retry) { _, client in
                let versions = try await client.cloudLog(path)
                return (versions, json ? [:] : try await Self.deviceNames(client))
            }
            if json { return try JSONOutput.print(versions) }
            Listing.print(["VERSION", "FROM", "UNTIL", "DEVICE", "SIZE", "PATH"], versions.map { version in
                [version.version, DateText.iso8601(version.since), version.until.map(DateText.iso8601) ?? "-",
                 Self.device(version.device, names), version.size.map { String($0) } ?? "-", DisplayText.printable(version.path)]
            })
        }

        /// The user's devices by id, for the listings (a removed device is shown by its id).
        static func deviceNames(_ client: RelayClient) async throws -> [String: String] {
            Dictionary(try await client.devices().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        }

        static func device(_ id: String, _ names: [String: String]) -> String {
            id.isEmpty ? "-" : DisplayText.printable(names[id] ?? id)
        }
    }

    struct Trash: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            commandName: "trash", abstract: "List the cloud files that were removed, newest removal first.",
            discussion: """
            A removed file keeps its versions: a line per removed file, the time it was \
            removed, its last version, the device that put that version, its size on the \
            relay and the path it had. "vfs-cloud restore PATH --at TIME" (a time before the \
            removal) puts it back; "vfs-cloud log PATH" lists its versions.

            Exit status: 0 listed (none is no error); 64 usage; 69 relay unreachable; 75 \
            temporary; 77 a revoked token or a wrong passcode.

            Examples:
              vfs-cloud trash
              vfs-cloud trash --json | jq -r '.[].path'
            """)
        @Flag(help: "Print a JSON array of {id, version, path, size, sha256, device, since, until}.") var json = false
        @OptionGroup var retry: RetryOptions
        @OptionGroup var options: CloudOptions

        func run() async throws {
            let (removed, names) = try await options.run(retry: retry) { _, client in
                (try await client.cloudTrash(), json ? [:] : try await Log.deviceNames(client))
            }
            if json { return try JSONOutput.print(removed) }
            Listing.print(["REMOVED", "VERSION", "DEVICE", "SIZE", "PATH"], removed.map { version in
                [version.until.map(DateText.iso8601) ?? "-", version.version, Log.device(version.device, names),
                 version.size.map { String($0) } ?? "-", DisplayText.printable(version.path)]
            })
        }
    }

    struct Restore: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            commandName: "restore", abstract: "Put a cloud file (a folder's tree with -r) back as it was at a time.",
            discussion: """
            The relay puts back the version each file had at TIME from the versions it keeps \
            (nothing is uploaded again): a file removed since comes back, one that changed \
            gets its version of then (as a new version: the one it replaces is kept). With -r \
            the folder's whole tree comes back as it was, also when files were moved since: a \
            file under it that was not there then is removed (its versions are kept, it is \
            in the trash), and so is a folder that removal leaves empty. Folders have no \
            versions: an empty folder of then is not made again.

            TIME is \(CloudTime.help). Each change is a line: "restored PATH" or "removed \
            PATH"; nothing to change prints nothing.

            Exit status: 0 restored (nothing to change is no error); 64 usage (a bad TIME, \
            a folder without -r); 66 nothing was at that path at that time; 69 relay \
            unreachable; 73 a file now where a folder was then (or the other way), or the \
            cap on files and folders; 75 temporary; 77 a revoked token or a wrong passcode.

            Examples:
              vfs-cloud restore /docs/notes.txt --at 2026-11-29T09:00:00Z
              vfs-cloud restore -r /docs --at 2h
            """)
        @Option(help: ArgumentHelp("The time to go back to.", valueName: "time")) var at: String
        @Flag(name: .shortAndLong, help: "Restore a folder's whole tree.") var recursive = false
        @Flag(help: "Print JSON: {restored: [entries], removed: [paths]}.") var json = false
        @OptionGroup var retry: RetryOptions
        @OptionGroup var options: CloudOptions
        @Argument(help: ArgumentHelp("The cloud file (or folder, with -r).", valueName: "path")) var path: String

        func run() async throws {
            let path = try CloudPath.normal(self.path)
            let time = try CloudTime.required(at)
            guard recursive || path != "/" else { throw ToolError.usage("the root is a folder: use -r to restore its tree") }
            let done = try await options.run(retry: retry) { session, client in
                if !recursive, try await client.cloudLookup(path)?.kind == .folder {
                    throw ToolError.usage("\"\(DisplayText.printable(path))\" is a folder: use -r to restore its tree")
                }
                let done = try await client.cloudRestore(path, CloudRestore(at: time, recursive: recursive))
                // As after rm: a removed path is based on nothing. (A restored one keeps the
                // base this device got: a put of it replaces the restored version only when
                // that is the version the device got.)
                let bases = CloudBases(home: session.home)
                for removed in done.removed { bases.forget(removed) }
                return done
            }
            if json { return try JSONOutput.print(done) }
            let lines = done.removed.map { "removed \(DisplayText.printable($0))\n" }
                + done.restored.map { "restored \(DisplayText.printable($0.path))\n" }
            print(lines.joined(), terminator: "")
        }
    }
}

extension CloudTool.Get {
    /// The version `--at` or `--version-id` names of the file at `path`, from its log.
    static func pick(_ log: [CloudVersion], path: String, at: Date?, version: String?) throws -> CloudVersion {
        let found = log.first { row in
            if let version { return row.version == version && row.size != nil }
            return row.path == path && row.size != nil && at.map(row.held) == true
        }
        guard let found else {
            let which = version.map { "no version \"\($0)\" of" } ?? "no version kept of"
            throw CloudError.notFound("\(which) \"\(DisplayText.printable(path))\"" + (at == nil ? "" : " at that time"))
        }
        return found
    }
}
