#if canImport(Glibc)
import Glibc
#endif

/// A failed system call, with the path or stream it was about.
public struct IOError: Error, CustomStringConvertible {
    let operation: String
    public let path: String?
    public let code: Int32

    public init(_ operation: String, path: String? = nil, code: Int32 = errno) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    public var description: String {
        let reason = String(cString: strerror(code)).lowercased()
        if let path { return "\(operation) \"\(path)\": \(reason)" }
        return "\(operation): \(reason)"
    }
}
