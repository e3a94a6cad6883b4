import Foundation
import NIOCore

/// `vfs-relay copy-blobs`: the blob files of a relay that kept them in a folder
/// (`FOLDER/blobs/ID`) uploaded as the objects of its bucket, so the relay can be started
/// on `--blobs s3://…` and serve its transfers and cloud files from there. Only blobs a
/// row references are copied, each file streamed a part at a time (never read whole),
/// and each object checked against the row's size once stored. An object already there
/// with the row's size is left as it is, so a second run copies only what the first did
/// not (the blobs a relay still on the folder made meanwhile).
public enum BlobsIntoBucket {
    public struct Report: Sendable, Equatable {
        /// Blobs uploaded by this run, and their bytes.
        public var copied = 0
        public var bytes: Int64 = 0
        /// Blobs whose object was already there, whole.
        public var present = 0
        /// Blobs with a row and no file in the folder (nothing to copy: as gc would find them).
        public var missing: [String] = []
    }

    public enum Failure: Error, CustomStringConvertible {
        /// The file or the stored object is not the size the row records.
        case size(blob: String, what: String, size: Int64, expected: Int64)
        case unreadable(blob: String, reason: String)

        public var description: String {
            switch self {
            case .size(let blob, let what, let size, let expected):
                "blob \(blob): the \(what) holds \(size) bytes, its row \(expected)"
            case .unreadable(let blob, let reason): "cannot read the file of blob \(blob): \(reason)"
            }
        }
    }

    /// Copies the file of each row from `folder` (the relay's old `--blobs` or data
    /// folder) into `store`; `progress` hears each blob done.
    public static func copy(_ rows: [BlobRef], from folder: URL, to store: S3BlobStore,
                            progress: (BlobRef) -> Void = { _ in }) async throws -> Report {
        var report = Report()
        for row in rows {
            if try await store.objectSize(row.id) == row.size {
                report.present += 1
                continue
            }
            let path = folder.appendingPathComponent("blobs").appendingPathComponent(row.id).path
            guard let file = FileHandle(forReadingAtPath: path) else {
                report.missing.append(row.id)
                continue
            }
            defer { try? file.close() }
            let size: Int64
            do {
                size = Int64(try file.seekToEnd())
                try file.seek(toOffset: 0)
            } catch {
                throw Failure.unreadable(blob: row.id, reason: "\(error)")
            }
            guard size == row.size else { throw Failure.size(blob: row.id, what: "file \(path)", size: size, expected: row.size) }
            let partSize = store.partSize
            try await store.store(row.id) {
                // One part of the file (all of it, but at its end).
                var part = ByteBufferAllocator().buffer(capacity: partSize)
                while part.readableBytes < partSize {
                    let data: Data?
                    do {
                        data = try file.read(upToCount: partSize - part.readableBytes)
                    } catch {
                        throw Failure.unreadable(blob: row.id, reason: "\(error)")
                    }
                    guard let data, !data.isEmpty else { break }
                    part.writeBytes(data)
                }
                return part
            }
            let stored = try await store.objectSize(row.id) ?? -1
            guard stored == row.size else {
                await store.deleteBlob(row.id)
                throw Failure.size(blob: row.id, what: "object stored", size: stored, expected: row.size)
            }
            report.copied += 1
            report.bytes += row.size
            progress(row)
        }
        return report
    }
}
