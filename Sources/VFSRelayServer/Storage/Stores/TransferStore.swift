import Foundation
import VFSRelayProtocol

extension StoreRows {
    /// A finished upload of this user, deleted as it becomes a blob with `refs` references
    /// (the DELETE takes it: two instances cannot both consume one upload).
    static func consumeUpload(_ db: any SQLConnection, id: String, user: Int64, blobID: String, refs: Int,
                              now: Date) async throws -> BlobRef {
        guard let upload = try await db.one("DELETE FROM uploads WHERE id = \(id) AND user_id = \(user) RETURNING *",
                                            as: UploadRow.self)?.record else {
            throw StoreError.notFound("no upload \"\(id)\"")
        }
        guard let length = upload.length, upload.offset == length, let sha256 = upload.sha256 else {
            throw StoreError.conflict("upload \"\(id)\" is not finished (\(upload.offset) of \(upload.length.map { "\($0) bytes" } ?? "a length not yet declared"))")
        }
        try await db.run("""
            INSERT INTO blobs(id, size, sha256, refs, created) VALUES (\(blobID), \(length), \(sha256), \(refs), \(now))
            """)
        return BlobRef(id: blobID, size: length, sha256: sha256)
    }

    /// A transfer's target devices: the devices named (each a live device of the sender's
    /// user), then the members of the groups named, then the devices named of other users
    /// of the sender's organisation, each once, in that order. A user of another
    /// organisation is not found; a disabled one receives nothing new; a device of theirs
    /// revoked on the relay but still in their chain (their client has not removed it yet)
    /// is left out.
    static func targets(_ db: any SQLConnection, devices: [String], groups: [String], users: [UserTarget],
                        sender: DeviceIdentity) async throws -> [String] {
        var targets = [String]()
        for device in devices {
            _ = try await ownedDevice(db, id: device, user: sender.userID)
            if !targets.contains(device) { targets.append(device) }
        }
        for name in groups {
            for member in try await group(db, name: name, user: sender.userID).members where !targets.contains(member) {
                targets.append(member)
            }
        }
        for target in users {
            let shown = Validate.shown(target.user)
            guard let user = try await db.one("SELECT * FROM users WHERE email = \(target.user) AND org_id = \(sender.orgID)",
                                              as: UserRow.self)
            else { throw StoreError.notFound("no such user in your organisation: \"\(shown)\"") }
            guard user.disabled == nil else {
                throw StoreError.notFound("\"\(shown)\" is disabled: they receive nothing new")
            }
            let id = user.id
            var live = 0
            for device in target.devices {
                guard let row = try await db.one("SELECT * FROM devices WHERE id = \(device) AND user_id = \(id)", as: Device.self) else {
                    throw StoreError.notFound("no device \"\(Validate.shown(device))\" of \"\(shown)\"")
                }
                guard row.invalidated == nil else { continue }
                live += 1
                if !targets.contains(device) { targets.append(device) }
            }
            guard live > 0 else { throw StoreError.notFound("\"\(shown)\" has no live device to send to") }
        }
        guard !targets.isEmpty else { throw StoreError.invalid("a transfer needs at least one target device") }
        return targets
    }

    /// The copies still waiting.
    static let waiting: SQL = "('unattended', 'initiated')"

    /// A waiting copy's status as its device sees it: `uploading` while the transfer's
    /// upload runs (a row of transfers joined to its outbox row's `status`).
    static func copyStatus(_ status: String, transfer: TransferRow) -> TransferStatus {
        let status = TransferStatus(rawValue: status) ?? .unattended
        guard status.isLive, transfer.uploadID != nil else { return status }
        return .uploading
    }

    /// The notification channel key (beside device ids) that wakes the readers of an
    /// upload's streaming transfer: its offset moved, it ended, or it went.
    static func uploadChannel(_ upload: String) -> String { "upload:" + upload }
}

/// Transfers and the outbox: one blob sent to several devices of one user, one copy (an
/// outbox row and an event) per target, each copy holding one reference to the blob.
/// Reference counts move under the blob rows' locks (`StoreRows.lockBlobs`, the store's
/// lock order); targets are told after the commit.
extension SQLRelayStore {
    public func createTransfer(id: String, upload: String, blobID: String, sender: DeviceIdentity, devices: [String],
                               groups: [String], users: [UserTarget], expires: Date, now: Date) async throws -> OutboxEntry {
        let sql = self.sql
        let entry = try await sql.database.write { db in
            let targets = try await StoreRows.targets(db, devices: devices, groups: groups, users: users, sender: sender)
            let blob = try await StoreRows.consumeUpload(db, id: upload, user: sender.userID, blobID: blobID,
                                                         refs: targets.count, now: now)
            let until = try await StoreRows.retention(db, org: sender.orgID, now: now)
            let kept = until.map { max(expires, $0) } ?? expires
            try await db.run("""
                INSERT INTO transfers(id, sender_device, sender_user, blob_id, size, sha256, created, expires)
                VALUES (\(id), \(sender.deviceID), \(sender.userID), \(blob.id), \(blob.size), \(blob.sha256), \(now), \(kept))
                """)
            try await StoreRows.retain(db, transfer: id, until: until)
            for target in targets {
                try await db.run("""
                    INSERT INTO outbox(transfer_id, device_id, status, updated) VALUES (\(id), \(target), 'unattended', \(now))
                    """)
            }
            try await StoreRows.insertEvents(db, kind: .transfer, data: StoreRows.json(["transfer": id]), devices: targets, now: now)
            try await StoreRows.audit(db, org: sender.orgID, actor: sender.deviceID, action: "transfer.create", subject: id,
                                      detail: targets.joined(separator: ","), now: now)
            guard let row = try await db.one("SELECT * FROM transfers WHERE id = \(id)", as: TransferRow.self) else {
                throw StoreError.notFound("no transfer \"\(id)\"")
            }
            return try await StoreRows.outboxEntry(db, transfer: row)
        }
        await sql.notify(entry.recipients.map(\.device))
        return entry
    }

    public func inbox(device: String) async throws -> [InboxEntry] {
        try await sql.database.read { db in
            try await db.all("""
                SELECT t.*, o.status, u.email AS sender_email FROM outbox o JOIN transfers t ON t.id = o.transfer_id
                LEFT JOIN users u ON u.id = t.sender_user
                WHERE o.device_id = \(device) AND o.status IN \(StoreRows.waiting) ORDER BY t.created, t.id
                """).map { row in
                let transfer = try row.decode(TransferRow.self), copy = try row.decode(InboxRow.self)
                return InboxEntry(id: transfer.id, sender: transfer.senderDevice, senderUser: copy.senderEmail, size: transfer.size,
                                  sha256: transfer.sha256, created: transfer.created, expires: transfer.expires,
                                  status: StoreRows.copyStatus(copy.status, transfer: transfer), external: transfer.external)
            }
        }
    }

    public func outbox(device: String) async throws -> [OutboxEntry] {
        try await sql.database.read { db in
            var entries = [OutboxEntry]()
            for row in try await db.all("SELECT * FROM transfers WHERE sender_device = \(device) ORDER BY created, id", as: TransferRow.self) {
                entries.append(try await StoreRows.outboxEntry(db, transfer: row))
            }
            return entries
        }
    }

    public func openTransfer(id: String, device: String, now: Date, initiate: Bool) async throws -> TransferContent {
        try await sql.database.write { db in
            guard let row = try await db.one("""
                SELECT t.* FROM outbox o JOIN transfers t ON t.id = o.transfer_id
                WHERE o.transfer_id = \(id) AND o.device_id = \(device) AND o.status IN \(StoreRows.waiting)
                """, as: TransferRow.self) else { throw StoreError.notFound("no transfer \"\(id)\"") }
            if initiate {
                try await db.run("""
                    UPDATE outbox SET status = 'initiated', updated = \(now)
                    WHERE transfer_id = \(id) AND device_id = \(device) AND status = 'unattended'
                    """)
            }
            if let upload = row.uploadID { return .uploading(upload: upload) }
            return .blob(row.blob)
        }
    }

    public func createStreamingTransfer(id: String, upload: String, sender: DeviceIdentity, devices: [String],
                                        groups: [String], users: [UserTarget], expires: Date, now: Date) async throws -> OutboxEntry {
        let sql = self.sql
        let entry = try await sql.database.write { db in
            let targets = try await StoreRows.targets(db, devices: devices, groups: groups, users: users, sender: sender)
            // The upload's row lock: its last PATCH records the end after this commits (and
            // then finds the transfer), or before it (and this refuses: a finished upload is
            // made a transfer the ordinary way).
            guard let record = try await db.one("""
                SELECT * FROM uploads WHERE id = \(upload) AND user_id = \(sender.userID)\(SQL.forUpdate)
                """, as: UploadRow.self)?.record else { throw StoreError.notFound("no upload \"\(upload)\"") }
            guard record.length == nil || record.offset < record.length! || record.sha256 == nil else {
                throw StoreError.conflict("upload \"\(upload)\" is finished")
            }
            guard try await db.one("SELECT id FROM transfers WHERE upload_id = \(upload)") == nil else {
                throw StoreError.conflict("upload \"\(upload)\" already is a transfer")
            }
            let until = try await StoreRows.retention(db, org: sender.orgID, now: now)
            let kept = until.map { max(expires, $0) } ?? expires
            try await db.run("""
                INSERT INTO transfers(id, sender_device, sender_user, blob_id, size, sha256, created, expires, upload_id)
                VALUES (\(id), \(sender.deviceID), \(sender.userID), '', 0, '', \(now), \(kept), \(upload))
                """)
            try await StoreRows.retain(db, transfer: id, until: until)
            for target in targets {
                try await db.run("""
                    INSERT INTO outbox(transfer_id, device_id, status, updated) VALUES (\(id), \(target), 'unattended', \(now))
                    """)
            }
            try await StoreRows.insertEvents(db, kind: .transfer, data: StoreRows.json(["transfer": id]), devices: targets, now: now)
            try await StoreRows.audit(db, org: sender.orgID, actor: sender.deviceID, action: "transfer.create", subject: id,
                                      detail: targets.joined(separator: ",") + " (uploading)", now: now)
            guard let row = try await db.one("SELECT * FROM transfers WHERE id = \(id)", as: TransferRow.self) else {
                throw StoreError.notFound("no transfer \"\(id)\"")
            }
            return try await StoreRows.outboxEntry(db, transfer: row)
        }
        await sql.notify(entry.recipients.map(\.device))
        return entry
    }

    public func undigestedBlobs(device: String) async throws -> [BlobRef] {
        try await sql.database.read { db in
            try await db.all("""
                SELECT DISTINCT b.id, b.size, b.sha256 FROM outbox o JOIN transfers t ON t.id = o.transfer_id
                JOIN blobs b ON b.id = t.blob_id
                WHERE o.device_id = \(device) AND o.status IN \(StoreRows.waiting) AND t.sha256 = '' AND t.upload_id IS NULL
                ORDER BY b.id
                """, as: BlobRow.self).map(\.ref)
        }
    }

    public func undigestedBlob(transfer: String, sender: String) async throws -> BlobRef? {
        try await sql.database.read { db in
            try await db.one("""
                SELECT b.id, b.size, b.sha256 FROM transfers t JOIN blobs b ON b.id = t.blob_id
                WHERE t.id = \(transfer) AND t.sender_device = \(sender) AND b.sha256 = ''
                """, as: BlobRow.self)?.ref
        }
    }

    public func recordDigest(blob: String, sha256: String) async throws {
        try await sql.database.write { db in
            try await db.run("UPDATE blobs SET sha256 = \(sha256) WHERE id = \(blob) AND sha256 = ''")
            try await db.run("UPDATE transfers SET sha256 = \(sha256) WHERE blob_id = \(blob) AND sha256 = ''")
        }
    }

    public func streamingTransfer(upload: String) async throws -> String? {
        try await sql.database.read { db in
            try await db.value("SELECT id FROM transfers WHERE upload_id = \(upload)", as: String.self)
        }
    }

    public func completeStreamingTransfer(upload: String, blobID: String, now: Date) async throws -> StreamingCompletion {
        let sql = self.sql
        let outcome = try await sql.database.write { db -> StreamingCompletion in
            guard let transfer = try await db.one("SELECT * FROM transfers WHERE upload_id = \(upload)\(SQL.forUpdate)",
                                                  as: TransferRow.self) else {
                return .noTransfer
            }
            let id = transfer.id
            let waiting = try await db.value("""
                SELECT COUNT(*) FROM outbox WHERE transfer_id = \(id) AND status IN \(StoreRows.waiting)
                """, as: Int.self) ?? 0
            let blob = try await StoreRows.consumeUpload(db, id: upload, user: transfer.senderUser, blobID: blobID,
                                                         refs: waiting, now: now)
            if waiting == 0 { try await db.run("DELETE FROM blobs WHERE id = \(blobID)") }
            try await db.run("""
                UPDATE transfers SET blob_id = \(waiting == 0 ? "" : blob.id), size = \(blob.size), sha256 = \(blob.sha256),
                upload_id = NULL WHERE id = \(id)
                """)
            return waiting == 0 ? .unwanted : .blob(blob)
        }
        await sql.notify([StoreRows.uploadChannel(upload)])
        return outcome
    }

    public func streamState(transfer id: String, device: String) async throws -> StreamState {
        try await sql.database.read { db in
            guard let row = try await db.one("""
                SELECT t.*, u."offset" AS upload_offset FROM outbox o JOIN transfers t ON t.id = o.transfer_id
                LEFT JOIN uploads u ON u.id = t.upload_id
                WHERE o.transfer_id = \(id) AND o.device_id = \(device) AND o.status IN \(StoreRows.waiting)
                """) else { return .gone }
            let transfer = try row.decode(TransferRow.self)
            guard transfer.uploadID != nil else { return .finished(transfer.blob) }
            // The upload was removed (its sender terminated it, or it expired) before it ended.
            guard let offset = try row.decode(StreamRow.self).uploadOffset else { return .gone }
            return .uploading(offset: offset)
        }
    }

    public func finishTransfer(id: String, device: String, status: TransferStatus, now: Date) async throws -> [String] {
        try await sql.database.write { db in
            // The blob first (the store's lock order), then the copy.
            guard let blob = try await db.value("SELECT blob_id FROM transfers WHERE id = \(id)", as: String.self) else {
                throw StoreError.notFound("no transfer \"\(id)\"")
            }
            try await StoreRows.lockBlobs(db, [blob])
            // The status changes once: a second instance finds no waiting row.
            guard try await db.one("""
                UPDATE outbox SET status = \(status.rawValue), updated = \(now)
                WHERE transfer_id = \(id) AND device_id = \(device) AND status IN \(StoreRows.waiting) RETURNING device_id
                """) != nil else { throw StoreError.notFound("no transfer \"\(id)\"") }
            try await StoreRows.audit(db, org: nil, actor: device, action: "transfer.\(status.rawValue)", subject: id, now: now)
            return try await StoreRows.release(db, blob: blob) ? [blob] : []
        }
    }

    public func expireTransfers(now: Date) async throws -> [String] {
        try await sql.database.write { db in
            let expired: SQL = "SELECT id FROM transfers WHERE expires <= \(now)"
            try await StoreRows.lockBlobs(db, try await db.values("""
                SELECT DISTINCT t.blob_id FROM outbox o JOIN transfers t ON t.id = o.transfer_id
                WHERE o.status IN \(StoreRows.waiting) AND t.expires <= \(now) ORDER BY t.blob_id
                """, as: String.self))
            let blobs = try await db.values("""
                UPDATE outbox SET status = 'expired', updated = \(now)
                WHERE status IN \(StoreRows.waiting) AND transfer_id IN (\(expired))
                RETURNING (SELECT t.blob_id FROM transfers t WHERE t.id = outbox.transfer_id)
                """, as: String.self)
            var released = [String]()
            for blob in blobs.sorted() {
                if try await StoreRows.release(db, blob: blob) { released.append(blob) }
            }
            if !blobs.isEmpty {
                try await StoreRows.audit(db, org: nil, actor: "relay", action: "transfer.expire", subject: "\(blobs.count) copies",
                                          now: now)
            }
            return released
        }
    }

    public func cancelTransfer(id: String, sender: String, now: Date) async throws -> (released: [String], upload: String?) {
        let sql = self.sql
        // A transfer still uploading has no blob yet ('', which no row has): its copies hold
        // no reference, its upload goes with it (its bytes and quota freed at once), and
        // its readers are told it went.
        let (cancelled, upload) = try await sql.database.write { db -> (StoreRows.Cancelled, String?) in
            guard let row = try await db.one("SELECT * FROM transfers WHERE id = \(id) AND sender_device = \(sender)", as: TransferRow.self)
            else { throw StoreError.notFound("no transfer \"\(id)\"") }
            try await StoreRows.lockBlobs(db, [row.blobID])
            // Retained (issue 48, item 4): not while a copy of what was sent whole waits. A
            // transfer still uploading is not whole yet: its sender may still withdraw it.
            if !row.blobID.isEmpty, let until = try await StoreRows.retainedUntil(db, transfer: id, now: now),
               try await db.one("SELECT transfer_id FROM outbox WHERE transfer_id = \(id) AND status IN \(StoreRows.waiting)") != nil {
                throw RetentionRefusal.retained(until: until)
            }
            let cancelled = try await StoreRows.cancelWaiting(db, row, now: now)
            try await StoreRows.audit(db, org: nil, actor: sender, action: "transfer.cancel", subject: id, now: now)
            return (cancelled, row.uploadID)
        }
        if let upload { await sql.notify([StoreRows.uploadChannel(upload)]) }
        return (cancelled.released, cancelled.upload)
    }
}

extension StoreRows {
    /// What cancelling a transfer's waiting copies did.
    struct Cancelled: Sendable {
        /// Blob ids no longer referenced, the upload removed with a transfer still
        /// uploading, and how many copies were waiting.
        var released: [String], upload: String?, copies: Int
    }

    /// A transfer's waiting copies `cancelled`, each giving its blob reference back, and
    /// the upload of one still uploading removed: the sender's cancel and the operator's
    /// removal (`vfs-relay transfers rm`) both. The caller holds the blob's lock.
    static func cancelWaiting(_ db: any SQLConnection, _ row: TransferRow, now: Date) async throws -> Cancelled {
        let blob = row.blobID
        let waiting = try await db.all("""
            UPDATE outbox SET status = 'cancelled', updated = \(now)
            WHERE transfer_id = \(row.id) AND status IN \(StoreRows.waiting) RETURNING device_id
            """)
        var released = [String]()
        for _ in waiting {
            if try await StoreRows.release(db, blob: blob) { released.append(blob) }
        }
        var removed: String?
        if blob.isEmpty, let upload = row.uploadID {
            removed = try await db.value("DELETE FROM uploads WHERE id = \(upload) RETURNING id", as: String.self)
        }
        return Cancelled(released: released, upload: removed, copies: waiting.count)
    }
}
