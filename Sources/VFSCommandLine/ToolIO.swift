import VFSCore
#if canImport(Glibc)
import Glibc
#endif

/// Input and output the way every tool treats them: no path or `-` is stdin/stdout;
/// `-o FILE` appears only when `commit()` is reached.
public enum ToolIO {
    /// What -o does with a symbolic link, for every tool's --help.
    public static let outputLinkNote = "If -o names a symbolic link, the file it points to is replaced and the link is kept; a link owned by another user in a sticky, world-writable folder such as /tmp is refused (exit 73), as the kernel's protected_symlinks refuses it to open(2), unless that user owns the folder. Until it is complete, the output is an unnamed file (O_TMPFILE; a 0600 .FILE.tmp-XXXXXX where the file system has none): a run killed with SIGKILL leaves no plaintext readable by others, and the next run writing FILE removes what it left."

    /// Opens the input; a missing file is exit 66.
    public static func openInput(_ path: String?) throws -> FileDescriptorSource {
        guard let path, path != "-" else { return .standardInput() }
        return try FileDescriptorSource(path: path)
    }

    /// Opens the output. Binary output is refused on a terminal unless `-o -` asked for it.
    public static func openOutput(_ path: String?, binary: Bool, terminalHints: [String] = [],
                                  mode: mode_t? = nil, exclusive: Bool = false) throws -> Output {
        if let path, path != "-" {
            // A device, FIFO or socket (/dev/null, a named pipe) is written in place:
            // renaming over it would replace it with a regular file.
            var info = stat()
            // Another user's link in a sticky, world-writable folder is refused even where
            // the kernel's protected_symlinks is off (OutputLink).
            if !exclusive, lstat(RawName.cString(path), &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK { _ = try OutputLink.resolve(path) }
            if !exclusive, stat(RawName.cString(path), &info) == 0, (info.st_mode & S_IFMT) != S_IFREG, (info.st_mode & S_IFMT) != S_IFDIR {
                let fd = open(RawName.cString(path), O_WRONLY | O_CLOEXEC)
                guard fd >= 0 else { throw ToolError(IOError("cannot open", path: path).description, exit: .cannotCreate) }
                return Output(file: nil, sink: FileDescriptorSink(fd: fd, name: path, owned: true))
            }
            do {
                return Output(file: try AtomicOutputFile(path: path, mode: mode, exclusive: exclusive))
            } catch let error as IOError {
                throw ToolError(error.description, exit: .cannotCreate,
                                hints: error.code == EEXIST ? ["remove it first, or choose another name"] : [])
            }
        }
        if binary && path == nil && Terminal.stdoutIsTerminal {
            throw ToolError("refusing to write binary output to a terminal", exit: .usage,
                            hints: terminalHints + ["use -o FILE, or force it with -o -"])
        }
        return Output(file: nil)
    }

    /// An output: a pending atomic file or stdout.
    public final class Output {
        let file: AtomicOutputFile?
        public let sink: ByteSink

        init(file: AtomicOutputFile?, sink: ByteSink? = nil) {
            self.file = file
            self.sink = file ?? sink ?? FileDescriptorSink.standardOutput()
        }

        /// The output path, or nil for stdout.
        public var path: String? { file?.path }

        /// The descriptor of the output file (nil for stdout or a device).
        var fileDescriptor: Int32? { file?.fd }

        /// Makes the output file appear (no-op for stdout).
        public func commit(exclusive: Bool = false) throws {
            do { try file?.commit(exclusive: exclusive) } catch let error as IOError {
                throw ToolError(error.description, exit: .cannotCreate)
            }
        }

        /// Whether the output can be written again from the start: a pending file can,
        /// stdout and devices can't.
        public var canRewind: Bool { file != nil }

        /// Empties the pending file to write it again.
        public func rewind() throws {
            do { try file?.rewind() } catch let error as IOError { throw ToolError(error.description, exit: .ioError) }
        }

        /// Removes the pending file; used on failure (also happens on deinit).
        public func abandon() { file?.abandon() }
    }
}

/// The toolkit's folders (state, keychain, policy) are private to the user.
public enum PrivateFolder {
    /// The permission bits of the folder at `path` when group or others have any; nil
    /// when it is private (or can't be looked at).
    public static func permissionsOpenToOthers(_ path: String) -> UInt32? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & 0o077 != 0 else { return nil }
        return UInt32(info.st_mode & 0o777)
    }

    /// Creates `path` and missing parents with mode 0700 (73 if it can't).
    public static func make(_ path: String) throws {
        var current = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            current += "/" + part
            if mkdir(current, 0o700) != 0 && errno != EEXIST {
                throw ToolError(IOError("cannot create folder", path: current).description, exit: .cannotCreate)
            }
        }
    }
}
