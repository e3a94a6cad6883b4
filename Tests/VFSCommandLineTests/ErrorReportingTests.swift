import ArgumentParser
import Glibc
import Testing
import VFSCommandLine
import VFSRelayClient
import VFSRelayCommandLine
import VFSRelayProtocol
@testable import VFSCore

/// The mapping of VFSCore's domain errors to exit statuses and hints (ErrorReporting.swift).
@Suite("error reporting")
struct ErrorReportingTests {
    struct Tool: VFSCommand {
        static let configuration = CommandConfiguration(commandName: "vfs-test")
    }

    func report(_ error: Error) -> CommandFailure { CommandFailure(error, command: Tool.self) }

    @Test("each domain error gets its documented exit status", arguments: [
        (AgeError.noMatch("no identity matched"), 77),
        (AgeError.invalidKey("bad key"), 64),
        (AgeError.headerMAC, 65),
        (AgeError.workFactorTooLarge(25, maximum: 22), 65),
        (BundleError.archive("x", writing: true), 74),
        (BundleError.archive("x", writing: false), 65),
        (BundleError.exists(path: "a", folder: false), 73),
        (BundleError.changedWhileWrapping(path: "a"), 75),
        (BundleError.badInput("x"), 64),
        (KeychainError.notFound(path: "k"), 66),
        (KeychainError.exists(path: "k"), 73),
        (KeychainError.corrupt(path: "k", why: "x", backup: nil), 65),
        (KeychainError.wrongPasscode, 77),
        (KeychainStoreError.replaced(path: "k"), 75),
        (AgentError.unsafeFolder("f"), 77),
        (AgentError.pathTooLong("f"), 73),
        (PolicyError.corrupt(file: "p.json", line: 3, column: nil, reason: "x"), 65),
        (PolicyError.noSuchItem("x"), 66),
        (PolicyError.alreadyApproved(app: "evince", id: "ab12"), 73),
        (AgeError.encryptedSSHKey("\"id\""), 65),
        (PolicyError.invalidGroup("a b"), 64),
        (PolicyError.importConflict(source: "y", reason: "r"), 65),
        (IOError("open", path: "f", code: ENOENT), 66),
        (IOError("open", path: "f", code: EACCES), 77),
        (IOError("write", path: "f", code: ENOSPC), 74),
        (DurationText.ParseError(text: "soon"), 64),
        (DeviceChainError.malformed(index: 0, reason: "truncated statement"), 65),
        (DeviceChainError.badSignature(index: 1), 77),
        (DeviceChainError.signerNotLive(index: 1, signer: "ab"), 77),
        (DeviceChainError.rolledBack(pinned: 3, served: 2), 77),
        (DeviceChainError.forked(sequence: 3), 77),
        (DeviceChainError.rootChanged(user: "bob@example.com"), 77),
        (DeviceChainError.unanchoredCheckpoint(sequence: 960, pinned: 12), 77),
        (DeviceChainError.checkpointMismatch(index: 960, reason: "restates another root"), 77),
        (BundleSignatureError.malformed("not a signature entry"), 65),
        (BundleSignatureError.unknownDevice(user: "bob@example.com", device: "ab"), 77),
        (BundleSignatureError.badSignature(user: "bob@example.com", device: "laptop"), 77),
        // The relay client workflows' errors (VFSRelayCommandLine).
        (TransferError.noLiveDevice, 66),
        (TransferError.cloudFileExists("/a"), 73),
        (TransferError.noPeopleGroup("eng"), 66),
        (TransferError.notVerified(names: ["bob@example.com"]), 77),
        (TransferError.notSigned(transfer: "t1"), 77),
        (TransferError.unverifiedSender(reason: DeviceChainError.forked(sequence: 3)), 77),
        (TransferError.unverifiedSender(reason: BundleSignatureError.malformed("x")), 65),
        (TransferError.kept(RelayClientError.unreachable(url: "https://r", reason: "refused")), 69),
        (TransferError.resumeIncomplete(dropped: 2, kept: 0, cause: nil), 1),
        (TransferError.resumeIncomplete(dropped: 1, kept: 1, cause: RelayClientError.unreachable(url: "https://r", reason: "refused")), 69),
        (TransferError.interruptedBeforeSealed(spool: "/s"), 1),
        (TransferError.uploadLost(spool: "/s", base: 10), 1),
        (TransferError.withdrawn(transfer: "t1"), 1),
        (TransferError.noPendingPush(spool: "/s"), 66),
        (TransferError.cloudCopyNotKept(transfer: "t1", cloud: "/c", RelayClientError.rejected(status: 404, code: "not_found", message: "no such folder")), 66),
        (TransferError.loggedOutReenrolled(name: "a", device: "d1", newName: "b", newDevice: "d2"), 77),
        (CloudError.badPath("/a/..", name: ".."), 64),
        (CloudError.notFound("no such file"), 66),
        (CloudError.conflict("exists"), 73),
        (CloudError.overQuota("over quota"), 73),
        (CloudError.changed("changed"), 75),
        (CloudError.isAFile("/a"), 73),
        (CloudError.cloudFileExists("/a"), 73),
        (CloudError.localFileExists("a"), 73),
        (CloudError.cannotCreateFolder("a"), 73),
        (CloudError.noSuchFile("a"), 66),
        (CloudError.cannotOpen("/a"), 66),
    ] as [(any Error & Sendable, Int32)])
    func statuses(error: any Error & Sendable, status: Int32) {
        let failure = report(error)
        #expect(failure.status == status, "\(error)")
        #expect(failure.standardError.hasPrefix("vfs-test: error: \(error)\n"))
        #expect(failure.standardOutput.isEmpty)
    }

    @Test("a damaged keychain's hint names its backup, quoted for the shell")
    func keychainBackupHint() {
        let failure = report(KeychainError.corrupt(path: "/k/it's", why: "bad tag", backup: "/k/it's.bak"))
        #expect(failure.status == 65)
        #expect(failure.standardError.contains("vfs-test: hint: the previous good copy is \"/k/it's.bak\": check it with VFS_KEYCHAIN='/k/it'\\''s.bak' vfs-keychain list, then restore it with cp -p '/k/it'\\''s.bak' '/k/it'\\''s' && rm -f '/k/it'\\''s.epoch'\n"))
    }

    @Test("a rolled-back keychain and an oversized entry: their statuses and hints")
    func rollbackAndSizeHints() {
        let rolledBack = report(KeychainError.rolledBack(path: "/k/kc", epoch: 3, seen: 5, record: "/k/kc.epoch"))
        #expect(rolledBack.status == 65)
        #expect(rolledBack.standardError == "vfs-test: error: the keychain \"/k/kc\" is an older copy (save 3) than the one last seen here (save 5): it was rolled back\n"
                + "vfs-test: hint: nothing was read or changed; if you restored an older copy on purpose, accept it with rm /k/kc.epoch\n")
        let large = report(KeychainError.entryTooLarge(what: "label", count: 70000, limit: 65535))
        #expect(large.status == 64 && large.standardError.hasPrefix("vfs-test: error: a label of 70000 bytes is more than the keychain holds (65535)\n"))
    }

    @Test("hints that need the error's data get it")
    func dataInHints() {
        #expect(report(AgeError.workFactorTooLarge(24, maximum: 22)).standardError.contains("--max-work-factor 24 (scrypt needs 16385 MiB for it)"))
        #expect(report(PolicyError.alreadyApproved(app: "evince", id: "ab12")).standardError.hasSuffix("vfs-test: hint: change it with vfs-policy update evince …\n"))
        #expect(report(PolicyDates.ParseError(text: "x", what: "expiry")).standardError.contains("a duration from now (90d)"))
        #expect(!report(PolicyDates.ParseError(text: "x", what: "time")).standardError.contains("90d"))
    }

    @Test("a device chain that does not extend the pinned head says nothing was changed")
    func chainHints() {
        let forked = report(DeviceChainError.forked(sequence: 3))
        #expect(forked.standardError == "vfs-test: error: device chain: the relay served a chain that differs from the one this device verified at statement 3\n"
                + "vfs-test: hint: nothing was changed: the relay, or someone between it and you, served an older or different device list than this device verified before\n")
        #expect(report(DeviceChainError.rootChanged(user: "bob@example.com")).standardError.contains("hint: nothing was done: bob@example.com's device list has another root than at first contact"))
    }

    @Test("control characters in a message are escaped, so it stays one line")
    func escapes() {
        let failure = report(BundleError.digestMismatch(path: "a\u{1b}[2J\nb"))
        #expect(failure.standardError == "vfs-test: error: \"a\\x1b[2J\\nb\" does not match its SHA-256 in the manifest\n")
    }

    @Test("an error that is not reportable is an ArgumentParser failure: its message and exit 1")
    func foreignError() {
        struct Odd: Error, CustomStringConvertible { var description: String { "odd" } }
        let failure = report(Odd())
        #expect(failure.status == 1)
        #expect(failure.standardError == "vfs-test: error: odd\n")
    }

    @Test("shell quoting leaves safe words alone")
    func shellQuoting() {
        #expect(DisplayText.shellQuoted("/home/a/k.bak") == "/home/a/k.bak")
        #expect(DisplayText.shellQuoted("") == "''")
        #expect(DisplayText.shellQuoted("a b") == "'a b'")
        #expect(DisplayText.shellQuoted("it's") == "'it'\\''s'")
    }
}

@Suite("relay refusals as exit statuses")
struct RelayRefusalStatusTests {
    @Test("507 too_many_entries (the cloud's cap) is 73 with a hint to remove some; 507 insufficient_storage (a full disk) stays 75")
    func entryCap() {
        let cap = RelayClientError.rejected(status: 507, code: "too_many_entries",
                                            message: "you hold 100000 cloud files and folders, the most a user may; delete some to make room")
        #expect(cap.exitStatus == .cannotCreate)
        #expect(cap.hints.first?.hasPrefix("vfs-cloud rm removes what is no longer needed") == true)
        let full = RelayClientError.rejected(status: 507, code: "insufficient_storage", message: "the relay's disk is nearly full")
        #expect(full.exitStatus == .temporaryFailure)
        #expect(full.hints.first?.hasPrefix("the relay's disk is nearly full") == true)
    }
}
