/// The chain's verifier (docs/device-chain.md, "Verification" and "Checkpoints"): one
/// walk, shared by the clients and the relay.
extension DeviceChain {
    /// Verifies a whole chain: signatures, links, sequence numbers, each signer live at
    /// its statement, each checkpoint restating the state at its point, bounds. `user` is
    /// the user the caller asked for. From the root; or, with `pinned` (the head this
    /// client verified last), from a checkpoint at or before it, which the chain must
    /// then extend (see `verifyPrefix`). Throws on any statement that does not verify.
    public static func verify(_ statements: [Statement], user: String, pinned: Head? = nil, using primitives: Primitives) throws -> Verified {
        guard !statements.isEmpty else { throw DeviceChainError.malformed(index: nil, reason: "an empty chain") }
        // Bounded before any signature is checked: no segment longer than the limit.
        var segment = 0, longest = 0
        for statement in statements {
            if statement.isCheckpoint { segment = 0 }
            segment += 1
            longest = max(longest, segment)
        }
        guard longest <= maxStatements else {
            throw DeviceChainError.malformed(index: nil, reason: !statements.contains(where: \.isCheckpoint)
                ? "\(statements.count) statements (the limit is \(maxStatements))"
                : "\(longest) statements since a checkpoint (the limit is \(maxStatements))")
        }
        let verified = try verifyPrefix(statements, user: user, pinned: pinned, using: primitives)
        if let refused = verified.refusedTail { throw refused }
        return verified
    }

    /// The longest prefix of `statements` that verifies, and why the next statement did
    /// not (`refusedTail`). A relay that serves statements it cannot have been given by
    /// a live device is lying or was lied to: a client keeps what verifies and goes on.
    /// Throws when not even the first statement verifies (there is no prefix).
    ///
    /// The first statement is the root (sequence 0), or a checkpoint: then only with
    /// `pinned`, at or before the pinned head, and the chain must extend that head (the
    /// pinned statement is in it, with the pinned hash). The pinned hash names, through
    /// the links, every statement up to the pin, the checkpoint among them; this client
    /// verified each of them against the state it computed when it walked past them, so
    /// the checkpoint's restated state is the state the chain has there. A checkpoint
    /// after the pin, or with no pin, is refused (`unanchoredCheckpoint`): a relay could
    /// have made it restate anything with a key of a device it removed.
    public static func verifyPrefix(_ statements: [Statement], user: String, pinned: Head? = nil,
                                    using primitives: Primitives) throws -> Verified {
        guard let start = statements.first else { throw DeviceChainError.malformed(index: nil, reason: "an empty chain") }
        var walk = Walk(user: user, primitives: primitives)
        var rest = statements[...]
        let fromCheckpoint = start.sequence != 0 && start.isCheckpoint
        if fromCheckpoint {
            guard let pinned, start.sequence <= pinned.sequence else {
                throw DeviceChainError.unanchoredCheckpoint(sequence: start.sequence, pinned: pinned?.sequence)
            }
            try walk.start(at: start)
            rest = rest.dropFirst()
        }
        var refused: DeviceChainError?
        for statement in rest {
            // A chain with no checkpoint says how long it is, as before checkpoints.
            if walk.first == 0, walk.checkpoints == 0, walk.segmentStatements >= maxStatements, !statement.isCheckpoint {
                refused = .malformed(index: Int(clamping: walk.next), reason: "\(statements.count) statements (the limit is \(maxStatements))")
                break
            }
            do {
                try walk.take(statement)
            } catch let error as DeviceChainError where walk.taken > 0 {
                refused = error
                break
            }
        }
        let verified = refused.map { walk.verified(refusing: $0) } ?? walk.verified
        // From a checkpoint, the pin is what makes it trusted: checked here, on what
        // verified (a tail left out included), never left to the caller.
        if fromCheckpoint, let pinned { try check(Array(statements.prefix(verified.count)), extend: pinned, using: primitives) }
        return verified
    }

    /// Checks that verified `statements` extend `pinned`: they reach it, and hold the
    /// pinned statement (links were verified, so all before it are the pinned ones).
    /// They may start at a checkpoint at or before it.
    public static func check(_ statements: [Statement], extend pinned: Head, using primitives: Primitives) throws {
        let first = statements.first?.sequence ?? 0
        guard first <= pinned.sequence else { throw DeviceChainError.unanchoredCheckpoint(sequence: first, pinned: pinned.sequence) }
        let index = pinned.sequence - first
        guard index < UInt64(statements.count) else {
            let served = statements.last?.sequence ?? 0
            throw DeviceChainError.rolledBack(pinned: pinned.sequence, served: served)
        }
        guard primitives.sha256(statements[Int(index)].encoded) == pinned.hash else {
            throw DeviceChainError.forked(sequence: pinned.sequence)
        }
    }

    /// The verifier a statement at a time, from the root: for a caller that appends many
    /// statements and keeps the state between them instead of walking the chain again.
    /// `take` refuses exactly what `verify` refuses, and leaves the state as it was.
    public struct Verifier: Sendable {
        var walk: Walk
        public init(user: String, using primitives: Primitives) { walk = Walk(user: user, primitives: primitives) }
        public mutating func take(_ statement: Statement) throws {
            var next = walk
            try next.take(statement)
            walk = next
        }
        /// What the statements taken say.
        public var verified: Verified { walk.verified }
    }

    /// One pass over a chain, a statement at a time; `take` throws on the first
    /// statement that does not verify and leaves the state of the ones before it.
    struct Walk {
        let user: String
        let primitives: Primitives
        var live: [String: DeviceEntry] = [:]
        /// Live send-only devices: never signers of the chain, never counted as its last device.
        var senders: [String: DeviceEntry] = [:]
        /// The live recovery key: signs new readers' adds only, never counted as a device.
        var recovery: DeviceEntry?
        var previousHash = [UInt8](repeating: 0, count: DeviceChain.hashCount)
        var root: DeviceEntry?
        var rootTimestamp: Int64 = 0
        /// The sequence number the next statement must have.
        var next: UInt64 = 0
        /// Where the walk started (0, or the checkpoint it started from).
        var first: UInt64 = 0
        /// How many statements this walk took, and how many of them were checkpoints.
        var taken = 0
        var checkpoints = 0
        /// The segment at the head: statements and bytes since the last checkpoint.
        var segmentStatements = 0
        var segmentBytes = 0

        init(user: String, primitives: Primitives) {
            self.user = user
            self.primitives = primitives
        }

        var verified: Verified {
            Verified(user: user, rootKey: root?.signingKey ?? [], devices: live,
                     head: Head(sequence: next == 0 ? 0 : next - 1, hash: previousHash),
                     first: first, root: root, rootTimestamp: rootTimestamp,
                     segmentStatements: segmentStatements, segmentBytes: segmentBytes, senders: senders, recovery: recovery)
        }

        func verified(refusing error: DeviceChainError) -> Verified {
            var verified = self.verified
            verified.refusedTail = error
            return verified
        }

        /// The statement decoded again from its bytes, as canonical, within its bounds.
        func canonical(_ statement: Statement, index: Int) throws -> [UInt8] {
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
            guard statement.user == user else { throw DeviceChainError.wrongUser(index: index, expected: user, found: statement.user) }
            return encoded
        }

        /// Starts the walk at a checkpoint the caller holds to its pin: the state is the
        /// one it restates, and it must be signed by one of the devices it restates.
        mutating func start(at statement: Statement) throws {
            let index = Int(clamping: statement.sequence)
            let encoded = try canonical(statement, index: index)
            guard case .checkpoint(let checkpoint) = statement.action else {
                throw DeviceChainError.badSequence(index: index, found: statement.sequence)
            }
            guard let signer = checkpoint.devices.first(where: { $0.id == statement.signer }) else {
                throw DeviceChainError.signerNotLive(index: index, signer: statement.signer)
            }
            guard !signer.sendOnly else { throw DeviceChainError.sendOnlySigner(index: index, signer: statement.signer) }
            guard !signer.recovery else { throw DeviceChainError.recoverySigner(index: index, signer: statement.signer) }
            guard primitives.verifyEd25519(statement.signature, statement.signedMessage, signer.signingKey) else {
                throw DeviceChainError.badSignature(index: index)
            }
            guard !checkpoint.root.sendOnly, !checkpoint.root.recovery else {
                throw DeviceChainError.checkpointMismatch(index: index, reason: "restates a send-only or recovery root")
            }
            let recoveries = checkpoint.devices.filter(\.recovery)
            guard recoveries.count <= 1 else { throw DeviceChainError.checkpointMismatch(index: index, reason: "restates two recovery keys") }
            recovery = recoveries.first
            live = Dictionary(uniqueKeysWithValues: checkpoint.devices.filter { !$0.sendOnly && !$0.recovery }.map { ($0.id, $0) })
            senders = Dictionary(uniqueKeysWithValues: checkpoint.devices.filter(\.sendOnly).map { ($0.id, $0) })
            root = checkpoint.root
            rootTimestamp = checkpoint.rootTimestamp
            first = statement.sequence
            next = statement.sequence + 1
            previousHash = primitives.sha256(encoded)
            segmentStatements = 1
            segmentBytes = encoded.count
            taken = 1
        }

        mutating func take(_ statement: Statement) throws {
            let index = Int(clamping: next)
            let encoded = try canonical(statement, index: index)
            if statement.isCheckpoint {
                guard encoded.count <= DeviceChain.maxChainBytes else {
                    throw DeviceChainError.malformed(index: index, reason: "the chain is larger than \(DeviceChain.maxChainBytes) bytes")
                }
            } else {
                guard segmentStatements < DeviceChain.maxStatements else {
                    throw DeviceChainError.malformed(index: index, reason: "more than \(DeviceChain.maxStatements) statements")
                }
                guard encoded.count <= DeviceChain.maxStatementBytes, segmentBytes + encoded.count <= DeviceChain.maxChainBytes else {
                    throw DeviceChainError.malformed(index: index, reason: "the chain is larger than \(DeviceChain.maxChainBytes) bytes")
                }
            }
            guard statement.sequence == next else { throw DeviceChainError.badSequence(index: index, found: statement.sequence) }
            guard statement.previous == previousHash else { throw DeviceChainError.brokenLink(index: index) }
            let signerKey: [UInt8]
            if next == 0 {
                guard case .add(let device) = statement.action, device.id == statement.signer else {
                    throw DeviceChainError.badRoot(reason: "the first statement must add the device that signs it")
                }
                guard !device.sendOnly, !device.recovery else { throw DeviceChainError.badRoot(reason: "a send-only device or a recovery key cannot start a chain") }
                signerKey = device.signingKey
            } else {
                // A send-only device signs its own pushes, never a statement: an intruder on
                // a server cannot add a reader of their own (issue 48).
                if senders[statement.signer] != nil { throw DeviceChainError.sendOnlySigner(index: index, signer: statement.signer) }
                // The recovery key approves a new reader, and does nothing else: it cannot
                // remove a device, add a send-only device or another recovery key, or
                // checkpoint (issue 49). A revoked one is not live (signerNotLive).
                if let recovery, recovery.id == statement.signer {
                    guard case .add(let device) = statement.action, !device.sendOnly, !device.recovery else {
                        throw DeviceChainError.recoverySigner(index: index, signer: statement.signer)
                    }
                    signerKey = recovery.signingKey
                } else {
                    guard let signer = live[statement.signer] else { throw DeviceChainError.signerNotLive(index: index, signer: statement.signer) }
                    signerKey = signer.signingKey
                }
            }
            guard primitives.verifyEd25519(statement.signature, statement.signedMessage, signerKey) else {
                throw DeviceChainError.badSignature(index: index)
            }
            switch statement.action {
            case .add(let device):
                guard live[device.id] == nil, senders[device.id] == nil, recovery?.id != device.id else {
                    throw DeviceChainError.duplicate(index: index, reason: "device \(device.id) is already in the chain")
                }
                guard !live.values.contains(where: { $0.signingKey == device.signingKey }),
                      !senders.values.contains(where: { $0.signingKey == device.signingKey }),
                      recovery?.signingKey != device.signingKey else {
                    throw DeviceChainError.duplicate(index: index, reason: "its signing key is already another live device's")
                }
                // A new recovery key replaces the live one: one statement, so there is
                // never a moment with two, nor with none (docs/device-chain.md).
                if device.recovery { recovery = device } else if device.sendOnly { senders[device.id] = device } else { live[device.id] = device }
                if next == 0 { (root, rootTimestamp) = (device, statement.timestamp) }
            case .remove(let id):
                if recovery?.id == id {
                    recovery = nil
                    break
                }
                if senders[id] != nil {
                    senders[id] = nil
                    break
                }
                guard live[id] != nil else { throw DeviceChainError.duplicate(index: index, reason: "device \(id) is not live") }
                guard live.count > 1 else { throw DeviceChainError.duplicate(index: index, reason: "it would remove the last device") }
                live[id] = nil
            case .checkpoint(let checkpoint):
                // Exactly the state computed here: the root, and every live device as it is.
                guard checkpoint.root == root, checkpoint.rootTimestamp == rootTimestamp else {
                    throw DeviceChainError.checkpointMismatch(index: index, reason: "restates another root")
                }
                let state = Array(live.values) + Array(senders.values) + (recovery.map { [$0] } ?? [])
                guard checkpoint.devices == state.sorted(by: { $0.id < $1.id }) else {
                    throw DeviceChainError.checkpointMismatch(index: index, reason: "does not restate the live devices (\(state.count)) as they are")
                }
            }
            if statement.isCheckpoint {
                (segmentStatements, segmentBytes) = (0, 0)
                checkpoints += 1
            }
            segmentStatements += 1
            segmentBytes += encoded.count
            previousHash = primitives.sha256(encoded)
            next += 1
            taken += 1
        }
    }
}
