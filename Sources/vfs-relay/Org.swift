import ArgumentParser
import Foundation
import VFSCommandLine
import VFSCore
import VFSRelayProtocol

struct Org: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage organisations.", subcommands: [Add.self, List.self, Settings.self, Show.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List organisations: name, users.")

        @OptionGroup var data: DataOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let (store, _) = try await data.open()
            let organisations = try await store.organisations()
            if json { return try JSONOutput.print(organisations) }
            for organisation in organisations { print("\(organisation.name)\t\(organisation.users) user(s)") }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an organisation (to a relay made by `vfs-relay init` or `serve`).")

        @OptionGroup var data: DataOptions
        @Argument(help: "The organisation's name (letters, digits, '.', '_', '-').") var name: String

        func run() async throws {
            try checkPlainName(name, what: "organisation name")
            let (store, _) = try await data.open()
            try await store.createOrganisation(name: name, now: Date())
            data.report("added organisation \(name)")
        }
    }
}

extension Org {
    struct Settings: AsyncParsableCommand, CheckedCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set an organisation's settings: its minimum retention of transfers, what share links may do, which cloud versions are kept.",
            discussion: """
            --min-retention DURATION (30d, 12h; a unit is required; up to 3650d): every \
            transfer a device of the organisation makes from then on is kept until it is \
            delivered or DURATION has passed. Until then no device's token may cancel it (the \
            relay answers 403 retained; vfs-push cancel exits 77), not even its sender's, and \
            it does not expire before: a server that is broken into cannot take back what it \
            sent. `vfs-relay transfers rm ID` removes one all the same (an audit entry \
            transfer.remove). --min-retention none ends it for transfers made from then on. \
            Each change is an audit entry org.min-retention.

            Share links and file requests (vfs-share): --links off refuses new ones (403 \
            link_policy; vfs-share exits 77); those made before keep working until they \
            expire or are revoked, which an administrator does on the admin page's Links \
            screen. --link-max-expiry DURATION is the longest a link or request may live (one \
            asked for longer is refused; one that asks nothing gets the shorter of it and the \
            relay's default), --link-max-downloads N the most downloads a link may allow (a \
            link that names none gets N), --link-max-size SIZE (512M, 2G) the largest file a \
            link may hold or a request may take. `none` lifts a limit; options not given \
            keep their value. Each change is an audit entry org.links, and so is each link \
            made (share.create, request.create) and revoked.

            --cloud-versions POLICY: which earlier versions of its users' cloud files (vfs-cloud \
            log, get --version-id, restore, trash) the relay keeps. A version's age counts from \
            when it stopped being the head (replaced, moved or removed: a removed file's last \
            version, in the trash, ages like any other); the head is always kept. staggered \
            (the default): every version younger than a day; of those younger than 30 days, the \
            newest of each UTC day; of those younger than 365 days, the newest of each week \
            (Monday to Sunday, UTC); none older. all: every version, forever. days:N (1 to \
            3650): every version younger than N days. none (or 0): no earlier version and no \
            trash. The relay's sweep (serve's timer, or gc) drops the others, and a blob nothing \
            else holds goes with them; the quota counts the blobs only kept versions hold, so a \
            shorter policy frees room at the next sweep. Each change is an audit entry \
            org.cloud-versions.

            Examples:
              vfs-relay org set acme --min-retention 30d
              vfs-relay org set acme --link-max-expiry 7d --link-max-downloads 10
              vfs-relay org set acme --link-max-size 2G
              vfs-relay org set acme --links off
              vfs-relay org set acme --cloud-versions days:90
            """)

        @OptionGroup var data: DataOptions
        @Argument(help: "The organisation's name.") var name: String
        @Option(help: ArgumentHelp("Keep every transfer until delivered or this long (30d), or none.", valueName: "duration"))
        var minRetention: String?
        @Option(help: ArgumentHelp("Whether users may make share links and file requests.", valueName: "on|off"))
        var links: String?
        @Option(help: ArgumentHelp("The longest a link or file request may live (7d), or none.", valueName: "duration"))
        var linkMaxExpiry: String?
        @Option(help: ArgumentHelp("The most downloads a link may allow, or none.", valueName: "n"))
        var linkMaxDownloads: String?
        @Option(help: ArgumentHelp("The largest file a link may hold or a request take (2G), or none.", valueName: "size"))
        var linkMaxSize: String?
        @Option(help: ArgumentHelp("Which earlier cloud versions to keep: staggered (the default), all, days:N or none.",
                                   valueName: "policy"))
        var cloudVersions: String?

        /// The longest retention: ten years.
        static let longest = 3650 * 86400

        func check() throws {
            guard minRetention != nil || links != nil || linkMaxExpiry != nil || linkMaxDownloads != nil || linkMaxSize != nil
                    || cloudVersions != nil else {
                throw ToolError.usage("nothing to set", hints: ["give --min-retention DURATION, --links on|off, --link-max-expiry, --link-max-downloads, --link-max-size or --cloud-versions POLICY"])
            }
            _ = try versionPolicy()
            if let links, links != "on", links != "off" { throw ToolError.usage("--links takes on or off, not \"\(links)\"") }
            _ = try limits(LinkPolicy.open)
            if let minRetention, minRetention != "none" { _ = try Self.duration(minRetention, option: "--min-retention", longest: Self.longest) }
        }

        /// --cloud-versions as a policy, nil when not given.
        func versionPolicy() throws -> CloudVersionPolicy? {
            guard let cloudVersions else { return nil }
            guard let policy = CloudVersionPolicy(text: cloudVersions) else {
                throw ToolError.usage("--cloud-versions takes staggered, all, days:N or none, not \"\(cloudVersions)\"",
                                      hints: ["N is a whole number of days from 1 to \(CloudVersionPolicy.longestDays), as in days:90"])
            }
            return policy
        }

        /// A duration option's seconds, within 1 s and `longest`.
        static func duration(_ text: String, option: String, longest: Int) throws -> Int64 {
            let parsed: Int
            do { parsed = try DurationText.seconds(text) } catch let error as DurationText.ParseError {
                throw ToolError.usage("\(option): \(error.description)", hints: ["give a duration such as 30d or 12h, or none"])
            }
            guard parsed > 0, parsed <= longest else {
                throw ToolError.usage("\(option) \"\(text)\" is out of range", hints: ["give 1s to \(longest / 86400)d, or none"])
            }
            return Int64(parsed)
        }

        /// `current` with the link options given applied.
        func limits(_ current: LinkPolicy) throws -> LinkPolicy {
            var policy = current
            if let links { policy.allowed = links == "on" }
            if let linkMaxExpiry {
                policy.maxExpiry = linkMaxExpiry == "none" ? nil : try Self.duration(linkMaxExpiry, option: "--link-max-expiry", longest: Self.longest)
            }
            if let linkMaxDownloads {
                if linkMaxDownloads == "none" { policy.maxDownloads = nil } else {
                    guard let count = Int(linkMaxDownloads), count >= 1, count <= 1_000_000 else {
                        throw ToolError.usage("--link-max-downloads takes 1 to 1000000 or none, not \"\(linkMaxDownloads)\"")
                    }
                    policy.maxDownloads = count
                }
            }
            if let linkMaxSize {
                if linkMaxSize == "none" { policy.maxSize = nil } else {
                    let bytes: Int64
                    do { bytes = try SizeText.bytes(linkMaxSize) } catch let error as SizeText.ParseError {
                        throw ToolError.usage("--link-max-size: \(error.description)")
                    }
                    guard bytes >= 1 else { throw ToolError.usage("--link-max-size must be at least 1 byte") }
                    policy.maxSize = bytes
                }
            }
            return policy
        }

        func run() async throws {
            let (store, _) = try await data.open()
            let org = try await store.organisationID(name: name)
            let now = Date()
            if let minRetention {
                let seconds = minRetention == "none" ? nil : try Self.duration(minRetention, option: "--min-retention", longest: Self.longest)
                try await store.setMinRetention(org: org, seconds: seconds, now: now)
                data.report(seconds.map { "\(name): transfers are kept until delivered or \(DurationText.format(seconds: Int($0)))" }
                            ?? "\(name): no minimum retention")
            }
            if links != nil || linkMaxExpiry != nil || linkMaxDownloads != nil || linkMaxSize != nil {
                let policy = try limits(try await store.linkPolicy(org: org))
                try await store.setLinkPolicy(org: org, policy: policy, now: now)
                data.report("\(name): \(Show.describe(policy))")
            }
            if let policy = try versionPolicy() {
                try await store.setCloudVersionPolicy(org: org, policy: policy, now: now)
                data.report("\(name): cloud versions kept: \(policy.summary)")
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show an organisation's settings: its minimum retention, what share links may do, which cloud versions are kept.",
            discussion: """
            With --json: {"name", "minRetention" (seconds or null), "links": {"allowed", \
            "maxExpiry" (seconds), "maxDownloads", "maxSize" (bytes)}, "cloudVersions" \
            (staggered, all, none or days:N)}, a limit null when none is set.
            """)

        @OptionGroup var data: DataOptions
        @Argument(help: "The organisation's name.") var name: String
        @Flag(help: "Print JSON.") var json = false

        struct Report: Encodable {
            var name: String
            var minRetention: Int64?
            var links: LinkPolicy
            var cloudVersions: CloudVersionPolicy
        }

        /// A policy as `org set` and `org show` print it.
        static func describe(_ policy: LinkPolicy) -> String {
            guard policy.allowed else { return "share links and file requests off" }
            let expiry = policy.maxExpiry.map { "expire within \(DurationText.format(seconds: Int($0)))" } ?? "expire within the relay's longest"
            let downloads = policy.maxDownloads.map { "allow \($0) download\($0 == 1 ? "" : "s") at most" } ?? "any number of downloads"
            let size = policy.maxSize.map { "hold \(Listing.size($0, human: true)) at most" } ?? "up to the relay's upload cap"
            return "share links and file requests on: \(expiry), \(downloads), \(size)"
        }

        func run() async throws {
            let (store, _) = try await data.open()
            let org = try await store.organisationID(name: name)
            let report = Report(name: name, minRetention: try await store.minRetention(org: org), links: try await store.linkPolicy(org: org),
                                cloudVersions: try await store.cloudVersionPolicy(org: org))
            if json { return try JSONOutput.print(report) }
            print("minimum retention: " + (report.minRetention.map { DurationText.format(seconds: Int($0)) } ?? "none"))
            print(Self.describe(report.links))
            print("cloud versions kept: " + report.cloudVersions.summary)
        }
    }
}

/// An organisation's or a group's name: 1 to 64 ASCII letters, digits, '.', '_' and '-'.
func checkPlainName(_ name: String, what: String) throws {
    guard !name.isEmpty, name.utf8.count <= 64,
          name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0)) }) else {
        throw ToolError.usage("invalid \(what) \"\(name)\"", hints: ["use letters, digits, '.', '_' and '-' (up to 64)"])
    }
}
