import ArgumentParser
import Foundation
import VFSCommandLine
import VFSCore
import VFSRelayServer

struct User: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage users.", subcommands: [Add.self, Remove.self, Disable.self, Enable.self, Set.self, CutChain.self, ResetChain.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a user to an organisation and print a one-time enrolment code for their first device.")

        @OptionGroup var data: DataOptions
        @Argument(help: "The user's email address.") var email: String
        @Option(help: ArgumentHelp("The user's organisation.", valueName: "name")) var org: String
        @Flag(help: "The user administers the organisation (may change its approved apps).") var admin = false
        @Option(help: ArgumentHelp("Minutes the enrolment code stays valid.", valueName: "minutes")) var expires = 15

        func run() async throws {
            try checkEmail(email)
            guard expires > 0 else { throw ToolError.usage("--expires must be at least 1 minute") }
            let (store, _) = try await data.open()
            try await store.createUser(email: email, organisation: org, admin: admin, now: Date())
            try await issueEnrolmentCode(store: store, data: data, email: email, lifetime: TimeInterval(expires * 60))
        }
    }
}

extension User {
    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Disable a user: every device is logged out at once (its token is refused, it gets the logout event; it erases nothing), and no new device, code or sign-in is accepted until enable.")

        @OptionGroup var data: DataOptions
        @Argument(help: "The user's email address.") var email: String

        func run() async throws {
            let (store, blobs) = try await data.open()
            let user = try await findUser(email, in: store)
            let now = Date()
            // Flag first, so no new device can enrol between the logouts and the flag.
            try await store.setUser(email: email, admin: nil, disabled: true, now: now)
            let devices = try await store.deviceIDs(ofUser: email)
            for device in devices {
                for blob in try await store.invalidateDevice(id: device, user: user.id, now: now) { await blobs.deleteBlob(blob) }
            }
            data.report("disabled \(email); \(devices.count) device(s) logged out")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a user and everything of theirs: devices, cloud files, groups, uploads, codes.",
            discussion: """
            Every live device is logged out at once (its token is answered "revoked", its \
            open event stream gets the logout event) and transfers waiting for it expire. \
            The email can be added again as a new user. On a terminal it asks first; \
            elsewhere it needs -y. To keep the user's data, use "vfs-relay user disable".

            Example:
              vfs-relay user remove -y bob@example.org
            """)

        @OptionGroup var data: DataOptions
        @Flag(name: .shortAndLong, help: "Do not ask for confirmation (needed when not on a terminal).") var yes = false
        @Argument(help: "The user's email address.") var email: String

        func run() async throws {
            let (store, blobs) = try await data.open()
            let user = try await findUser(email, in: store)
            if !yes {
                guard Terminal.stdinIsTerminal else {
                    throw ToolError.usage("not removing \(email) without confirmation",
                                          hints: ["add -y to remove the user, their \(user.devices) device(s) and their cloud files"])
                }
                try? writeAll(fd: STDERR_FILENO, Array("vfs-relay: remove \(email), their \(user.devices) device(s) and their cloud files? [y/N] ".utf8))
                let answer = (readLine() ?? "").trimmingUnicodeWhitespace().lowercased()
                guard answer == "y" || answer == "yes" else { throw ToolError("\(email) was not removed", exit: .no) }
            }
            let removed = try await store.removeUser(email: email, now: Date())
            for blob in removed.blobs { await blobs.deleteBlob(blob) }
            for upload in removed.uploads { await blobs.deleteUpload(upload) }
            data.report("removed \(email); \(removed.loggedOut.count) device(s) logged out, \(removed.cloudFiles) cloud file(s) deleted")
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Let a disabled user back in; their devices enrol again with new codes (vfs-relay invite).",
            discussion: """
            The user's device chain is kept. On a machine enrolled before, the user runs \
            "vfs-device enroll --force URL CODE --name NAME" with a new code: the machine's \
            old signing key (kept through the logout) approves the new device and removes \
            the old one, so it works at once. A user with no such machine left asks for \
            "vfs-relay user reset-chain"; their colleagues then confirm the new root.

            Example:
              vfs-relay user enable bob@example.org && vfs-relay invite bob@example.org
            """)

        @OptionGroup var data: DataOptions
        @Argument(help: "The user's email address.") var email: String

        func run() async throws {
            let (store, _) = try await data.open()
            _ = try await findUser(email, in: store)
            try await store.setUser(email: email, admin: nil, disabled: false, now: Date())
            data.report("enabled \(email); enrol their devices with codes from vfs-relay invite \(email) (vfs-device enroll --force on a machine enrolled before)")
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a user's role.")

        @OptionGroup var data: DataOptions
        @Argument(help: "The user's email address.") var email: String
        @Flag(inversion: .prefixedNo, help: "The user administers the organisation (may change its approved apps and sign in to the admin page).")
        var admin: Bool?

        func run() async throws {
            guard let admin else { throw ToolError.usage("say what to change: --admin or --no-admin") }
            let (store, _) = try await data.open()
            _ = try await findUser(email, in: store)
            try await store.setUser(email: email, admin: admin, disabled: nil, now: Date())
            data.report("\(email) is \(admin ? "an administrator" : "a member")")
        }
    }
}

extension User {
    struct CutChain: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cut-chain",
            abstract: "Cut a user's stored device chain back to the statements that verify.",
            discussion: """
            The relay verifies every statement a device appends, as the user's devices do. \
            A chain stored before it did may end in statements that do not verify (a bad \
            signature, a signer not in the chain): the user's devices leave them out and \
            warn. This deletes them, and keeps every statement before the first bad one. \
            Nothing that verifies is ever cut; a chain that verifies whole is left as it is.

            Example:
              vfs-relay user cut-chain alice@example.org
            """)

        @OptionGroup var data: DataOptions
        @Argument(help: "The user's email address.") var email: String

        func run() async throws {
            let (store, _) = try await data.open()
            let user = try await findUser(email, in: store)
            let prefix = RelayChain.verifiedPrefix(try await store.chain(user: user.id), user: email)
            guard prefix.dropped > 0 else {
                data.report("\(email)'s device chain verifies: \(prefix.statements.count) statement(s), nothing cut")
                return
            }
            let dropped = try await store.cutChain(user: user.id, keeping: Int64(prefix.next), head: prefix.headHex,
                                                   actor: "operator", now: Date())
            let reason = prefix.refused.map { " (\($0))" } ?? ""
            data.report("cut \(dropped) statement(s) of \(email)'s device chain that do not verify\(reason); \(prefix.statements.count) kept")
        }
    }
}

extension User {
    struct ResetChain: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-chain",
            abstract: "Delete a user's device chain, so that their next device starts a new one.",
            discussion: """
            For a user with no approved device left (all lost, or disabled and enabled \
            with no machine enrolled before): the next device of theirs to join starts a \
            new chain as its root ("vfs-device enroll --force" on a machine enrolled \
            before forgets the old chain it pinned). Their devices that are still enrolled \
            refuse the empty chain (77) until enrolled again; colleagues see a changed \
            root and confirm it with "vfs-device verify USER --confirm CODE". Nothing else \
            of the user's is touched. On a terminal it asks first; elsewhere it needs -y.

            Example:
              vfs-relay user reset-chain -y bob@example.org
            """)

        @OptionGroup var data: DataOptions
        @Flag(name: .shortAndLong, help: "Do not ask for confirmation (needed when not on a terminal).") var yes = false
        @Argument(help: "The user's email address.") var email: String

        func run() async throws {
            let (store, _) = try await data.open()
            let user = try await findUser(email, in: store)
            let stored = try await store.chain(user: user.id)
            guard !stored.isEmpty else {
                data.report("\(email) has no device chain: nothing reset")
                return
            }
            if !yes {
                guard Terminal.stdinIsTerminal else {
                    throw ToolError.usage("not resetting \(email)'s device chain without confirmation",
                                          hints: ["add -y to delete its \(stored.count) statement(s); their colleagues will confirm a new root"])
                }
                try? writeAll(fd: STDERR_FILENO, Array("vfs-relay: delete \(email)'s device chain (\(stored.count) statement(s))? [y/N] ".utf8))
                let answer = (readLine() ?? "").trimmingUnicodeWhitespace().lowercased()
                guard answer == "y" || answer == "yes" else { throw ToolError("\(email)'s device chain was not reset", exit: .no) }
            }
            let dropped = try await store.cutChain(user: user.id, keeping: 0, head: nil, actor: "operator", now: Date())
            data.report("reset \(email)'s device chain (\(dropped) statement(s) deleted); their next device starts a new one, and their colleagues confirm its root")
        }
    }
}

/// The user with this email, or the store's "no user" error (66, with its hint).
func findUser(_ email: String, in store: any RelayStore) async throws -> UserSummary {
    guard let user = try await store.users().first(where: { $0.email == email }) else {
        throw StoreError.notFound("no user \"\(email)\"")
    }
    return user
}

func checkEmail(_ email: String) throws {
    let parts = email.split(separator: "@", omittingEmptySubsequences: false)
    guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, email.utf8.count <= 254,
          email.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else {
        throw ToolError.usage("invalid email \"\(email)\"", hints: ["write it as name@example.org"])
    }
}
