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
    ("vfs-policy", []),
    ("vfs-shred", []),
    ("vfs-wrap", []),
    ("vfs-unwrap", []),
]

// Linux only (Glibc, and renameat2, fstatfs, O_DIRECT through CLinux): no platforms line.
let package = Package(
    name: "vfs",
    products: tools.map { .executable(name: $0.name, targets: [$0.name]) },
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CArchive", pkgConfig: "libarchive",
                       providers: [.apt(["libarchive-dev"])]),
        // Linux calls the Glibc module leaves out (renameat2, fstatfs, O_DIRECT).
        .target(name: "CLinux"),
        .target(name: "VFSCore", dependencies: ["COpenSSL", "CArchive", "CLinux"]),
        .target(name: "VFSCommandLine", dependencies: [
            "VFSCore",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // Tests only: inflates the zlib-compressed conformance vectors.
        .systemLibrary(name: "CZlib", path: "Tests/CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"])]),
        // Tests only: the temp folder, the process harness, the bundle forger and the
        // background-server fixture every test target shares. CArchive: the forger
        // writes hostile bundles with libarchive directly.
        .target(name: "VFSTestSupport", dependencies: ["VFSCore", "CArchive"], path: "Tests/Support"),
        .testTarget(name: "VFSCoreTests", dependencies: ["VFSCore", "VFSTestSupport", "CZlib"]),
        .testTarget(name: "VFSCommandLineTests", dependencies: [
            "VFSCommandLine", "VFSCore", "VFSTestSupport",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .testTarget(name: "EndToEndTests", dependencies: ["VFSCore", "VFSTestSupport"]),
    ] + tools.map {
        .executableTarget(name: $0.name, dependencies: ["VFSCommandLine", "VFSCore"] + $0.dependencies)
    }
)
