/// Big-endian integers and length-prefixed strings, for the keychain's binary format.
struct ByteWriter {
    var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u16(_ value: UInt16) { bytes.append(UInt8(value >> 8)); bytes.append(UInt8(value & 0xff)) }
    mutating func u32(_ value: UInt32) { for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8((value >> UInt32(shift)) & 0xff)) } }
    mutating func i64(_ value: Int64) { u64(UInt64(bitPattern: value)) }
    mutating func u64(_ raw: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((raw >> UInt64(shift)) & 0xff)) }
    }
    mutating func raw<Bytes: Sequence>(_ value: Bytes) where Bytes.Element == UInt8 { bytes.append(contentsOf: value) }
    /// A string of at most 65535 UTF-8 bytes, after a u16 length.
    mutating func string16(_ value: String) {
        let utf8 = Array(value.utf8)
        precondition(utf8.count <= Int(UInt16.max), "validated by KeychainNames")
        u16(UInt16(utf8.count))
        raw(utf8)
    }
}

/// Reads what `ByteWriter` wrote from a buffer; every read checks the bounds.
struct ByteReader {
    struct Truncated: Error {}
    let buffer: UnsafeRawBufferPointer
    private(set) var offset = 0

    init(_ buffer: UnsafeRawBufferPointer) { self.buffer = buffer }

    var remaining: Int { buffer.count - offset }

    mutating func take(_ count: Int) throws(Truncated) -> UnsafeRawBufferPointer {
        guard count >= 0, count <= remaining else { throw Truncated() }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + count)])
    }

    mutating func u8() throws(Truncated) -> UInt8 { try take(1)[0] }
    mutating func u16() throws(Truncated) -> UInt16 { let b = try take(2); return UInt16(b[0]) << 8 | UInt16(b[1]) }
    mutating func u32() throws(Truncated) -> UInt32 {
        let b = try take(4)
        return UInt32(b[0]) << 24 | UInt32(b[1]) << 16 | UInt32(b[2]) << 8 | UInt32(b[3])
    }
    mutating func i64() throws(Truncated) -> Int64 { Int64(bitPattern: try u64()) }
    mutating func u64() throws(Truncated) -> UInt64 {
        let b = try take(8)
        var raw: UInt64 = 0
        for byte in b { raw = raw << 8 | UInt64(byte) }
        return raw
    }
    mutating func bytes(_ count: Int) throws(Truncated) -> [UInt8] { Array(try take(count)) }
    /// nil when the bytes are not valid UTF-8.
    mutating func string16() throws(Truncated) -> String? {
        let b = try take(Int(try u16()))
        return String(validating: b, as: UTF8.self)
    }
}
