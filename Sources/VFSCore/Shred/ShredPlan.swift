#if canImport(Glibc)
import Glibc
#endif

extension ShredOptions {
    /// What the passes will write, for a progress line's total and percentage: the
    /// files named, and with `recursive` the regular files under the folders named (not
    /// crossing links or file systems, as the walk); nil when a filter or a device makes
    /// it unknown up front.
    public func plannedBytes(rawPaths paths: [[UInt8]]) -> Int? {
        var total = 0
        func blocks(_ info: stat) -> Int {
            guard !exact else { return Int(info.st_size) }
            return Overwriter.roundUp(Int(info.st_size), to: max(Int(info.st_blksize), 1))
        }
        /// Regular files under `path`.
        func walk(_ path: [UInt8], device: dev_t) {
            guard let dir = opendir(FileName(raw: path).bytes) else { return }
            defer { closedir(dir) }
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
                if FileName(raw: name).isDotOrDotDot { continue }
                var info = stat()
                let child = path + [UInt8(ascii: "/")] + name
                guard lstat(FileName(raw: child).bytes, &info) == 0, info.st_dev == device else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFREG: total += blocks(info)
                case S_IFDIR: walk(child, device: device)
                default: continue
                }
            }
        }
        for path in paths {
            var info = stat()
            guard lstat(FileName(raw: path).bytes, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFREG: total += blocks(info)
            case S_IFLNK: continue
            case S_IFDIR where recursive && !selection.filters: walk(path, device: info.st_dev)
            default: return nil
            }
        }
        return total * (passes + (zeroPass ? 1 : 0))
    }
}
