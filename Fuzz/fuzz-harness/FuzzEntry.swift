import Foundation
import VFSCore
import VFSRelayProtocol

// libFuzzer harness for the parsers of untrusted input (VFSCore's `FuzzTarget`, and
// `relay-headers`: the relay's parsers of client-sent header numbers), built only with
// `VFS_FUZZ=1` and the fuzzer and address sanitizers (`make fuzz`):
//
//     fuzz-harness TARGET [libFuzzer options] [CORPUS…]
//
// libFuzzer's own main runs it: the first argument names the target and is taken out
// in LLVMFuzzerInitialize, which libFuzzer calls before it reads its options.

/// The target for this run; written once in LLVMFuzzerInitialize, before libFuzzer
/// calls LLVMFuzzerTestOneInput (on one thread, or one per forked job).
nonisolated(unsafe) var selectedTarget: (([UInt8]) -> Void)?

/// The relay's header numbers (Range, tus, Content-Length): VFSRelayProtocol, not VFSCore.
let relayHeaders = "relay-headers"

func target(named name: String) -> (([UInt8]) -> Void)? {
    if name == relayHeaders { return HeaderNumbers.exercise }
    return FuzzTarget(rawValue: name).map { target in { target.run($0) } }
}

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<Int32>,
                             _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> Int32 {
    let count = Int(argc.pointee)
    guard count > 1, let arguments = argv.pointee, let first = arguments[1],
          let target = target(named: String(cString: first)) else {
        let names = (FuzzTarget.allCases.map(\.rawValue) + [relayHeaders]).joined(separator: ", ")
        FileHandle.standardError.write(Data("fuzz-harness: error: name a target first (\(names))\n".utf8))
        exit(64)
    }
    selectedTarget = target
    // Drop the target name: libFuzzer parses what follows as usual.
    for index in 1..<count { arguments[index] = arguments[index + 1] }
    argc.pointee -= 1
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    selectedTarget?(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
