import VFSCore

/// The one way tools write to stdout: unbuffered (nothing waits in a buffer behind a
/// diagnostic or an exit), and a failed write (a full disk, a closed pipe) throws, so
/// the tool exits 74 instead of reporting success for output that was lost.
public enum StandardOutput {
    public static func write(_ bytes: [UInt8]) throws {
        try FileDescriptorSink.standardOutput().write(bytes)
    }

    public static func write(_ text: String) throws {
        try write(Array(text.utf8))
    }
}
