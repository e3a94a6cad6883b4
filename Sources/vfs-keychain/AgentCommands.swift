import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSCore

extension Keychain {
    struct Unlock: ParsableCommand, CheckedCommand {
        static let configuration = CommandConfiguration(
            abstract: "Start the agent: keep the keychain unlocked for this user until lock or the timeout.",
            discussion: KeychainHelp.unlock)

        @Option(name: .long, help: ArgumentHelp("How long to stay unlocked: 90s, 30m, 12h, 7d, with a unit.", valueName: "duration"))
        var timeout: String = "15m"

        @OptionGroup var passcodeOptions: PasscodeOptions

        func check() throws {
            let seconds = try DurationText.seconds(timeout)
            guard seconds > 0, seconds <= 31 * 86400 else { throw ToolError.usage("--timeout must be from 1s to 31d") }
        }

        func run() throws {
            let seconds = try DurationText.seconds(timeout)
            let session = try KeychainSession.open(passcode: passcodeOptions.source)
            let folder = VFSPaths.current.agentFolderChoice
            if let passedOver = folder.passedOver {
                Diagnostics.warn("\"\(passedOver)\" is not a private folder of this user (another user may have made it): the agent listens in \"\(folder.path)\" instead")
            }
            // A keychain made before folders were marked gets its mark here.
            if let folder = VFSPaths.current.ownKeychainFolder { BackupExclusion.markFolder(folder) }
            let client = AgentClient(keychainPath: session.store.path)
            client.lock()
            _ = try KeychainAgent.start(keychainPath: session.store.path, keychainID: session.sealed.header.id,
                                        masterKey: session.masterKey, arguments: [AgentServe.configuration.commandName!, "--timeout-seconds", String(seconds)])
            Diagnostics.info("unlocked \"\(session.store.path)\" for \(DurationText.format(seconds: seconds))")
        }
    }

    struct Lock: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop the agent: the key is wiped from memory. Exit 0 even if it was not running.")

        func run() throws {
            let path = try VFSPaths.current.keychain
            let stopped = AgentClient(keychainPath: path).lock()
            Diagnostics.info(stopped ? "locked \"\(path)\"" : "\"\(path)\" was not unlocked")
        }
    }

    struct StatusReport: Encodable {
        let keychain: String
        let unlocked: Bool
        let secondsLeft: Int?
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Say whether the keychain is unlocked, and for how long: exit 0 unlocked, 1 locked, 66 no keychain.")

        @Flag(name: .long, help: "Write JSON: {keychain, unlocked, secondsLeft}.") var json = false

        func run() throws {
            let path = try VFSPaths.current.keychain
            // No keychain is not a locked one: 66 and how to make one.
            guard KeychainStore(path: path).exists else { throw KeychainError.notFound(path: path) }
            var left: Int?
            if let status = AgentClient(keychainPath: path).status() {
                // An agent for a keychain that was since replaced does not unlock this one.
                let current = try? KeychainStore(path: path).read()
                if current == nil || current?.header.id == status.keychainID { left = status.secondsLeft }
            }
            if json {
                try JSONOutput.print(StatusReport(keychain: path, unlocked: left != nil, secondsLeft: left))
            } else {
                let text = left.map { "unlocked, \(DurationText.format(seconds: $0)) left: \(path)\n" } ?? "locked: \(path)\n"
                try StandardOutput.write(Array(text.utf8))
            }
            if left == nil { throw ExitCode(ExitStatus.no.rawValue) }
        }
    }

    /// The agent process itself, started by unlock (not for people).
    struct AgentServe: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "agent-serve",
            abstract: "Internal: the agent process that unlock starts (the key comes on stdin); not run by hand.",
            shouldDisplay: false)

        @Option(name: .customLong("timeout-seconds"), help: "Seconds until the agent wipes the key and exits.") var timeoutSeconds: Int
        @Argument(help: "The Unix socket to listen on.") var socketPath: String

        func run() throws {
            KeychainAgent.serve(socketPath: socketPath, timeout: timeoutSeconds)
        }
    }
}
