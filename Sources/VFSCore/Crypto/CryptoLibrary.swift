internal import COpenSSL

/// libcrypto kept whole until the process is gone.
///
/// By default OpenSSL frees its global state (its providers and the algorithms fetched
/// from them) in an `atexit` handler. `exit` runs that handler on the thread that exits
/// while the process's other threads still run: a reader thread that handed its result
/// over and is releasing what it captured (a download's SHA-256 context), or a pool
/// thread finishing a task. Such a thread then frees a context whose algorithm was just
/// freed: glibc aborts with "double free or corruption", or the process dies of SIGSEGV.
/// Measured: under load, `vfs-cloud get` freed a digest context on another thread after
/// its exit had begun (an `LD_PRELOAD` shim counting libcrypto calls made during exit),
/// and two full test runs saw it crash so.
///
/// Every tool asks OpenSSL not to clean up at exit, before any other libcrypto call
/// (`VFSCommand`): the kernel takes the memory back with the process anyway.
package enum CryptoLibrary {
    /// OPENSSL_INIT_NO_ATEXIT; it has effect only on the process's first initialisation,
    /// so it comes first (about 0.02 ms). Should OpenSSL refuse, nothing else changes.
    package static func keepUntilExit() {
        _ = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
    }
}
