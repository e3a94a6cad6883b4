/// The first error any of several threads met; later ones are dropped (they are
/// usually consequences of the first, such as a cancelled queue).
final class FirstError: @unchecked Sendable {
    // Sendable: `error` is only touched under `lock`.
    private let lock = PThreadMutex()
    private var error: Error?

    init() {}

    /// Keeps `value` unless an error is already kept.
    func set(_ value: Error) { lock.withLock { if error == nil { error = value } } }

    func get() -> Error? { lock.withLock { error } }
}
