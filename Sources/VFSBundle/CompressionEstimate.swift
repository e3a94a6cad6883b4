/// Whether a bundle's content is worth zstd, told from samples taken while `BundlePlan`
/// hashes its files (a version 1 manifest comes first with the digests, so every file is
/// read once before the archive), or read on their own when the digests come last, as
/// borg's `--compression auto,zstd` tells it with lz4: content that does not
/// shrink (random data, media, archives) is archived without the zstd filter, which would
/// spend about a CPU-second per GiB to make it no smaller.
///
/// The samples: the file content, taken as one stream in the plan's order, is cut into
/// `maxSamples` equal strata (fewer for small content: at least `sampleSize` each), and
/// the middle `sampleSize` bytes of each (clipped at file ends) go through zstd's fast
/// level (`ZstdProbe`). Spread evenly over the bytes, the samples weigh each file by its
/// size: a large random file outweighs small text files, and the other way round. At most
/// 64 samples of 64 KiB (4 MiB) whatever the size. Content under `alwaysBelow` (4 MiB)
/// is compressed without samples: zstd costs a few milliseconds there, and small bundles
/// (and text) keep compressing as they always did.
public struct CompressionEstimate: Sendable, Equatable {
    /// Bytes of file content.
    public var contentBytes: Int
    /// Bytes sampled, and what zstd's fast level made of them.
    public var sampledBytes = 0
    public var sampledCompressedBytes = 0
    /// Entries in the archive: each has pax headers (1.5 KiB, mostly zero padding) and a
    /// manifest line, counted as `metadataPerEntry` bytes zstd saves.
    public var entries: Int
    /// Content that was not sampled (standard input, spooled before the plan is made, or a
    /// probe that failed): the estimate then says compress, as before there was one.
    public var unsampled = false

    /// Below this saving (3%, the threshold borg's auto mode uses) zstd is not worth it.
    public static let threshold = 0.03
    public static let metadataPerEntry = 1024
    public static let alwaysBelow = 4 << 20
    static let sampleSize = 64 << 10
    static let maxSamples = 64

    /// The share of the archive zstd would save: the content at the samples' ratio, plus
    /// the entries' metadata.
    public var saving: Double {
        let metadata = Double(entries * Self.metadataPerEntry)
        let archive = Double(contentBytes) + metadata
        guard archive > 0 else { return 1 }
        let ratio = sampledBytes > 0 ? Double(sampledCompressedBytes) / Double(sampledBytes) : 1
        return 1 - Double(contentBytes) * min(ratio, 1) / archive
    }

    /// Adds one sample, put through zstd's fast level (`ZstdProbe`); a probe that failed
    /// leaves the estimate unsampled (compress).
    mutating func add(sample bytes: UnsafeRawBufferPointer) {
        if let size = ZstdProbe.compressedSize(of: bytes) {
            sampledBytes += bytes.count
            sampledCompressedBytes += size
        } else {
            unsampled = true
        }
    }

    /// Adds the samples `other` took (one file's, taken on another thread).
    mutating func add(samplesOf other: CompressionEstimate) {
        sampledBytes += other.sampledBytes
        sampledCompressedBytes += other.sampledCompressedBytes
        if other.unsampled { unsampled = true }
    }

    /// zstd unless the content (of `alwaysBelow` or more) would shrink by less than `threshold`.
    public var worthCompressing: Bool { unsampled || contentBytes < Self.alwaysBelow || saving >= Self.threshold }

    /// The sample windows (offsets into the content stream) for `contentBytes`.
    /// None under `alwaysBelow`.
    static func windows(contentBytes total: Int) -> [Range<Int>] {
        guard total >= alwaysBelow else { return [] }
        let strata = min(maxSamples, (total + sampleSize - 1) / sampleSize)
        return (0..<strata).map { k in
            let start = k * total / strata, end = (k + 1) * total / strata
            let length = min(sampleSize, end - start)
            let first = start + (end - start - length) / 2
            return first..<(first + length)
        }
    }
}

/// Collects one file's samples as it is read: `windows` are offsets into the file (from
/// `CompressionEstimate.windows`, shifted to where the file starts in the content
/// stream and clipped to it), fed in order; each is compressed once its bytes are in.
struct ContentSampler {
    private var windows: ArraySlice<Range<Int>>
    private var offset = 0
    private var sample: [UInt8] = []
    /// The samples taken so far (only their bytes and sizes are filled in).
    private(set) var samples = CompressionEstimate(contentBytes: 0, entries: 0)

    /// The windows of the content stream that fall in the file at `start..<start+size`.
    init(windows all: [Range<Int>], fileAt start: Int, size: Int) {
        windows = ArraySlice(Self.windows(all, fileAt: start, size: size))
    }

    /// The parts of `all` (windows of the content stream) in the file at
    /// `start..<start+size`, as offsets into the file.
    static func windows(_ all: [Range<Int>], fileAt start: Int, size: Int) -> [Range<Int>] {
        let file = start..<(start + size)
        return all.compactMap { window in
            let part = window.clamped(to: file)
            return part.isEmpty ? nil : (part.lowerBound - start)..<(part.upperBound - start)
        }
    }

    /// The file's next bytes.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        let chunk = offset..<(offset + bytes.count)
        offset += bytes.count
        while let window = windows.first, window.lowerBound < chunk.upperBound {
            let part = window.clamped(to: chunk)
            if !part.isEmpty {
                sample.append(contentsOf: bytes[(part.lowerBound - chunk.lowerBound)..<(part.upperBound - chunk.lowerBound)])
            }
            guard window.upperBound <= chunk.upperBound else { return }
            finishWindow()
        }
    }

    /// The end of the file: a window it ended inside (it shrank) is taken as it is.
    mutating func finish() {
        if !windows.isEmpty { finishWindow() }
        windows = []
    }

    private mutating func finishWindow() {
        windows = windows.dropFirst()
        guard !sample.isEmpty else { return }
        sample.withUnsafeBytes { samples.add(sample: $0) }
        sample.removeAll(keepingCapacity: true)
    }
}
