/// The toolkit's version: the one place it is written.
public let vfsVersion = "0.1.0"
