/// The canonical form's writer: big-endian integers, byte strings prefixed with their
/// 16-bit big-endian length, fixed-size fields raw.
package struct CanonicalWriter {
    package init() {}
    package private(set) var bytes: [UInt8] = []
    package mutating func byte(_ value: UInt8) { bytes.append(value) }
    package mutating func uint64(_ value: UInt64) { for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) } }
    package mutating func raw(_ value: [UInt8]) { bytes += value }
    package mutating func field(_ value: [UInt8]) {
        precondition(value.count <= Int(UInt16.max))
        bytes.append(UInt8(value.count >> 8)); bytes.append(UInt8(value.count & 0xff)); bytes += value
    }
    /// A device as add statements and checkpoints hold it: id, name, recipient, key.
    package mutating func device(_ device: DeviceChain.DeviceEntry) {
        field(Array(device.id.utf8))
        field(Array(device.name.utf8))
        field(Array(device.recipient.utf8))
        raw(device.signingKey)
    }
    /// A byte string of any length after its 64-bit big-endian length (fingerprint input).
    package mutating func field64(_ value: [UInt8]) { uint64(UInt64(value.count)); bytes += value }
}

struct CanonicalReader {
    private let bytes: [UInt8]
    private var offset = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var atEnd: Bool { offset == bytes.count }

    mutating func raw(_ count: Int) throws -> [UInt8] {
        guard bytes.count - offset >= count else { throw DeviceChainError.malformed(index: nil, reason: "truncated statement") }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }
    mutating func byte() throws -> UInt8 { try raw(1)[0] }
    mutating func uint64() throws -> UInt64 { try raw(8).reduce(0) { $0 << 8 | UInt64($1) } }
    mutating func field(max: Int, what: String) throws -> [UInt8] {
        let length = try raw(2).reduce(0) { $0 << 8 | Int($1) }
        guard length <= max else { throw DeviceChainError.malformed(index: nil, reason: "a \(what) of \(length) bytes (the limit is \(max))") }
        return try raw(length)
    }
    mutating func text(max: Int, what: String) throws -> String {
        let field = try field(max: max, what: what)
        guard let text = String(validating: field, as: UTF8.self) else { throw DeviceChainError.malformed(index: nil, reason: "a \(what) that is not UTF-8") }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format }) else {
            throw DeviceChainError.malformed(index: nil, reason: "a \(what) with control or format characters")
        }
        return text
    }
    /// A device as add statements and checkpoints hold it (`CanonicalWriter.device`).
    mutating func device() throws -> DeviceChain.DeviceEntry {
        let id = try deviceId()
        let name = try text(max: DeviceChain.maxNameBytes, what: "name")
        let recipient = try text(max: DeviceChain.maxRecipientBytes, what: "recipient")
        let key = try raw(DeviceChain.publicKeyCount)
        guard !name.isEmpty, !recipient.isEmpty else { throw DeviceChainError.malformed(index: nil, reason: "an empty name or recipient") }
        return DeviceChain.DeviceEntry(id: id, name: name, recipient: recipient, signingKey: key)
    }
    /// A device id: 32 lowercase hex digits, as the relay makes them.
    mutating func deviceId() throws -> String {
        let field = try field(max: DeviceChain.deviceIdCount, what: "device id")
        guard field.count == DeviceChain.deviceIdCount,
              field.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw DeviceChainError.malformed(index: nil, reason: "a device id that is not 32 lowercase hex digits")
        }
        return String(decoding: field, as: UTF8.self)
    }
}
