/// The chain's verifier (docs/device-chain.md, "Verification"): one walk from the root,
/// shared by the clients and the relay.
extension DeviceChain {
    /// Verifies a whole chain from its root: signatures, links, sequence numbers, each
    /// signer live at its statement, bounds. `user` is the user the caller asked for.
    public static func verify(_ statements: [Statement], user: String, using primitives: Primitives) throws -> Verified {
        guard !statements.isEmpty else { throw DeviceChainError.malformed(index: nil, reason: "an empty chain") }
        guard statements.count <= maxStatements else {
            throw DeviceChainError.malformed(index: nil, reason: "\(statements.count) statements (the limit is \(maxStatements))")
        }
        var walk = Walk(user: user, primitives: primitives)
        for statement in statements { try walk.take(statement) }
        return walk.verified
    }

    /// The longest prefix of `statements` that verifies, and why the next statement did
    /// not (`refusedTail`). A relay that serves statements it cannot have been given by
    /// a live device is lying or was lied to: a client keeps what verifies and goes on.
    /// Throws when not even the root verifies (there is no prefix).
    public static func verifyPrefix(_ statements: [Statement], user: String, using primitives: Primitives) throws -> Verified {
        guard !statements.isEmpty else { throw DeviceChainError.malformed(index: nil, reason: "an empty chain") }
        var walk = Walk(user: user, primitives: primitives)
        for (index, statement) in statements.enumerated() {
            guard index < maxStatements else {
                return walk.verified(refusing: .malformed(index: index, reason: "\(statements.count) statements (the limit is \(maxStatements))"))
            }
            do {
                try walk.take(statement)
            } catch let error as DeviceChainError where index > 0 {
                return walk.verified(refusing: error)
            }
        }
        return walk.verified
    }

    /// Checks that verified `statements` extend `pinned`: at least as long, and holding
    /// the pinned statement (links were verified, so all before it are the pinned ones).
    public static func check(_ statements: [Statement], extend pinned: Head, using primitives: Primitives) throws {
        guard pinned.sequence < UInt64(statements.count) else {
            throw DeviceChainError.rolledBack(pinned: pinned.sequence, served: UInt64(max(statements.count, 1)) - 1)
        }
        guard primitives.sha256(statements[Int(pinned.sequence)].encoded) == pinned.hash else {
            throw DeviceChainError.forked(sequence: pinned.sequence)
        }
    }

    /// One pass over a chain, a statement at a time; `take` throws on the first
    /// statement that does not verify and leaves the state of the ones before it.
    struct Walk {
        let user: String
        let primitives: Primitives
        var live: [String: DeviceEntry] = [:]
        var previousHash = [UInt8](repeating: 0, count: DeviceChain.hashCount)
        var rootKey: [UInt8] = []
        var total = 0
        var count = 0

        init(user: String, primitives: Primitives) {
            self.user = user
            self.primitives = primitives
        }

        var verified: Verified {
            Verified(user: user, rootKey: rootKey, devices: live,
                     head: Head(sequence: UInt64(max(count, 1) - 1), hash: previousHash))
        }

        func verified(refusing error: DeviceChainError) -> Verified {
            var verified = self.verified
            verified.refusedTail = error
            return verified
        }

        mutating func take(_ statement: Statement) throws {
            let index = count
            guard index < DeviceChain.maxStatements else {
                throw DeviceChainError.malformed(index: index, reason: "more than \(DeviceChain.maxStatements) statements")
            }
            let encoded = statement.encoded
            // Only statements that are exactly their canonical form (lengths, id syntax,
            // field limits) are considered; one built in memory is held to it as well.
            let reparsed: Statement
            do {
                reparsed = try Statement.decode(encoded)
            } catch DeviceChainError.malformed(_, let reason) {
                throw DeviceChainError.malformed(index: index, reason: reason)
            }
            guard reparsed == statement else { throw DeviceChainError.malformed(index: index, reason: "not in canonical form") }
            guard encoded.count <= DeviceChain.maxStatementBytes, total + encoded.count <= DeviceChain.maxChainBytes else {
                throw DeviceChainError.malformed(index: index, reason: "the chain is larger than \(DeviceChain.maxChainBytes) bytes")
            }
            guard statement.user == user else { throw DeviceChainError.wrongUser(index: index, expected: user, found: statement.user) }
            guard statement.sequence == UInt64(index) else { throw DeviceChainError.badSequence(index: index, found: statement.sequence) }
            guard statement.previous == previousHash else { throw DeviceChainError.brokenLink(index: index) }
            let signerKey: [UInt8]
            if index == 0 {
                guard case .add(let root) = statement.action, root.id == statement.signer else {
                    throw DeviceChainError.badRoot(reason: "the first statement must add the device that signs it")
                }
                signerKey = root.signingKey
            } else {
                guard let signer = live[statement.signer] else { throw DeviceChainError.signerNotLive(index: index, signer: statement.signer) }
                signerKey = signer.signingKey
            }
            guard primitives.verifyEd25519(statement.signature, statement.signedMessage, signerKey) else {
                throw DeviceChainError.badSignature(index: index)
            }
            switch statement.action {
            case .add(let device):
                guard live[device.id] == nil else { throw DeviceChainError.duplicate(index: index, reason: "device \(device.id) is already in the chain") }
                guard !live.values.contains(where: { $0.signingKey == device.signingKey }) else {
                    throw DeviceChainError.duplicate(index: index, reason: "its signing key is already another live device's")
                }
                live[device.id] = device
            case .remove(let id):
                guard live[id] != nil else { throw DeviceChainError.duplicate(index: index, reason: "device \(id) is not live") }
                guard live.count > 1 else { throw DeviceChainError.duplicate(index: index, reason: "it would remove the last device") }
                live[id] = nil
            }
            if index == 0 { rootKey = signerKey }
            total += encoded.count
            previousHash = primitives.sha256(encoded)
            count += 1
        }
    }
}
