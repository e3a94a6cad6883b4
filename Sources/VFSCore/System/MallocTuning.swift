internal import CLinux

/// malloc's thresholds, for a process that cycles large buffers (vfs-push's sealing and
/// upload go through 1 MiB buffers, up to 24 MiB of them at once).
package enum MallocTuning {
    /// Blocks below `mmapThreshold` bytes come from the heap, and freed memory goes back
    /// to the kernel only past `trimThreshold`: malloc keeps the freed buffers for the
    /// next instead of faulting fresh zeroed pages in. False if glibc refused either.
    @discardableResult
    package static func keepFreed(mmapThreshold: Int, trimThreshold: Int) -> Bool {
        vfs_malloc_keep_freed(Int32(mmapThreshold), Int32(trimThreshold)) != 0
    }
}
