import Foundation
import Testing
import VFSTestSupport
@testable import VFSBundle
@testable import VFSCore

@Suite("bundles: whether zstd is worth it, from samples taken while hashing")
struct CompressionEstimateTests {
    // digestsLast: the files are not hashed first; the same windows are read on their own.
    @Test("random content is not worth zstd; text is; small content and an empty tree always are", arguments: [false, true])
    func randomAndText(digestsLast: Bool) throws {
        let tmp = try TestFolder("estimate")
        try tmp.write("random.bin", testBytes(6 << 20, seed: 11))
        try tmp.write("text.txt", base64Text(5 << 20, seed: 12))
        try tmp.write("small.bin", testBytes(3 << 20, seed: 13))
        try FileManager.default.createDirectory(atPath: tmp.path + "/empty/sub", withIntermediateDirectories: true)

        let random = try BundlePlan(paths: [tmp.path + "/random.bin"], digestsLast: digestsLast).compression
        #expect(random.contentBytes == 6 << 20)
        #expect(random.sampledBytes == 64 * (64 << 10), "64 samples of 64 KiB")
        #expect(random.saving < CompressionEstimate.threshold, "\(random)")
        #expect(!random.worthCompressing)

        let text = try BundlePlan(paths: [tmp.path + "/text.txt"], digestsLast: digestsLast).compression
        #expect(text.sampledBytes == 64 * (64 << 10))
        #expect(text.saving > 0.2, "\(text)")
        #expect(text.worthCompressing)

        // Under 4 MiB, random or not, it compresses, without samples.
        let small = try BundlePlan(paths: [tmp.path + "/small.bin"], digestsLast: digestsLast).compression
        #expect(small.sampledBytes == 0 && small.worthCompressing)

        let empty = try BundlePlan(paths: [tmp.path + "/empty"], digestsLast: digestsLast).compression
        #expect(empty.contentBytes == 0 && empty.sampledBytes == 0 && empty.worthCompressing)
    }

    @Test("the samples weigh each file by its size: a large random file with a third of text compresses, with a few small text files it does not",
          arguments: [false, true])
    func weighted(digestsLast: Bool) throws {
        let tmp = try TestFolder("estimate")
        try FileManager.default.createDirectory(atPath: tmp.path + "/much/texts", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: tmp.path + "/little/texts", withIntermediateDirectories: true)
        for folder in ["much", "little"] { try tmp.write(folder + "/big.bin", testBytes(6 << 20, seed: 21)) }
        for i in 0..<48 { try tmp.write("much/texts/\(i).txt", base64Text(64 << 10, seed: 100 + UInt64(i))) }
        for i in 0..<3 { try tmp.write("little/texts/\(i).txt", base64Text(2 << 10, seed: 200 + UInt64(i))) }

        // 3 MiB of text in 9 MiB: a third of it, saving about a quarter.
        let much = try BundlePlan(paths: [tmp.path + "/much"], digestsLast: digestsLast).compression
        #expect(much.saving > 0.03 && much.saving < 0.15, "\(much)")
        #expect(much.worthCompressing)
        // 6 KiB of text in 6 MiB (and 5 entries' headers): nothing worth a CPU-second per GiB.
        let little = try BundlePlan(paths: [tmp.path + "/little"], digestsLast: digestsLast).compression
        #expect(little.saving < 0.01, "\(little)")
        #expect(!little.worthCompressing)
    }

    @Test("standard input is not sampled: a plan that holds it compresses")
    func standardInput() throws {
        let plan = try BundlePlan(paths: [], standardInputName: "in.bin", standardInput: MemorySource(Array(testBytes(1 << 20, seed: 5))))
        #expect(plan.compression.unsampled && plan.compression.worthCompressing)
    }

    @Test("the sample windows: 64 of 64 KiB, one in the middle of each equal stratum; none under 4 MiB")
    func windows() {
        #expect(CompressionEstimate.windows(contentBytes: (4 << 20) - 1).isEmpty)
        let just = CompressionEstimate.windows(contentBytes: 4 << 20)
        #expect(just.count == 64 && just.first?.lowerBound == 0 && just.last?.upperBound == 4 << 20)
        #expect(zip(just, just.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound }, "4 MiB is sampled whole")

        let large = CompressionEstimate.windows(contentBytes: 1 << 30)
        #expect(large.count == 64 && large.allSatisfy { $0.count == 64 << 10 })
        for (k, window) in large.enumerated() {
            let stratum = (k << 24)..<((k + 1) << 24)
            #expect(window.lowerBound - stratum.lowerBound == stratum.upperBound - window.upperBound, "centred in \(stratum)")
        }
        #expect(CompressionEstimate.windows(contentBytes: 0).isEmpty)
    }

    @Test("a sampler takes its windows across read boundaries and clips them to the file")
    func sampler() {
        // Windows of the stream [10, 30) and [40, 60) in a file at 20..<50: its 0..<10 and 20..<30.
        var sampler = ContentSampler(windows: [10..<30, 40..<60, 70..<80], fileAt: 20, size: 30)
        let bytes = [UInt8](repeating: 0x61, count: 30)
        bytes.withUnsafeBytes { raw in
            sampler.feed(UnsafeRawBufferPointer(rebasing: raw[0..<7]))
            sampler.feed(UnsafeRawBufferPointer(rebasing: raw[7..<25]))
            sampler.feed(UnsafeRawBufferPointer(rebasing: raw[25..<30]))
        }
        sampler.finish()
        #expect(sampler.samples.sampledBytes == 20 && sampler.samples.sampledCompressedBytes > 0 && !sampler.samples.unsampled)
    }
}
