import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSCore

extension Keychain {
    /// Internal, for the test suite only (refused unless VFS_TEST_HOOKS=1): opens the
    /// keychain, holds one secret in memory and then fails a checked conversion the
    /// way an oversized label once did inside the body encoder, so the suite can check
    /// that such a crash prints nothing of the secret (see ProcessHardening).
    struct CrashProbe: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "debug-crash",
            abstract: "Internal: crash on purpose while holding a secret (test suite only).",
            shouldDisplay: false)

        @Argument var service: String
        @Argument var account: String
        @OptionGroup var passcodeOptions: PasscodeOptions

        func run() throws {
            guard ProcessInfo.processInfo.environment["VFS_TEST_HOOKS"] == "1" else {
                throw ToolError.usage("debug-crash is for the test suite only")
            }
            let (_, sealed, key) = try KeychainSession.unlock(passcode: passcodeOptions.source)
            guard let secret = try sealed.secret(masterKey: key, kind: .secret, service: service, account: account) else {
                throw ExitCode(1)
            }
            secret.withUnsafeBytes { bytes in
                // Not a constant: the trap happens at run time, with the secret in registers nearby.
                let length = bytes.count + Int(bytes[0]) + Int(UInt16.max)
                let narrowed = UInt16(length)
                _ = try? writeAll(fd: 1, [UInt8(truncatingIfNeeded: narrowed)])
            }
        }
    }
}
