import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs `argv` (argv[0] a path) with stdin from /dev/null, stdout and stderr into the
/// file `output` (never a pipe: a server it leaves running would hold a pipe open) and no
/// other descriptor of this process, and
/// waits for it with waitpid (not Foundation's Process, whose wait can hang in a test
/// process busy on every thread). Returns the output and whether it exited with 0.
package func spawnAndWait(_ argv: [String], output: String) throws -> (text: String, succeeded: Bool, status: Int32) {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    // Nothing else this process has open goes with it: a descriptor another thread opened
    // without close-on-exec (Foundation's `Pipe` for a tool's output) would be held by a
    // server it leaves running (pg_ctl's postgres), and that tool's reader would never see
    // the end of its output. (A filtered run hung so: ShredTests waiting on vfs-keychain's
    // pipe, which a PolicyTests postgres held.)
    guard closeFrom(&actions, 3) == 0 else { throw SpawnFailure(description: "cannot set up \(argv[0])'s descriptors") }
    var cArguments = argv.map { strdup($0) } + [nil]
    defer { for pointer in cArguments { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, argv[0], &actions, nil, &cArguments, environ)
    guard spawned == 0 else { throw SpawnFailure(description: "cannot run \(argv[0]): \(String(cString: strerror(spawned)))") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let text = output == "/dev/null" ? "" : ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    return (text, status & 0x7f == 0 && (status >> 8) & 0xff == 0, status)
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34; Debian 12 has 2.36), which
/// its Swift module does not export.
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func closeFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ from: Int32) -> Int32

struct SpawnFailure: Error, CustomStringConvertible {
    let description: String
}
