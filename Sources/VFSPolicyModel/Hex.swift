/// Lowercase hexadecimal, shared by the tools and the relay (digests, ids, token hashes).
/// The relay hashes a token on every request, so this writes the digits straight into
/// the string's storage (`String(format: "%02x")` per byte cost a tenth of a request).
extension Sequence where Element == UInt8 {
    public var hexString: String {
        let bytes = Array(self)
        return String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            let digits: StaticString = "0123456789abcdef"
            let table = digits.utf8Start
            for (index, byte) in bytes.enumerated() {
                buffer[2 * index] = table[Int(byte >> 4)]
                buffer[2 * index + 1] = table[Int(byte & 0xf)]
            }
            return bytes.count * 2
        }
    }
}
