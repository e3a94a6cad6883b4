import Logging

/// The relay's log handler: swift-log's `StreamLogHandler` lines, with the metadata laid
/// out only when a line is written. `StreamLogHandler` lays its metadata out whenever it
/// is set, and Hummingbird sets a request id on every request's logger, so with the
/// access lines off (the default) each request paid for a text nobody read.
public struct RelayLogHandler: LogHandler {
    /// Writes the lines; its own metadata stays empty until a line is written.
    private var base: StreamLogHandler
    public var metadata: Logger.Metadata = [:]

    /// Lines to standard error, from `level` up.
    public static func standardError(label: String, level: Logger.Level) -> RelayLogHandler {
        RelayLogHandler(StreamLogHandler.standardError(label: label), level: level)
    }

    init(_ base: StreamLogHandler, level: Logger.Level) {
        self.base = base
        self.base.logLevel = level
    }

    public var logLevel: Logger.Level {
        get { base.logLevel }
        set { base.logLevel = newValue }
    }

    public var metadataProvider: Logger.MetadataProvider? {
        get { base.metadataProvider }
        set { base.metadataProvider = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var handler = base
        if !metadata.isEmpty { handler.metadata = metadata }
        handler.log(event: event)
    }
}
