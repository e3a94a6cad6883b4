import Foundation

/// Runs the built tools as another user (nobody, uid 65534), which takes root. The build
/// folder may lie in a clone that user can't enter (a `mktemp -d` folder, a 0700 or 0750
/// home), so each tool is run from a copy in a folder every user can reach: made once per
/// test run under the temporary folder, and removed when the run ends.
public enum OtherUser {
    public static let uid: uid_t = 65534
    /// setpriv's arguments that become nobody (`setpriv ARGS… TOOL …`).
    public static let setpriv = ["--reuid=65534", "--regid=65534", "--clear-groups"]

    private static let lock = NSLock()
    nonisolated(unsafe) private static var folder: String?
    nonisolated(unsafe) private static var copied = Set<String>()

    /// The path of a copy of the built tool `name` (vfs-…) that nobody can run.
    public static func tool(_ name: String) throws -> String {
        try lock.withLock {
            let folder = try self.folder ?? makeFolder()
            let copy = folder + "/" + name
            if !copied.contains(name) {
                try copyClosedOnExec(Tools.binDir.appendingPathComponent(name).path, to: copy)
                copied.insert(name)
            }
            return copy
        }
    }

    /// Copies `source` to `target` (0755) through a descriptor opened close-on-exec, under a
    /// temporary name renamed at the end: a process another test forks meanwhile does not keep
    /// the copy open for writing, which would make running it fail with ETXTBSY ("Text file busy").
    private static func copyClosedOnExec(_ source: String, to target: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: source))
        let partial = target + ".partial"
        let fd = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        guard fd >= 0 else { throw Unreachable(message: "can't write \(partial): errno \(errno)") }
        let written = data.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let count = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0 { if errno == EINTR { continue }; return false }
                offset += count
            }
            return true
        }
        close(fd)
        guard written, chmod(partial, 0o755) == 0, rename(partial, target) == 0 else {
            throw Unreachable(message: "can't copy \(source) to \(target): errno \(errno)")
        }
    }

    /// `setpriv` and its arguments that run the built `tool` as nobody, for Tools.run.
    public static func arguments(_ tool: String, _ arguments: [String]) throws -> [String] {
        setpriv + [try self.tool(tool)] + arguments
    }

    private static func makeFolder() throws -> String {
        let base = FileManager.default.temporaryDirectory.path
        // Every folder above it must let others through, or the copy is as far out of reach.
        var path = URL(fileURLWithPath: base).standardizedFileURL.resolvingSymlinksInPath().path
        while path != "/" && !path.isEmpty {
            var info = stat()
            if stat(path, &info) == 0, info.st_mode & 0o001 == 0 {
                throw Unreachable(message: "other users can't enter \"\(path)\" (mode \(String(info.st_mode & 0o777, radix: 8))), so the tests that run a tool as nobody can't: set TMPDIR to a folder they can reach, such as /tmp")
            }
            path = (path as NSString).deletingLastPathComponent
        }
        let made = base + "/vfs-other-user-\(getpid())"
        try FileManager.default.createDirectory(atPath: made, withIntermediateDirectories: true)
        chmod(made, 0o755)
        folder = made
        atexit { OtherUser.removeFolder() }
        return made
    }

    private static func removeFolder() {
        if let folder { TestFolder.remove(folder) }
    }

    struct Unreachable: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
