import VFSCore

/// A user's devices and the chain they sign, for tests.
package struct ChainFixture {
    package struct TestDevice {
        package let entry: DeviceChain.DeviceEntry
        package let key: Ed25519.SigningKey
        package init(entry: DeviceChain.DeviceEntry, key: Ed25519.SigningKey) { (self.entry, self.key) = (entry, key) }
    }

    package let user: String
    package var statements: [DeviceChain.Statement] = []

    package init(user: String = "alice@example.com") { self.user = user }

    /// Device `n` (id: 32 times the digit n % 10, unless `uniqueID`: n in 32 hex digits),
    /// with a new key unless one is given; `sendOnly`: a send-only device (issue 48).
    package static func device(_ n: Int, name: String? = nil, recipient: String? = nil, key: Ed25519.SigningKey? = nil,
                               uniqueID: Bool = false, sendOnly: Bool = false) throws -> TestDevice {
        let key = try key ?? Ed25519.SigningKey()
        let hex = String(n, radix: 16)
        let id = uniqueID ? String(repeating: "0", count: 32 - hex.count) + hex : String(repeating: String(n % 10), count: 32)
        return TestDevice(entry: .init(id: id, name: name ?? "device\(n)", recipient: recipient ?? "age1device\(n)", signingKey: key.publicKey, sendOnly: sendOnly), key: key)
    }

    package func statement(_ action: DeviceChain.Action, by signer: TestDevice, sequence: UInt64? = nil,
                   previous: [UInt8]? = nil, user: String? = nil) throws -> DeviceChain.Statement {
        try .signed(user: user ?? self.user, sequence: sequence ?? UInt64(statements.count),
                    previous: previous ?? statements.last?.hash ?? [UInt8](repeating: 0, count: 32),
                    timestamp: 1_790_000_000 + Int64(statements.count), signer: signer.entry.id, action: action, key: signer.key)
    }

    package mutating func append(_ action: DeviceChain.Action, by signer: TestDevice) throws {
        statements.append(try statement(action, by: signer))
    }

    /// A chain: device 1 is the root and adds device 2.
    package static func twoDevices() throws -> (ChainFixture, TestDevice, TestDevice) {
        var chain = ChainFixture()
        let one = try device(1), two = try device(2)
        try chain.append(.add(one.entry), by: one)
        try chain.append(.add(two.entry), by: one)
        return (chain, one, two)
    }
}
