import Foundation
import Testing
import VFSTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The tests' `spawnAndWait` (pg_ctl, radosgw): a server it leaves running must not hold
/// a descriptor of the test process, or another test's read of a tool's pipe never ends
/// (ce3d9dd: a filtered run hung 25 minutes on ShredTests, its pipe held by a postgres).
@Suite("test harness: spawnAndWait")
struct SpawnHarnessTests {
    @Test("a child gets stdin from /dev/null and stdout and stderr in the file, and none of the parent's other descriptors, close-on-exec or not")
    func noInheritedDescriptors() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)  // without O_CLOEXEC, as Foundation's Pipe makes them
        defer { close(ends[0]); close(ends[1]) }
        let folder = try TestFolder()
        let output = folder.path("out")
        // The shell lists which of the pipe's two descriptors it holds, then what it has on 0-2.
        let script = "for fd in \(ends[0]) \(ends[1]); do [ -e /proc/$$/fd/$fd ] && echo \"held $fd\"; done; "
            + "readlink /proc/$$/fd/0; echo to-stderr >&2; exit 7"
        let ran = try spawnAndWait(["/bin/sh", "-c", script], output: output)
        let lines = ran.text.split(separator: "\n").map(String.init)
        #expect(!lines.contains { $0.hasPrefix("held") }, "the child held the parent's pipe: \(lines)")
        #expect(lines == ["/dev/null", "to-stderr"])
        #expect(!ran.succeeded)
        #expect((ran.status >> 8) & 0xff == 7)
    }
}
