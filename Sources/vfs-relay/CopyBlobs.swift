import ArgumentParser
import Foundation
import VFSCommandLine
import VFSRelayServer

struct CopyBlobs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy-blobs",
        abstract: "Copy a relay's blob files from its folder into its S3 bucket.",
        discussion: """
        Uploads the file FOLDER/blobs/ID of every blob a row of the relay's database \
        references (--data DIR or --database URL) as an object of the bucket of \
        --blobs s3://…, streamed a part at a time and checked against the row's size. \
        An object already there with that size is kept, so running it again copies only \
        what is new. Then start the relays with --blobs s3://… instead of the folder. \
        Uploads in progress are not copied: their clients start them again.

          vfs-relay copy-blobs --from /srv/vfs-blobs --database postgres://relay@db/relay \\
            --blobs 's3://vfs-blobs?endpoint=https://s3.example.net&region=eu-west-1' --s3-credentials /etc/vfs/s3
        """)

    @Option(help: ArgumentHelp("The folder the relay kept its blobs in: its old --blobs DIR, else its data folder.", valueName: "dir"),
            completion: .directory)
    var from: String

    @OptionGroup var data: DataOptions

    func run() async throws {
        guard let blobs = data.blobs, blobs.hasPrefix("s3://") else {
            throw ToolError.usage("copy-blobs needs the bucket: --blobs s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION",
                                  hints: ["--from names the folder the blobs are copied from"])
        }
        let folder = URL(fileURLWithPath: from)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.appendingPathComponent("blobs").path, isDirectory: &isFolder), isFolder.boolValue else {
            throw ToolError("no blobs folder in \"\(from)\"", exit: .noInput,
                            hints: ["--from takes the folder the relay's --blobs named (or its --data folder): the one holding blobs/"])
        }
        let settings = try data.objectStore(blobs)
        try await Serve.checkBucket(settings)
        let (store, served) = try await data.open()
        guard let bucket = served as? S3BlobStore else { throw ToolError.usage("--blobs is not a bucket") }
        let rows: [BlobRef]
        do {
            rows = try await store.blobRows()
        } catch {
            throw ToolError("cannot read \(data.describedStore): \(error)", exit: .ioError)
        }
        let report: BlobsIntoBucket.Report
        do {
            report = try await BlobsIntoBucket.copy(rows, from: folder, to: bucket)
        } catch let error as BlobsIntoBucket.Failure {
            throw ToolError("\(error)", exit: .dataError, hints: ["the blobs before it are copied; run it again once the file is right"])
        } catch let error as BlobStoreError {
            let unavailable = if case .unavailable = error { true } else { false }
            throw ToolError("\(error)", exit: unavailable ? .unavailable : .ioError, hints: ["the blobs copied so far stay; run it again to go on"])
        }
        print("copied \(report.copied) (\(report.bytes) bytes)")
        print("present \(report.present)")
        if !report.missing.isEmpty {
            FileHandle.standardError.write(Data("vfs-relay: warning: \(report.missing.count) blob rows have no file in \"\(from)\" (gc deletes such rows): \(report.missing.prefix(5).joined(separator: ", "))\n".utf8))
        }
    }
}
