import Foundation
import Logging
import Prometheus
import ServiceLifecycle

/// The sweeper's work, which `vfs-relay gc` also runs: expire transfers and uploads, drop
/// the cloud versions their organisation's policy no longer keeps, recount blob
/// references from the live rows, delete what nobody uses.
public struct RelayMaintenance: Sendable {
    let store: any MaintenanceRepository & UploadListingRepository & ShareExpiryRepository & CloudRetentionRepository
    let blobs: any BlobStore
    let configuration: RelayConfiguration
    /// The gauges of the cloud versions kept, in the served registry (`serve --metrics`).
    let metrics: RelayMetrics

    public init(store: any MaintenanceRepository & UploadListingRepository & ShareExpiryRepository & CloudRetentionRepository, blobs: any BlobStore, configuration: RelayConfiguration) {
        self.store = store
        self.blobs = blobs
        self.configuration = configuration
        metrics = RelayMetrics(registry: configuration.metrics ?? PrometheusCollectorRegistry())
    }

    /// One sweep, unless another process (another relay instance on the same database,
    /// or `gc`) is sweeping now: then nil.
    public func sweepOnce(now: Date = Date()) async throws -> GarbageReport? {
        let maintenance = self
        return try await store.withMaintenanceLock { try await maintenance.sweep(now: now) }
    }

    /// One sweep; on a disk too full for the database, the ballast goes first (the sweep
    /// frees space), and it is made again afterwards once there is room.
    func sweep(now: Date = Date()) async throws -> GarbageReport {
        let report: GarbageReport
        if let ballast = configuration.ballast {
            report = try await ballast.freeing { try await sweepOnceUnguarded(now: now) }
            ballast.ensure(room: configuration.diskRoom)
        } else {
            report = try await sweepOnceUnguarded(now: now)
        }
        return report
    }

    func sweepOnceUnguarded(now: Date) async throws -> GarbageReport {
        let expired = try await store.expireTransfers(now: now)
        for blob in expired { await blobs.deleteBlob(blob) }
        for blob in try await store.expireShares(now: now) { await blobs.deleteBlob(blob) }
        // The cloud versions the organisations' policies no longer keep (issue 50).
        let versions = try await store.pruneCloudVersions(now: now)
        for blob in versions.released { await blobs.deleteBlob(blob) }
        let kept = try await store.cloudVersionTotals()
        metrics.cloudVersions.set(Double(kept.versions))
        metrics.cloudVersionBytes.set(Double(kept.bytes))
        // Idle past the expiry (`--upload-idle-expiry`) or their whole lifetime; one being
        // written now is not idle.
        let uploads = try await store.removeExpiredUploads(now: now, sparing: store.uploadsBeingWritten())
        for upload in uploads { await blobs.deleteUpload(upload) }
        let settled = now.addingTimeInterval(-configuration.orphanGrace)
        let known = try await store.uploadIDs()
        var orphanUploads = 0
        for file in try await blobs.uploads(olderThan: settled) where !known.contains(file) {
            await blobs.deleteUpload(file)
            orphanUploads += 1
        }
        // Blob rows recorded before the check was made: a row made after it (its blob
        // stored after a listing) is not taken for one whose blob is gone.
        let rowsBefore = Set(try await store.referenceAudit().map(\.id))
        let exists = try await blobs.existenceCheck()
        var (report, delete) = try await store.collectGarbage(
            files: blobs.blobs(olderThan: settled), fileExists: { !rowsBefore.contains($0) || exists($0) },
            eventsBefore: now.addingTimeInterval(-configuration.eventRetention), now: now)
        for blob in delete { await blobs.deleteBlob(blob) }
        report.releasedBlobs += expired.count + versions.released.count
        report.droppedVersions = versions.dropped
        report.expiredUploads = uploads.count
        report.orphanFiles += orphanUploads
        return report
    }
}

/// Runs the sweep on a timer while the relay serves.
struct SweeperService: Service {
    let maintenance: RelayMaintenance
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    if let report = try await maintenance.sweepOnce(), report != GarbageReport() {
                        logger.info("sweep: \(report)")
                    }
                } catch {
                    // A stop cancels a sweep in progress: nothing to report.
                    if Task.isCancelled || error is CancellationError { break }
                    logger.error("sweep failed: \(error)")
                }
                try? await Task.sleep(for: interval)
            }
        }
    }
}
