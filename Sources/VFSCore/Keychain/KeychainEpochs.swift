#if canImport(Glibc)
import Glibc
#endif

/// Rollback detection: the highest epoch this machine saw for a keychain, kept in a
/// small file beside it, `PATH.epoch` (0600: `vfs-keychain-epoch 1`, then the keychain
/// id in hex and the epoch). Every save records its epoch; a read that authenticates a
/// newer epoch of the same keychain (a copy synced from another machine) records it too.
/// A file whose authenticated epoch is lower than the one recorded is refused
/// (`KeychainError.rolledBack`): an older copy put in its place (a backup, an old
/// synced copy) would bring back removed secrets and old key slots.
///
/// Beside the keychain rather than in the agent folder, because the agent folder is
/// usually on a tmpfs that a reboot empties. It does not stop someone who can write the
/// keychain's folder (they can remove this file too); it stops an older file from
/// being taken for today's without a word. Restoring an older copy on purpose: remove
/// `PATH.epoch` as well.
struct KeychainEpochs: Sendable {
    let path: String

    init(keychainPath: String) { path = keychainPath + ".epoch" }

    static let magic = "vfs-keychain-epoch 1"

    struct Record: Equatable, Sendable {
        let id: [UInt8]
        let epoch: UInt64
    }

    /// The recorded keychain id and epoch; nil when there is no readable record.
    func recorded() -> Record? {
        guard let bytes = try? FileDescriptorSource(path: path).readAll(), bytes.count < 4096 else { return nil }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        guard lines.count == 2, lines[0] == Self.magic else { return nil }
        let fields = lines[1].split(separator: " ")
        guard fields.count == 2, let id = Self.bytes(hex: fields[0]), id.count == KeychainFormat.idCount,
              let epoch = UInt64(fields[1]) else { return nil }
        return Record(id: id, epoch: epoch)
    }

    /// Refuses an authenticated epoch lower than the record (`recorded`, read with the
    /// file under its lock; else read now) for the same keychain. A higher one (a copy
    /// synced from elsewhere) is recorded, when the keychain's lock is free at once and
    /// the record is still lower (best effort: a read-only folder only loses the record).
    func check(id: [UInt8], epoch: UInt64, recorded snapshot: Record?? = nil) throws {
        let keychain = String(path.dropLast(".epoch".count))
        guard let known = snapshot ?? recorded(), known.id == id else { return }
        if epoch < known.epoch {
            throw KeychainError.rolledBack(path: keychain, epoch: epoch, seen: known.epoch, record: path)
        }
        if epoch > known.epoch {
            if let lock = try? FileLock(for: keychain, exclusive: true, wait: false) {
                defer { lock.unlock() }
                if let now = recorded(), now.id == id, now.epoch < epoch { try? record(id: id, epoch: epoch) }
            }
        }
    }

    /// Records `epoch` for the keychain `id` (after a save).
    func record(id: [UInt8], epoch: UInt64) throws {
        try AtomicOutputFile.write(Array("\(Self.magic)\n\(id.hexString) \(epoch)\n".utf8), to: path, mode: 0o600)
    }

    static func bytes(hex: Substring) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x61...0x66: return c - 0x61 + 10
            default: return nil
            }
        }
        var out: [UInt8] = []
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(digits[i]), let low = value(digits[i + 1]) else { return nil }
            out.append(high << 4 | low)
        }
        return out
    }
}
