import VFSPolicyModel

/// Request bodies reject keys they do not know: a typo must not silently do less.
extension Decoder {
    func rejectUnknownKeys<Keys: CodingKey & CaseIterable>(_ known: Keys.Type) throws {
        try AnyKey.rejectUnknownKeys(in: self, known: known)
    }
}
