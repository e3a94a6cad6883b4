// swift-tools-version:6.0
import PackageDescription

/// Every tool is one executable product with exactly one target of the same name,
/// depending on VFSCommandLine and VFSCore plus what its entry adds (a relay tool adds
/// its relay library, for instance).
/// Makefile (TOOLS) and PackagingTests read the names from the lines starting `("vfs-`:
/// keep one entry per line, or at least its name on the line that opens it.
let tools: [(name: String, dependencies: [Target.Dependency])] = [
    ("vfs-encrypt", []),
    ("vfs-decrypt", []),
    ("vfs-keygen", []),
    ("vfs-keychain", []),
    ("vfs-policy", ["VFSRelayClient", "VFSRelayCommandLine", "VFSRelayProtocol"]),
    ("vfs-shred", []),
    ("vfs-wrap", ["VFSBundle"]),
    ("vfs-unwrap", ["VFSBundle"]),
    ("vfs-relay", ["VFSRelayServer", "VFSObjectStore", .product(name: "Logging", package: "swift-log")]),
    ("vfs-device", ["VFSRelayClient", "VFSRelayCommandLine", "VFSRelayProtocol"]),
    ("vfs-push", ["VFSRelayClient", "VFSRelayTransfers", "VFSRelayCommandLine", "VFSRelayProtocol", "VFSBundle"]),
    ("vfs-fetch", ["VFSRelayClient", "VFSRelayTransfers", "VFSRelayCommandLine", "VFSRelayProtocol", "VFSBundle"]),
    ("vfs-cloud", ["VFSRelayClient", "VFSRelayCommandLine", "VFSRelayProtocol"]),
    ("vfs-share", ["VFSRelayClient", "VFSRelayCommandLine", "VFSRelayProtocol", "VFSBundle"]),
]

/// A release build's tools carry Swift's standard library and Foundation (the static
/// archives; full Foundation and its ICU data end up only in vfs-relay, the one tool whose
/// objects use them), so an installed tool needs only Debian's libc6, libstdc++6,
/// libgcc-s1, libssl3 and libarchive13. Linked here rather than by `--static-swift-stdlib`,
/// which changes every compile command: the tests, which cannot be linked that way (Swift
/// Testing has no static library), then compile with exactly make build's commands, so
/// make test compiles everything once and tests the files make install copies. A link
/// of objects compiled against the shared libraries' modules names fewer archives than
/// the static modules would, so the ones static Foundation needs are named (twice: they
/// refer to each other). packaging/relink-static.sh does the same for a debug build.
let foundationArchives = ["swiftSynchronization", "_FoundationICU", "CoreFoundation", "Foundation", "FoundationEssentials",
                          "FoundationInternationalization", "_FoundationCShims", "_FoundationCollections"].map { "-l" + $0 }
let staticSwift: [LinkerSetting] = Context.environment["VFS_SHARED_SWIFT"] == "1" ? [] : [
    .unsafeFlags(["-static-stdlib"] + foundationArchives + foundationArchives, .when(platforms: [.linux], configuration: .release)),
]

// Linux only (Glibc, and renameat2, fstatfs, O_DIRECT through CLinux): no platforms line.
let package = Package(
    name: "vfs",
    products: tools.map { .executable(name: $0.name, targets: [$0.name]) },
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CArchive", pkgConfig: "libarchive",
                       providers: [.apt(["libarchive-dev"])]),
        // Linux calls the Glibc module leaves out (renameat2, fstatfs, O_DIRECT).
        .target(name: "CLinux"),
        // The policy item types, shared by VFSCore and the relay (Foundation only).
        .target(name: "VFSPolicyModel"),
        // The device chain's statements, bounds and verifier, shared by VFSCore (the
        // clients) and the relay (Foundation only; each passes its SHA-256 and Ed25519).
        .target(name: "VFSDeviceChain"),
        // Crypto: X-Wing (ML-KEM-768 + X25519) and HPKE for age's post-quantum recipients;
        // OpenSSL 3.0 has no ML-KEM.
        .target(name: "VFSCore", dependencies: [
            "VFSPolicyModel", "VFSDeviceChain", "COpenSSL", "CLinux",
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // Bundles written and opened: pax archives through libarchive, staging,
        // extraction. The manifest and its rules stay in VFSCore (the policy and the
        // fuzz targets read them). Only the tools that make or open a bundle link
        // libarchive (and through it libxml2 and ICU).
        .target(name: "VFSBundle", dependencies: ["VFSCore", "CArchive", "CLinux"]),
        // The relay's wire types: what a client and the server agree on (Foundation only).
        .target(name: "VFSRelayProtocol", dependencies: ["VFSPolicyModel"]),
        // The relay server: stores ciphertext it cannot read, so it never links VFSCore.
        .target(name: "VFSRelayServer", dependencies: [
            "VFSRelayProtocol", "VFSObjectStore", "VFSDeviceChain",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HummingbirdTLS", package: "hummingbird"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
        ],
        // The OpenAPI document, the admin page's stylesheet and the share page's script, compiled in: an installed binary serves them too.
        resources: [.embedInCode("Resources/openapi.yaml"), .embedInCode("Resources/admin.css"), .embedInCode("Resources/share.js")]),
        // S3 for the relay's blobs: an AWS Signature V4 signer and a small S3 client
        // (objects, ranged reads, listing, multipart uploads) over AsyncHTTPClient.
        .target(name: "VFSObjectStore", dependencies: [
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        ]),
        // The relay's client side for vfs-device, vfs-push, vfs-fetch and vfs-cloud: HTTP API,
        // tus uploads, Range downloads, server-sent events, device config, pins, credentials,
        // and the workflows that open no bundle (Transfers/: targets, inbox, outbox; Cloud/:
        // put, get, rekey). No command-line layer: the workflows throw TransferError/CloudError
        // and report through the ClientReport the tool supplies (VFSRelayCommandLine).
        // No VFSBundle: vfs-device, vfs-policy and vfs-cloud load no libarchive.
        .target(name: "VFSRelayClient", dependencies: [
            "VFSRelayProtocol", "VFSCore",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        ]),
        // The transfer workflows that seal and open bundles (send, receive, watch), for
        // vfs-push and vfs-fetch only: the relay client plus VFSBundle (libarchive).
        .target(name: "VFSRelayTransfers", dependencies: ["VFSRelayClient", "VFSRelayProtocol", "VFSCore", "VFSBundle"]),
        .target(name: "VFSCommandLine", dependencies: [
            "VFSCore",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // The relay tools' (vfs-device, vfs-policy, vfs-push, vfs-fetch, vfs-cloud) sessions
        // from RelayCredentialOptions, the workflows' reports on stderr, and the relay client's
        // errors' exit statuses and hints (RelayClientError's too). Kept apart so
        // VFSCommandLine (vfs-encrypt, vfs-decrypt…) stays free of NIO and the relay's types.
        .target(name: "VFSRelayCommandLine", dependencies: ["VFSCommandLine", "VFSRelayClient", "VFSRelayProtocol", "VFSCore"]),
        // Tests only: inflates the zlib-compressed conformance vectors.
        .systemLibrary(name: "CZlib", path: "Tests/CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"])]),
        // Tests only: the temp folder, the process harness, the bundle forger and the
        // background-server fixture every test target shares. CArchive: the forger
        // writes hostile bundles with libarchive directly.
        .target(name: "VFSTestSupport", dependencies: ["VFSCore", "VFSBundle", "CArchive"], path: "Tests/Support"),
        // Tests only: an age plugin the tests run (age-plugin-vfstest); not one of the tools.
        .executableTarget(name: "age-plugin-vfstest", dependencies: ["VFSCore"], path: "Tests/age-plugin-vfstest"),
        .testTarget(name: "VFSCoreTests", dependencies: ["VFSCore", "VFSBundle", "VFSTestSupport", "CZlib"]),
        .testTarget(name: "VFSCommandLineTests", dependencies: [
            "VFSCommandLine", "VFSRelayCommandLine", "VFSRelayClient", "VFSRelayProtocol", "VFSCore", "VFSTestSupport",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .testTarget(name: "EndToEndTests", dependencies: ["VFSCore", "VFSBundle", "VFSTestSupport"]),
        // The S3 client against a real S3 engine (Ceph's RADOS Gateway, Tests/tools/rgw-fixture.sh).
        .testTarget(name: "VFSObjectStoreTests", dependencies: [
            "VFSObjectStore", "VFSTestSupport", .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
        ]),
        // The workflows against a relay run in the test process (VFSRelayServer, on port 0).
        .testTarget(name: "VFSRelayClientTests", dependencies: [
            "VFSRelayClient", "VFSRelayTransfers", "VFSRelayProtocol", "VFSCore", "VFSTestSupport", "VFSRelayServer",
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        ]),
        .testTarget(name: "VFSRelayServerTests", dependencies: [
            "VFSRelayServer", "VFSRelayProtocol", "VFSDeviceChain", "VFSTestSupport", "VFSObjectStore",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        ]),
    ] + tools.map {
        .executableTarget(name: $0.name, dependencies: ["VFSCommandLine", "VFSCore"] + $0.dependencies, linkerSettings: staticSwift)
    }
)

// The libFuzzer harness (make fuzz): only with VFS_FUZZ=1, built with the fuzzer and
// address sanitizers in its own build folder, so normal builds never see it.
if Context.environment["VFS_FUZZ"] == "1" {
    // No main of its own: libFuzzer's runs it (-parse-as-library).
    package.targets.append(.executableTarget(name: "fuzz-harness", dependencies: ["VFSCore", "VFSRelayProtocol"], path: "Fuzz/fuzz-harness",
                                             swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
    package.products.append(.executable(name: "fuzz-harness", targets: ["fuzz-harness"]))
}
