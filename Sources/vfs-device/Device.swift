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

@main
struct DeviceTool: AsyncVFSCommand {
    static let configuration = CommandConfiguration(
        commandName: "vfs-device",
        abstract: "Enrol this machine with a relay, manage your devices and device groups, pin their keys.",
        discussion: """
        A device is a machine enrolled with a vfs relay: it has an age identity (its \
        recipient is what senders encrypt to) and a relay token. Both are kept in the \
        vfs-keychain (the identity "vfs-device", the secret vfs-relay/token), unlocked \
        by its agent or with the passcode from --passcode-file, --passcode-fd, \
        VFS_PASSCODE or the terminal; --token-file and --identity-file keep them in \
        files instead. The relay URL, the device id and name are in \
        $VFS_HOME/relay.json; VFS_RELAY overrides the URL.

        Key pinning: the first time this machine sees another device's recipient it \
        records it in $VFS_HOME/pins.json (with the device chains' roots and heads); \
        vfs-push refuses a device whose recipient changed until "vfs-device trust \
        NAME" accepts the new one.

        When every device is lost: "vfs-device recovery-key", made beforehand on an \
        approved device and written on paper, lets "vfs-device recover" approve a new \
        machine (with an enrolment code from the operator) and read every cloud file.

        Examples:
          vfs-device enroll http://127.0.0.1:8787 K7QM-2WXD-PA9F-H3TN --name laptop
          vfs-device list --json | jq '.[].name'
          vfs-device group create home laptop phone tablet
          vfs-device approve phone --fingerprint ABCDE-FGHIJ-KLMNO-PQRST-UVWXY
          vfs-device revoke phone
          vfs-device recovery-key
          vfs-device recover https://relay.example K7QM-2WXD-PA9F-H3TN --name laptop
          vfs-device status || echo "relay down or device revoked"

        Exit status: 0 success; 1 a revoke not confirmed; 64 usage (also a name or id \
        prefix that fits two devices); 65 a bad answer or a corrupt file; 66 no such \
        device, group or user, or not enrolled; 69 relay unreachable; 73 enrolled already \
        when enroll is not given --force, a name or group that exists; 75 temporary (429, \
        503): try again; 77 this device's token was refused (revoked), a wrong keychain \
        passcode; admin-link for a user who is not an administrator; approve with a \
        fingerprint that differs, or from a device not approved itself; verify --confirm \
        with a code that differs; a device chain that does not verify or does not extend \
        the one verified last, or another user's whose root is not the one pinned; \
        your own device chain, which this device has never seen, not taken with \
        --accept-chain or a yes on a terminal (enroll and list), or not holding the \
        recovery key given (recover). recover: 65 a mistyped recovery key (nothing \
        sent).
        """,
        version: vfsVersion,
        subcommands: [Enroll.self, RecoveryKeyCommand.self, Recover.self, InviteCommand.self, List.self, Approve.self, Rename.self, Revoke.self, GroupCommand.self, Status.self, Trust.self, FingerprintCommand.self, Verify.self,
                      Users.self, AdminLink.self])
}

/// Options every subcommand that talks to the relay as this device shares: the credential
/// options themselves, not a group around them. (ArgumentParser's debug build checks every
/// level of nested option groups at each parse, which cost the tests a tenth of a second of
/// CPU per run of vfs-device.)
typealias DeviceOptions = RelayCredentialOptions

extension RelayCredentialOptions {
    var place: CredentialPlace {
        get throws {
            let files = try credentialFiles
            return CredentialPlace(tokenFile: files.token, identityFile: files.identity, keychainPath: try keychainPath, passcode: passcodeReader)
        }
    }

    func session() throws -> RelaySession {
        try RelaySession.open(home: try VFSPaths.current.home, place: try place, timeout: try relayTimeout)
    }
}
