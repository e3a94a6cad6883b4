import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSCore

@main
struct Keychain: VFSCommand {
    static let configuration = CommandConfiguration(
        commandName: "vfs-keychain",
        abstract: "Keep secrets and age identities in one encrypted keychain file, unlocked by a passcode or an agent.",
        discussion: KeychainHelp.overview,
        version: vfsVersion,
        subcommands: [InitKeychain.self, SetSecret.self, GetSecret.self, DeleteSecret.self, ListSecrets.self, ImportSecrets.self,
                      Generate.self, Edit.self, MoveSecret.self, CopySecret.self, FindSecrets.self, ExportSecrets.self,
                      ChangePasscode.self, Recover.self, Questions.self, CrashProbe.self, IdentityGroup.self, EscrowGroup.self, Unlock.self, Lock.self, Status.self, AgentServe.self])

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

    static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }
}
