import COpenSSL

/// Key material in memory that is wiped (OPENSSL_cleanse) when the last reference goes.
///
/// Keys live here rather than in `[UInt8]`, whose copy-on-write copies could not be wiped.
public final class SecretBytes: @unchecked Sendable {
    // Sendable: the storage is written only at creation; afterwards it is read-only
    // until deinit, which runs when no other reference exists.
    private let storage: UnsafeMutableRawBufferPointer

    /// Zero-filled secret of `count` bytes, filled by `initialize`.
    public init(count: Int, initialize: (UnsafeMutableRawBufferPointer) throws -> Void = { _ in }) rethrows {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        do {
            try initialize(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]))
        } catch {
            OPENSSL_cleanse(buffer.baseAddress, buffer.count)
            buffer.deallocate()
            throw error
        }
        storage = buffer
        realCount = count
    }

    private let realCount: Int

    public convenience init<Bytes: Collection>(copying bytes: Bytes) where Bytes.Element == UInt8 {
        self.init(count: bytes.count) { buffer in
            _ = buffer.initializeMemory(as: UInt8.self, from: bytes)
        }
    }

    deinit {
        OPENSSL_cleanse(storage.baseAddress, storage.count)
        storage.deallocate()
    }

    public var count: Int { realCount }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<realCount]))
    }

    /// A copy of the bytes as an array; for values that are not secret once derived (public keys).
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// Constant-time comparison.
    public func isEqual(to other: SecretBytes) -> Bool {
        guard realCount == other.realCount else { return false }
        return withUnsafeBytes { a in
            other.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, realCount) == 0 }
        }
    }

    /// True if every byte is zero (checked in constant time).
    public var isAllZero: Bool {
        withUnsafeBytes { buffer in buffer.reduce(UInt8(0)) { $0 | $1 } == 0 }
    }
}

extension Array where Element == UInt8 {
    /// Overwrites every byte with zero (OPENSSL_cleanse, which the optimiser may not
    /// drop), for plaintext secrets that had to pass through an array. Copies the
    /// array made earlier are not reached: keep keys in SecretBytes.
    public mutating func wipe() {
        withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
    }
}
