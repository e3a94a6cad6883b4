// The chain's format and verifier live in VFSDeviceChain, shared with the relay (which
// links no VFSCore); here they get this library's primitives (OpenSSL's SHA-256 and
// Ed25519) and the signing, which needs a private key.
@_exported import VFSDeviceChain

extension DeviceChain.Primitives {
    /// OpenSSL's SHA-256 and Ed25519 (`SHA256`, `Ed25519.verify`).
    package static let openSSL = DeviceChain.Primitives(
        sha256: { SHA256.hash($0) },
        verifyEd25519: { signature, message, key in Ed25519.verify(signature: signature, of: message, publicKey: key) })
}

extension DeviceChain {
    /// Verifies a whole chain from its root (see `verify(_:user:using:)`).
    package static func verify(_ statements: [Statement], user: String) throws -> Verified {
        try verify(statements, user: user, using: .openSSL)
    }

    /// The longest verified prefix of a chain, from its root or from a checkpoint at or
    /// before `pinned` (see `verifyPrefix(_:user:pinned:using:)`).
    package static func verifyPrefix(_ statements: [Statement], user: String, pinned: Head? = nil) throws -> Verified {
        try verifyPrefix(statements, user: user, pinned: pinned, using: .openSSL)
    }

    /// Verifies `statements` and checks that they extend `pinned` (the head this client
    /// verified last): the chain is at least as long and holds the pinned statement. It
    /// may start at a checkpoint at or before the pin.
    package static func verify(_ statements: [Statement], user: String, extending pinned: Head?) throws -> Verified {
        let verified = try verify(statements, user: user, pinned: pinned, using: .openSSL)
        if let pinned { try check(statements, extend: pinned) }
        return verified
    }

    /// Checks that verified `statements` extend `pinned` (see `check(_:extend:using:)`).
    package static func check(_ statements: [Statement], extend pinned: Head) throws {
        try check(statements, extend: pinned, using: .openSSL)
    }
}

extension DeviceChain.Statement {
    /// The checkpoint restating `verified` (its root and live devices), to follow its
    /// head, signed by `signer` (one of its live devices, whose `key` it is).
    package static func checkpoint(of verified: DeviceChain.Verified, timestamp: Int64, signer: String,
                                   key: Ed25519.SigningKey) throws -> DeviceChain.Statement? {
        guard let checkpoint = verified.checkpoint else { return nil }
        return try signed(user: verified.user, sequence: verified.head.sequence + 1, previous: verified.head.hash,
                          timestamp: timestamp, signer: signer, action: .checkpoint(checkpoint), key: key)
    }

    /// What the next statement names as `previous`: SHA-256 of the signed statement.
    package var hash: [UInt8] { SHA256.hash(encoded) }

    /// A new statement signed by `key`.
    package static func signed(user: String, sequence: UInt64, previous: [UInt8], timestamp: Int64,
                               signer: String, action: DeviceChain.Action, key: Ed25519.SigningKey) throws -> DeviceChain.Statement {
        var statement = DeviceChain.Statement(user: user, sequence: sequence, previous: previous, timestamp: timestamp,
                                              signer: signer, action: action, signature: [])
        statement.signature = try key.sign(statement.signedMessage)
        return statement
    }
}
