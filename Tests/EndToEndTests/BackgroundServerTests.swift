import Foundation
import Glibc
import Testing
import VFSTestSupport

/// The fixture relay tests start `vfs-relay serve --listen 127.0.0.1:0` with, tried on
/// small python servers that behave well and badly.
@Suite("background server fixture")
struct BackgroundServerTests {
    static let python = "/usr/bin/python3"

    /// Listens on 127.0.0.1, port 0; says where; greets each connection. `prelude` runs
    /// first; by default it gives SIGTERM its default action (the test runner may ignore
    /// or block it, and children inherit that).
    static func server(prelude: String = "signal.signal(signal.SIGTERM, signal.SIG_DFL); signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])") -> [String] {
        ["-c", """
        import signal, socket, sys
        \(prelude)
        s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(4)
        print("test-server: listening on 127.0.0.1:%d" % s.getsockname()[1], flush=True)
        while True:
            c, _ = s.accept(); c.sendall(b"hello\\n"); c.close()
        """]
    }

    /// Connects to 127.0.0.1:port and reads until the server closes.
    func greeting(port: Int) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(connected == 0)
        var out = [UInt8](), buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            out += buffer[0..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    func isGone(_ pid: pid_t) -> Bool { kill(pid, 0) == -1 && errno == ESRCH }

    @Test("waits for the ready line, exposes the bound port, and stop() ends the process")
    func readyAndStop() throws {
        let server = try BackgroundServer(Self.python, Self.server())
        #expect(server.readyLine.hasPrefix("test-server: listening on 127.0.0.1:"))
        #expect(server.address == "127.0.0.1:\(server.port)" && server.port > 0)
        #expect(try greeting(port: server.port) == "hello\n")
        server.stop()
        #expect(!server.isRunning)
        #expect(server.process.terminationReason == .uncaughtSignal && server.process.terminationStatus == SIGTERM)
        #expect(isGone(server.process.processIdentifier))
        server.stop()
    }

    @Test("a fixture that goes away stops its server")
    func deinitStops() throws {
        var pid: pid_t = 0
        do {
            let server = try BackgroundServer(Self.python, Self.server())
            pid = server.process.processIdentifier
            #expect(kill(pid, 0) == 0)
        }
        #expect(isGone(pid))
    }

    /// A runner killed outright runs no stop() and no deinit: its servers must still end.
    /// The kernel's parent-death signal stands in for the runner's death here: the server is
    /// started the way the fixture starts its servers, from a thread that then ends.
    @Test("a server started as the fixture starts them is killed when the thread that started it ends")
    func parentDeath() throws {
        let process = Process()
        (process.executableURL, process.arguments) = ServerSpawner.command(
            URL(fileURLWithPath: Self.python), Self.server(prelude: "signal.signal(signal.SIGTERM, signal.SIG_IGN)"))
        let out = Pipe()
        process.standardOutput = out
        let started = DispatchSemaphore(value: 0)
        // The thread ends once the server is ready: by then setpriv has set the signal (a
        // thread that ended before would leave nothing to watch).
        let starter = Thread {
            do {
                try process.run()
                var seen = Data()
                while !String(decoding: seen, as: UTF8.self).contains("listening on") {
                    let chunk = out.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    seen.append(chunk)
                }
            } catch { Issue.record("cannot start: \(error)") }
            started.signal()
        }
        starter.start()
        started.wait()
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        #expect(!process.isRunning, "the server outlived the thread that started it")
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
    }

    @Test("a server that ignores SIGTERM is killed after the grace period")
    func killAfterGrace() throws {
        let server = try BackgroundServer(Self.python, Self.server(prelude: "signal.signal(signal.SIGTERM, signal.SIG_IGN)"), grace: 0.2)
        server.stop()
        #expect(server.process.terminationReason == .uncaughtSignal && server.process.terminationStatus == SIGKILL)
    }

    @Test("no ready line in time, or an exit first: start fails with what it wrote, and nothing is left running")
    func notReady() throws {
        #expect { try BackgroundServer(Self.python, ["-c", "import time; print('starting', flush=True); time.sleep(60)"], timeout: 0.5) } throws: { error in
            "\(error)".contains("no ready line within") && "\(error)".contains("starting")
        }
        #expect { try BackgroundServer(Self.python, ["-c", "import sys; sys.stderr.write('bad config\\n'); sys.exit(3)"]) } throws: { error in
            "\(error)".contains("it ended first") && "\(error)".contains("bad config")
        }
        #expect { try BackgroundServer(Self.python, ["-c", "import time; print('listening on nowhere', flush=True); time.sleep(60)"]) } throws: { error in
            "\(error)".contains("no address in")
        }
    }
}
