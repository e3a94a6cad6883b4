#if canImport(Glibc)
import Glibc
#endif

/// The command line as the bytes the kernel passed. ArgumentParser hands out Strings,
/// in which every byte that is not UTF-8 became U+FFFD, so two different file names (or
/// a name and a glob) can look the same. A tool that acts on names reads their bytes
/// from here: the values of its options that take one, and its positional arguments,
/// found the way ArgumentParser finds them.
public struct RawArguments: Equatable {
    /// Each value-taking option's values, in order, keyed by the option's long name.
    public private(set) var values: [String: [[UInt8]]] = [:]
    public private(set) var positionals: [[UInt8]] = []
    /// The values and positionals in command-line order (for options whose place among
    /// the operands matters, such as tar's -C).
    public private(set) var sequence: [Item] = []

    /// One value: the option's long name, or nil for a positional argument.
    public struct Item: Equatable {
        public var option: String?
        public var value: [UInt8]
    }

    /// - Parameters:
    ///   - arguments: the arguments after the program name.
    ///   - valueOptions: long name → short letter (or nil) of every option that takes a
    ///     value; every other option is a flag.
    public init(_ arguments: [[UInt8]], valueOptions: [String: Character?]) {
        let shortNames = Dictionary(uniqueKeysWithValues: valueOptions.compactMap { long, short in
            short.flatMap { $0.asciiValue }.map { ($0, long) }
        })
        var i = 0
        var onlyPositionals = false
        func take(_ long: String, _ value: [UInt8]?) {
            if let value {
                values[long, default: []].append(value)
                sequence.append(Item(option: long, value: value))
                return
            }
            i += 1
            if i < arguments.count {
                values[long, default: []].append(arguments[i])
                sequence.append(Item(option: long, value: arguments[i]))
            }
        }
        while i < arguments.count {
            let arg = arguments[i]
            let dash = UInt8(ascii: "-")
            if onlyPositionals || arg.count < 2 || arg[0] != dash {
                positionals.append(arg)
                sequence.append(Item(option: nil, value: arg))
            } else if arg == [dash, dash] {
                onlyPositionals = true
            } else if arg[1] == dash {
                // --name or --name=value
                let body = arg.dropFirst(2)
                let equals = body.firstIndex(of: UInt8(ascii: "="))
                let name = String(decoding: body[..<(equals ?? body.endIndex)], as: UTF8.self)
                if valueOptions[name] != nil { take(name, equals.map { Array(body[($0 + 1)...]) }) }
            } else {
                // A cluster of short flags; a value option takes the rest, or the next argument.
                var j = 1
                while j < arg.count {
                    if let long = shortNames[arg[j]] {
                        take(long, j + 1 < arg.count ? Array(arg[(j + 1)...]) : nil)
                        break
                    }
                    j += 1
                }
            }
            i += 1
        }
    }

    /// This process's arguments.
    public static func current(valueOptions: [String: Character?]) -> RawArguments {
        let arguments = (1..<Int(CommandLine.argc)).compactMap { i -> [UInt8]? in
            guard let arg = CommandLine.unsafeArgv[i] else { return nil }
            return Array(UnsafeBufferPointer(start: arg, count: strlen(arg))).map { UInt8(bitPattern: $0) }
        }
        return RawArguments(arguments, valueOptions: valueOptions)
    }

    /// Whether the raw values decode to what ArgumentParser parsed (the same count, and
    /// each the same text once what is not UTF-8 is replaced).
    public static func agree(_ raw: [[UInt8]], _ parsed: [String]) -> Bool {
        raw.count == parsed.count && zip(raw, parsed).allSatisfy { String(decoding: $0, as: UTF8.self) == $1 }
    }
}
