import ArgumentParser
import VFSCore
#if canImport(Glibc)
import Glibc
#endif

/// A progress line on stderr for long work, shown only when stderr is a terminal.
public final class ProgressBar: @unchecked Sendable {
    // Sendable: update() may run on a pipeline thread; its state is guarded by `lock`.
    private let total: Int?
    private let label: String
    private let lock = PThreadMutex()
    private var lastDraw: Double = 0
    private var drawn = false

    /// nil when the bar should not be shown (quiet, no terminal, or short work).
    public static func make(label: String, total: Int?, quiet: Bool) -> ProgressBar? {
        guard !quiet, Terminal.stderrIsTerminal else { return nil }
        if let total, total < 16 << 20 { return nil }
        return ProgressBar(label: label, total: total)
    }

    init(label: String, total: Int?) {
        self.label = label
        self.total = total
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    public func update(_ done: Int) {
        lock.withLock {
            let t = Self.now()
            guard t - lastDraw >= 0.1 else { return }
            lastDraw = t
            drawn = true
            var line = "\r\(label) \(Self.size(done))"
            if let total, total > 0 {
                let fraction = min(1, Double(done) / Double(total))
                let width = 30
                let filled = Int(fraction * Double(width))
                line += " / \(Self.size(total)) [" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] \(Int(fraction * 100))%"
            }
            Diagnostics.writeStandardError(line + "\u{1B}[K")
        }
    }

    /// The bar's update function, for VFSCore's progress parameters.
    public var callback: @Sendable (Int) -> Void { { [self] done in update(done) } }

    public func finish() {
        lock.withLock { if drawn { Diagnostics.writeStandardError("\r\u{1B}[K") } }
    }

    public static func size(_ bytes: Int) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 { value /= 1024; unit += 1 }
        return unit == 0 ? "\(bytes) B" : String(format1(value)) + " " + units[unit]
    }

    private static func format1(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}

/// `-q/--quiet`, for every tool that shows a progress bar.
public struct ProgressOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "No progress bar.")
    public var quiet = false

    public init() {}
}
