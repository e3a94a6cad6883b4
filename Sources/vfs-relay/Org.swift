import ArgumentParser
import Foundation
import VFSCommandLine
import VFSCore

struct Org: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage organisations.", subcommands: [Add.self, List.self, Settings.self])

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
    struct Settings: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set an organisation's settings: its minimum retention of transfers.",
            discussion: """
            --min-retention DURATION (30d, 12h; a unit is required; up to 3650d): every \
            transfer a device of the organisation makes from then on is kept until it is \
            delivered or DURATION has passed. Until then no device's token may cancel it (the \
            relay answers 403 retained; vfs-push cancel exits 77), not even its sender's, and \
            it does not expire before: a server that is broken into cannot take back what it \
            sent. `vfs-relay transfers rm ID` removes one all the same (an audit entry \
            transfer.remove). --min-retention none ends it for transfers made from then on. \
            Each change is an audit entry org.min-retention.

            Example:
              vfs-relay org set acme --min-retention 30d
            """)

        @OptionGroup var data: DataOptions
        @Argument(help: "The organisation's name.") var name: String
        @Option(help: ArgumentHelp("Keep every transfer until delivered or this long (30d), or none.", valueName: "duration"))
        var minRetention: String?

        /// The longest retention: ten years.
        static let longest = 3650 * 86400

        func run() async throws {
            guard let minRetention else {
                throw ToolError.usage("nothing to set", hints: ["give --min-retention DURATION (30d) or --min-retention none"])
            }
            var seconds: Int64?
            if minRetention != "none" {
                let parsed: Int
                do { parsed = try DurationText.seconds(minRetention) } catch let error as DurationText.ParseError {
                    throw ToolError.usage(error.description, hints: ["give a duration such as 30d or 12h, or none"])
                }
                guard parsed > 0, parsed <= Self.longest else {
                    throw ToolError.usage("retention \"\(minRetention)\" is out of range", hints: ["give 1s to 3650d, or none"])
                }
                seconds = Int64(parsed)
            }
            let (store, _) = try await data.open()
            let org = try await store.organisationID(name: name)
            try await store.setMinRetention(org: org, seconds: seconds, now: Date())
            data.report(seconds.map { "\(name): transfers are kept until delivered or \(DurationText.format(seconds: Int($0)))" }
                        ?? "\(name): no minimum retention")
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
