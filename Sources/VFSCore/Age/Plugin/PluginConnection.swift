#if canImport(Glibc)
import Glibc
#endif

/// One run of a plugin (C2SP age-plugin, as age's plugin/client.go speaks it): the
/// client's commands (phase 1), then the plugin's, each answered (phase 2). Messages
/// are stanzas in the age header's grammar. Every message is bounded in size, all the
/// plugin says together too, and the plugin's time (`PluginHost.timeout`, time spent
/// waiting for the user not counted): a hostile plugin can't hang or balloon the tool.
/// Whatever ends the run, the plugin is gone when it returns.
final class PluginConnection {
    /// The longest line a plugin may send (LF not counted): the header's limit.
    static let maxLineLength = Header.maxLineLength
    /// The largest message a plugin may send.
    static let maxMessageSize = 1 << 20
    /// All a plugin may send in one run.
    static let maxTotalSize = Header.maxSize

    let name: String
    private let host: PluginHost
    private let pid: pid_t
    private var toPlugin: Int32
    private var fromPlugin: Int32
    private let reader: BufferedSource
    private let pipe: PluginOutput
    private var ended = false

    /// Starts `age-plugin-NAME --age-plugin=STATE_MACHINE` from PATH.
    private init(name: String, stateMachine: String, host: PluginHost) throws {
        guard AgePlugin.isValidName(name) else {
            throw AgeError.invalidKey("invalid plugin name \(quoted(Array(name.utf8))): only letters, digits and +-._")
        }
        let program = AgePlugin.programName(name)
        guard let path = ChildProcess.find(program, path: host.path) else { throw PluginError.notFound(name: name) }
        var stdin: [Int32] = [-1, -1], stdout: [Int32] = [-1, -1]
        guard KeychainAgent.makePipe(&stdin) else { throw PluginError.cannotStart(name: name, reason: "cannot create a pipe") }
        guard KeychainAgent.makePipe(&stdout) else {
            close(stdin[0]); close(stdin[1])
            throw PluginError.cannotStart(name: name, reason: "cannot create a pipe")
        }
        var streams = ChildProcess.Streams()
        streams.input = stdin[0]
        streams.output = stdout[1]
        streams.discardErrors = true
        // Its group is ended with it: nothing a plugin starts outlives the run.
        streams.ownProcessGroup = true
        do {
            pid = try ChildProcess.spawn(path, [program, "--age-plugin=" + stateMachine], streams: streams)
        } catch {
            stdin.forEach { close($0) }; stdout.forEach { close($0) }
            throw PluginError.cannotStart(name: name, reason: "\(error)")
        }
        close(stdin[0]); close(stdout[1])
        for fd in [stdin[1], stdout[0]] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        self.name = name
        self.host = host
        toPlugin = stdin[1]
        fromPlugin = stdout[0]
        pipe = PluginOutput(fd: stdout[0], budget: PluginBudget(seconds: host.timeout, name: name))
        reader = BufferedSource(pipe)
    }

    deinit { end(normally: false) }

    // MARK: the two state machines

    /// recipient-v1: the plugin wraps `fileKey` for `recipient`; its stanzas and labels.
    static func wrap(fileKey: SecretBytes, for recipient: PluginRecipient, host: PluginHost) throws -> (stanzas: [Stanza], labels: Set<String>) {
        let connection = try PluginConnection(name: recipient.name, stateMachine: "recipient-v1", host: host)
        defer { connection.end(normally: false) }
        try connection.send(Stanza(type: recipient.isIdentity ? "add-identity" : "add-recipient", arguments: [recipient.encoding], body: []))
        try connection.sendGrease()
        var key = fileKey.withUnsafeBytes { Array($0) }
        defer { key.wipe() }
        try connection.send(Stanza(type: "wrap-file-key", arguments: [], body: key))
        try connection.send(Stanza(type: "extension-labels", arguments: [], body: []))
        try connection.send(Stanza(type: "done", arguments: [], body: []))
        var stanzas: [Stanza] = []
        var labels: Set<String>?
        while true {
            let message = try connection.receive()
            switch message.type {
            case "recipient-stanza":
                guard message.arguments.count >= 2 else { throw connection.misbehaved("sent a recipient-stanza without a stanza type") }
                // One file key is sent, so its index is 0.
                guard message.arguments[0] == "0" else {
                    throw connection.misbehaved("sent a recipient-stanza for file key \(quoted(Array(message.arguments[0].utf8))), not 0")
                }
                stanzas.append(Stanza(type: message.arguments[1], arguments: Array(message.arguments.dropFirst(2)), body: message.body))
                try connection.send(.ok)
            case "labels":
                guard labels == nil else { throw connection.misbehaved("sent its labels twice") }
                labels = Set(message.arguments)
                try connection.send(.ok)
            case "error":
                try connection.send(.ok)
                throw PluginError.failed(name: connection.name, message: connection.errorText(message))
            case "done":
                guard !stanzas.isEmpty else { throw connection.misbehaved("returned no recipient stanza") }
                connection.end(normally: true)
                return (stanzas, labels ?? [])
            default:
                try connection.interact(message)
            }
        }
    }

    /// identity-v1: the plugin is given `identity` and every stanza of the header; the
    /// file key if one is for it, nil if none is.
    static func unwrap(stanzas: [Stanza], with identity: PluginIdentity, host: PluginHost) throws -> SecretBytes? {
        let connection = try PluginConnection(name: identity.name, stateMachine: "identity-v1", host: host)
        defer { connection.end(normally: false) }
        try connection.send(Stanza(type: "add-identity", arguments: [identity.encoding], body: []))
        try connection.sendGrease()
        for stanza in stanzas {
            try connection.send(Stanza(type: "recipient-stanza", arguments: ["0", stanza.type] + stanza.arguments, body: stanza.body))
        }
        try connection.send(Stanza(type: "done", arguments: [], body: []))
        var fileKey: SecretBytes?
        while true {
            var message = try connection.receive()
            switch message.type {
            case "file-key":
                guard message.arguments == ["0"] else {
                    throw connection.misbehaved("sent a malformed file-key (arguments \(quoted(Array(message.arguments.joined(separator: " ").utf8))), not 0)")
                }
                guard fileKey == nil else { throw connection.misbehaved("sent the file key twice") }
                guard message.body.count == WrappedFileKey.fileKeyCount else {
                    throw connection.misbehaved("sent a file key of \(message.body.count) bytes, not \(WrappedFileKey.fileKeyCount)")
                }
                fileKey = SecretBytes(copying: message.body)
                message.body.wipe()
                try connection.send(.ok)
            case "error":
                try connection.send(.ok)
                throw PluginError.failed(name: connection.name, message: connection.errorText(message))
            case "done":
                connection.end(normally: true)
                return fileKey
            default:
                try connection.interact(message)
            }
        }
    }

    // MARK: the user

    /// `msg`, `request-public`, `request-secret`, `confirm`; `unsupported` for anything
    /// else (grease, or a command of a newer version).
    private func interact(_ message: Stanza) throws {
        let ui = host.interaction
        switch message.type {
        case "msg":
            ui.show(plugin: name, message: String(decoding: message.body, as: UTF8.self))
            try send(.ok)
        case "request-public", "request-secret":
            let prompt = String(decoding: message.body, as: UTF8.self)
            // The user's time is not the plugin's: only waits on the plugin count.
            let answer = try ui.ask(plugin: name, prompt: prompt, secret: message.type == "request-secret")
            guard let answer else { throw PluginError.noTerminal(name: name, prompt: prompt) }
            var bytes = answer.withUnsafeBytes { Array($0) }
            defer { bytes.wipe() }
            try send(Stanza(type: "ok", arguments: [], body: bytes))
        case "confirm":
            guard (1...2).contains(message.arguments.count),
                  let yes = Base64.decode(Array(message.arguments[0].utf8)) else {
                throw misbehaved("sent a malformed confirm")
            }
            var no: [UInt8]?
            if message.arguments.count == 2 {
                guard let decoded = Base64.decode(Array(message.arguments[1].utf8)) else { throw misbehaved("sent a malformed confirm") }
                no = decoded
            }
            let prompt = String(decoding: message.body, as: UTF8.self)
            let choice = try ui.confirm(plugin: name, prompt: prompt, yes: String(decoding: yes, as: UTF8.self),
                                        no: no.map { String(decoding: $0, as: UTF8.self) })
            guard let choice else { throw PluginError.noTerminal(name: name, prompt: prompt) }
            try send(Stanza(type: "ok", arguments: [choice ? "yes" : "no"], body: []))
        default:
            try send(Stanza(type: "unsupported", arguments: [], body: []))
        }
    }

    // MARK: messages

    /// A plugin's `error` (`error recipient N`, `error identity N`, `error internal`):
    /// its body, which says what happened.
    private func errorText(_ message: Stanza) -> String {
        let text = String(decoding: message.body, as: UTF8.self)
        return text.isEmpty ? "failed (\(message.arguments.joined(separator: " ")))" : text
    }

    private func misbehaved(_ reason: String) -> PluginError { .misbehaved(name: name, reason: reason) }

    /// As age's client: sometimes a command the plugin must ignore, with random
    /// arguments and body, so plugins stay tolerant of new commands.
    private func sendGrease() throws {
        var random = try SecureRandom.bytes(4)
        guard random[0] % 3 != 0 else { return }
        let arguments = (0..<Int(random[1] % 3)).map { String($0 * 37 % 100) }
        let body = try random[2] % 2 == 0 ? SecureRandom.bytes(Int(random[3] % 100)) : []
        random.wipe()
        try send(Stanza(type: "grease-" + Base64.encode(try SecureRandom.bytes(6)).filter { $0.isLetter || $0.isNumber }, arguments: arguments, body: body))
    }

    private func send(_ stanza: Stanza) throws {
        var bytes = stanza.encoded
        defer { bytes.wipe() }
        // A plugin that exits without reading must not kill us with SIGPIPE.
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        var written = 0
        while written < bytes.count {
            try pipe.budget.wait(for: toPlugin, events: Int16(POLLOUT))
            let n = bytes.withUnsafeBytes { buffer in
                retryingEINTR { Glibc.write(toPlugin, buffer.baseAddress! + written, buffer.count - written) }
            }
            if n < 0 {
                if errno == EAGAIN { continue }
                throw exitedEarly()
            }
            written += n
        }
    }

    /// The plugin's next message, within the bounds.
    private func receive() throws -> Stanza {
        var size = 0
        func line() throws -> [UInt8] {
            var line = try reader.readLine(maxLength: Self.maxLineLength)
            guard line.last == 0x0A else {
                if line.count > Self.maxLineLength { throw misbehaved("sent a line longer than \(Self.maxLineLength) bytes") }
                throw exitedEarly()
            }
            size += line.count
            guard size <= Self.maxMessageSize else { throw misbehaved("sent a message larger than \(Self.maxMessageSize >> 20) MiB") }
            line.removeLast()
            return line
        }
        let first = try line()
        guard first.starts(with: Array("-> ".utf8)) else { throw misbehaved("sent \(quoted(first)) where a command was expected") }
        do {
            return try Stanza.parse(first, bodyLine: line)
        } catch AgeError.header(let why) {
            throw misbehaved("sent a malformed message: \(why)")
        }
    }

    /// The plugin closed its side before the exchange was over.
    private func exitedEarly() -> PluginError {
        if pipe.overTotal { return misbehaved("sent more than \(Self.maxTotalSize >> 20) MiB") }
        end(normally: false)
        return misbehaved("exited before it finished")
    }

    /// Ends the run: after `done`, the plugin is given a moment to exit by itself;
    /// otherwise, or if it lingers, it is killed. Always reaped.
    func end(normally: Bool) {
        guard !ended else { return }
        ended = true
        close(toPlugin)
        close(fromPlugin)
        if normally {
            // Up to a second to exit once its input is closed (not reaped yet: its group
            // is ended first, whatever it left running).
            for _ in 0..<100 {
                if ChildProcess.hasExited(pid) { break }
                var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
                nanosleep(&pause, nil)
            }
        }
        _ = ChildProcess.endGroup(pid)
    }
}

extension Stanza {
    static let ok = Stanza(type: "ok", arguments: [], body: [])
}

/// The time a plugin has left, spent only while waiting on it (not while the user
/// answers its questions).
final class PluginBudget {
    private let seconds: Int
    private let name: String
    private var remaining: Double

    init(seconds: Int, name: String) {
        self.seconds = seconds
        self.name = name
        remaining = Double(seconds)
    }

    private static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Waits until `fd` is ready for `events` (or has hung up), counting the time.
    func wait(for fd: Int32, events: Int16) throws {
        var poller = pollfd(fd: fd, events: events, revents: 0)
        while true {
            guard remaining > 0 else { throw PluginError.timedOut(name: name, seconds: seconds) }
            let start = Self.now()
            let ready = poll(&poller, 1, Int32(min(remaining, 3600) * 1000) + 1)
            remaining -= Self.now() - start
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { return }
        }
    }
}

/// The plugin's standard output, read within its time and the total bound.
final class PluginOutput: ByteSource {
    private let fd: Int32
    let budget: PluginBudget
    private var total = 0
    private(set) var overTotal = false

    init(fd: Int32, budget: PluginBudget) {
        self.fd = fd
        self.budget = budget
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            try budget.wait(for: fd, events: Int16(POLLIN))
            let n = retryingEINTR { Glibc.read(fd, buffer.baseAddress, buffer.count) }
            if n < 0 && errno == EAGAIN { continue }
            guard n > 0 else { return 0 }
            total += n
            // Past the bound, the rest is not read: the plugin is treated as ended.
            if total > PluginConnection.maxTotalSize { overTotal = true; return 0 }
            return n
        }
    }
}
