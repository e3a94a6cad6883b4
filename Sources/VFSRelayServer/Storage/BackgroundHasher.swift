import Crypto
import NIOCore
import NIOConcurrencyHelpers
import Synchronization

/// SHA-256 of an upload's bytes taken on its own task while the PATCH's task goes on
/// writing (issue 26): the request's task then only writes, and the two run on the two
/// cores at once instead of one after the other.
///
/// The buffers are handed over as they are (a ByteBuffer is shared, not copied), in the
/// order they were written; `mark()`, called after a write, gives the hash of exactly the
/// bytes handed over before it. The writer waits (`keepUp`) once more than `maximumLag`
/// bytes are waiting, so the buffers held stay bounded whatever the hashing's speed.
final class BackgroundHasher: Sendable {
    /// The hash at one point of the stream, ready once the hasher got there.
    final class Mark: Sendable {
        private let state = NIOLockedValueBox<(hash: SHA256?, waiter: CheckedContinuation<SHA256, Never>?)>((nil, nil))

        fileprivate func fulfil(_ hash: SHA256) {
            let waiter = state.withLockedValue { state -> CheckedContinuation<SHA256, Never>? in
                guard let waiter = state.waiter else { state.hash = hash; return nil }
                state.waiter = nil
                return waiter
            }
            waiter?.resume(returning: hash)
        }

        func value() async -> SHA256 {
            await withCheckedContinuation { continuation in
                let ready = state.withLockedValue { state -> SHA256? in
                    if let hash = state.hash { return hash }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }

    private enum Item: Sendable {
        case bytes([ByteBuffer])
        case mark(Mark)
    }

    static let maximumLag = 32 << 20
    /// Buffers are handed over in batches of this many bytes (a wake-up of the hasher per
    /// 64 KiB socket read cost 7% more CPU than hashing in place).
    static let batchBytes = 1 << 20
    /// The writer's batch, not handed over yet.
    private let batch = NIOLockedValueBox<(buffers: [ByteBuffer], bytes: Int)>(([], 0))
    private let input: AsyncStream<Item>.Continuation
    private let task: Task<SHA256, Never>
    /// Bytes handed over and not hashed yet.
    private final class Lag: Sendable { let bytes = Atomic<Int>(0) }
    private let lag = Lag()

    /// Continues `start` (the hash of the bytes before the first handed over).
    init(continuing start: SHA256) {
        let (stream, input) = AsyncStream<Item>.makeStream()
        self.input = input
        let lag = self.lag
        task = Task.detached {
            var hash = start
            for await item in stream {
                switch item {
                case .bytes(let buffers):
                    for buffer in buffers {
                        buffer.withUnsafeReadableBytes { hash.update(bufferPointer: $0) }
                        lag.bytes.subtract(buffer.readableBytes, ordering: .relaxed)
                    }
                case .mark(let mark):
                    mark.fulfil(hash)
                }
            }
            return hash
        }
    }

    /// Hands over the next bytes written.
    func update(_ buffer: ByteBuffer) {
        guard buffer.readableBytes > 0 else { return }
        lag.bytes.add(buffer.readableBytes, ordering: .relaxed)
        let full = batch.withLockedValue { batch -> [ByteBuffer]? in
            batch.buffers.append(buffer)
            batch.bytes += buffer.readableBytes
            guard batch.bytes >= Self.batchBytes else { return nil }
            defer { batch = ([], 0) }
            return batch.buffers
        }
        if let full { input.yield(.bytes(full)) }
    }

    /// Hands over the batch begun.
    private func handOver() {
        let rest = batch.withLockedValue { batch -> [ByteBuffer] in
            defer { batch = ([], 0) }
            return batch.buffers
        }
        if !rest.isEmpty { input.yield(.bytes(rest)) }
    }

    /// The hash of every byte handed over so far, once the hasher reaches it.
    func mark() -> Mark {
        let mark = Mark()
        handOver()
        input.yield(.mark(mark))
        return mark
    }

    /// Bytes handed over that the hasher has not reached yet.
    var pending: Int { lag.bytes.load(ordering: .relaxed) }

    /// Waits for the hasher when more than `maximumLag` bytes wait for it.
    func keepUp() async {
        guard pending > Self.maximumLag else { return }
        _ = await mark().value()
    }

    /// The hash of every byte handed over; nothing may be handed over after it.
    func finish() async -> SHA256 {
        close()
        return await task.value
    }

    /// Ends the input (the hasher's task ends once it hashed what it has), for a writer
    /// that stops without `finish`: its error was thrown past it.
    func close() {
        handOver()
        input.finish()
    }
}
