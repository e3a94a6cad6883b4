// age-plugin-vfstest: an age plugin for the tests (C2SP age-plugin, plugin side).
// It wraps file keys with one fixed X25519 key under a stanza type of its own
// ("vfstest"), asks one request-secret (the PIN "1234") before unwrapping, and
// misbehaves when VFSTEST_MISBEHAVE says how: wrong-stanza, early-exit,
// unknown-command, huge, hang, scrypt-beside (an scrypt stanza beside its own),
// child (leaves a `sleep 300` of its own running, logged as "child PID"). Never installed: a test-only executable target.
//
//   age-plugin-vfstest --recipient      prints its recipient (age1vfstest1…)
//   age-plugin-vfstest --identity       prints an identity file with its stub
//
// VFSTEST_NO_PIN=1: no request-secret (for age, which has no terminal in the tests).
// VFSTEST_LABELS="a b": the labels it gives when the client asks (extension-labels).
// VFSTEST_LOG=PATH: appends its pid, then each command the client sent (its type), to PATH.
import VFSCore
#if canImport(Glibc)
import Glibc
#endif

// Its name is its program's: a link named age-plugin-other serves "other" (several plugins in one test).
let name = String((CommandLine.arguments[0].split(separator: "/").last ?? "age-plugin-vfstest").dropFirst("age-plugin-".count))
let stanzaType = "vfstest"
let pin = "1234"
let key = try! X25519Identity(secretKey: SecretBytes(copying: [UInt8](repeating: 0x42, count: 32)))
let environment = VFSPaths.current.environment
let misbehaviour = environment["VFSTEST_MISBEHAVE"] ?? ""

nonisolated(unsafe) let input = BufferedSource(FileDescriptorSource(fd: 0, name: "stdin"))

func fail(_ message: String) -> Never {
    try? writeAll(fd: 2, Array("age-plugin-\(name): \(message)\n".utf8))
    exit(1)
}

func log(_ type: String) {
    guard let path = environment["VFSTEST_LOG"] else { return }
    let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
    try? writeAll(fd: fd, Array((type + "\n").utf8))
    close(fd)
}

func line() -> [UInt8] {
    guard let line = try? input.readLine(), line.last == 0x0A else { exit(0) }
    return Array(line.dropLast())
}

func receive() -> Stanza {
    let first = line()
    guard first.starts(with: Array("-> ".utf8)), let stanza = try? Stanza.parse(first, bodyLine: line) else {
        fail("malformed command from the client")
    }
    log(stanza.type)
    return stanza
}

func send(_ type: String, _ arguments: [String] = [], body: [UInt8] = []) {
    do { try writeAll(fd: 1, Stanza(type: type, arguments: arguments, body: body).encoded) } catch { exit(1) }
}

/// Sends a command and returns the client's answer.
func ask(_ type: String, _ arguments: [String] = [], body: [UInt8] = []) -> Stanza {
    send(type, arguments, body: body)
    return receive()
}

/// Phase 1: the client's commands up to `done`, grease ignored.
func phaseOne() -> [Stanza] {
    var commands: [Stanza] = []
    while true {
        let stanza = receive()
        if stanza.type == "done" { return commands }
        commands.append(stanza)
    }
}

/// The misbehaviours that don't depend on the state machine; true if one ran.
func misbehave() {
    switch misbehaviour {
    case "early-exit": exit(3)
    case "hang": while true { sleep(1000) }
    case "huge":
        send("msg", body: Array("flood".utf8))
        _ = receive()
        // One message whose body never ends: 64-column lines, 64 KiB at a time.
        guard (try? writeAll(fd: 1, Array("-> msg\n".utf8))) != nil else { exit(1) }
        let row = [UInt8](repeating: UInt8(ascii: "A"), count: 64) + [0x0A]
        let flood = Array([[UInt8]](repeating: row, count: 1024).joined())
        while true { guard (try? writeAll(fd: 1, flood)) != nil else { exit(1) } }
    case "unknown-command":
        let answer = ask("frobnicate", ["now"])
        send("error", ["internal"], body: Array("the client answered \(answer.type) to an unknown command".utf8))
        _ = receive()
        exit(0)
    default: return
    }
}

func recipientV1() {
    let commands = phaseOne()
    misbehave()
    let targets = commands.filter { $0.type == "add-recipient" || $0.type == "add-identity" }
    for (index, target) in targets.enumerated() {
        let ok = target.type == "add-identity"
            ? (try? PluginIdentity(target.arguments.first ?? ""))?.name == name
            : target.arguments.first == AgePlugin.encodeRecipient(name: name, data: key.recipient.publicKey)
        if !ok {
            _ = ask("error", [target.type == "add-identity" ? "identity" : "recipient", String(index)], body: Array("not a vfstest key".utf8))
            return
        }
    }
    if commands.contains(where: { $0.type == "extension-labels" }), let labels = environment["VFSTEST_LABELS"] {
        _ = ask("labels", labels.split(separator: " ").map(String.init))
    }
    for (fileIndex, wrap) in commands.filter({ $0.type == "wrap-file-key" }).enumerated() {
        for _ in targets {
            let stanza = try! key.recipient.wrap(fileKey: SecretBytes(copying: wrap.body))[0]
            let index = misbehaviour == "wrong-stanza" ? String(fileIndex + 1) : String(fileIndex)
            _ = ask("recipient-stanza", [index, stanzaType] + stanza.arguments, body: stanza.body)
            if misbehaviour == "scrypt-beside" {
                // Well-formed on its own (16-byte salt, work factor 10, 32-byte body), but never beside another stanza.
                _ = ask("recipient-stanza", [index, "scrypt", "AAAAAAAAAAAAAAAAAAAAAA", "10"], body: [UInt8](repeating: 7, count: 32))
            }
        }
    }
    send("done")
}

func identityV1() {
    let commands = phaseOne()
    misbehave()
    let ours = commands.filter { $0.type == "recipient-stanza" && $0.arguments.count >= 2 && $0.arguments[1] == stanzaType }
    guard !ours.isEmpty else { send("done"); return }
    _ = ask("msg", body: Array("unwrapping with the vfstest key".utf8))
    if environment["VFSTEST_NO_PIN"] != "1" {
        let answer = ask("request-secret", body: Array("Enter the PIN of vfstest:".utf8))
        guard answer.type == "ok" else {
            _ = ask("error", ["identity", "0"], body: Array("no PIN given".utf8))
            return
        }
        guard answer.body == Array(pin.utf8) else {
            _ = ask("error", ["identity", "0"], body: Array("wrong PIN".utf8))
            return
        }
    }
    for stanza in ours {
        let native = Stanza(type: "X25519", arguments: Array(stanza.arguments.dropFirst(2)), body: stanza.body)
        guard let fileKey = try? key.unwrap(stanzas: [native]) else { continue }
        let body = misbehaviour == "wrong-stanza" ? [UInt8](repeating: 7, count: 5) : fileKey.bytes
        _ = ask("file-key", [stanza.arguments[0]], body: body)
        break
    }
    send("done")
}

let arguments = Array(CommandLine.arguments.dropFirst())
log("pid \(getpid())")
if misbehaviour == "child", arguments.first?.hasPrefix("--age-plugin=") == true {
    var child: pid_t = 0
    let argv: [UnsafeMutablePointer<CChar>?] = [strdup("sleep"), strdup("300"), nil]
    if posix_spawn(&child, "/bin/sleep", nil, nil, argv, environ) == 0 { log("child \(child)") }
}
switch arguments.first {
case "--age-plugin=recipient-v1": recipientV1()
case "--age-plugin=identity-v1": identityV1()
case "--recipient": print(AgePlugin.encodeRecipient(name: name, data: key.recipient.publicKey)!)
case "--identity":
    print("# recipient: \(AgePlugin.encodeRecipient(name: name, data: key.recipient.publicKey)!)")
    print(AgePlugin.encodeIdentity(name: name, data: Array("slot 1".utf8))!)
default: fail("usage: age-plugin-vfstest --recipient | --identity (or run by an age client)")
}
