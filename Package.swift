// swift-tools-version:6.0
import PackageDescription

/// Every tool is one executable product with exactly one target of the same name.
let tools = [
    "vfs-encrypt",
    "vfs-decrypt",
    "vfs-keygen",
    "vfs-keychain",
    "vfs-policy",
    "vfs-shred",
    "vfs-wrap",
    "vfs-unwrap",
]

let package = Package(
    name: "vfs",
    platforms: [.macOS(.v13)],
    products: tools.map { .executable(name: $0, targets: [$0]) },
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // X-Wing (ML-KEM-768 + X25519) and HPKE for age's post-quantum recipients:
        // OpenSSL 3.0 has no ML-KEM.
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    ],
    targets: [
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CArchive", pkgConfig: "libarchive",
                       providers: [.apt(["libarchive-dev"])]),
        // Linux calls the Glibc module leaves out (renameat2, fstatfs, O_DIRECT).
        .target(name: "CLinux"),
        .target(name: "VFSCore", dependencies: [
            "COpenSSL", "CArchive", "CLinux",
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        .target(name: "VFSCommandLine", dependencies: [
            "VFSCore",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // Tests only: inflates the zlib-compressed conformance vectors.
        .systemLibrary(name: "CZlib", path: "Tests/CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"])]),
        .testTarget(name: "VFSCoreTests", dependencies: ["VFSCore", "CZlib"]),
        // CArchive: the wrap tests build hostile bundles with libarchive directly.
        .testTarget(name: "EndToEndTests", dependencies: ["VFSCore", "CArchive"]),
    ] + tools.map {
        .executableTarget(name: $0, dependencies: ["VFSCommandLine", "VFSCore"])
    }
)
