// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "signup",
    products: [
        .executable(name: "signup", targets: ["signup"]),
        .library(name: "SignupCore", targets: ["SignupCore"]),
        // Published so that the fuzz package (Fuzz/) can drive them; the libraries issue names them for good.
        .library(name: "Terminal", targets: ["Terminal"]),
        .library(name: "AccountStore", targets: ["AccountStore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        // C libraries, each behind one module map and a shim header.
        .systemLibrary(name: "CLibedit", pkgConfig: "libedit", providers: [.apt(["libedit-dev"])]),
        .systemLibrary(name: "CArgon2", pkgConfig: "libargon2", providers: [.apt(["libargon2-dev"])]),
        .systemLibrary(name: "CZxcvbn", providers: [.apt(["libzxcvbn-dev"])]),
        .systemLibrary(name: "CLibpq", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // prctl and setrlimit for the process's own hardening (SPEC 10).
        .systemLibrary(name: "CSystem"),

        // Pure Swift: rules, fields, forms, policies, the wizard state machine.
        .target(name: "SignupCore"),
        // The only code that touches termios, signals and libedit.
        .target(name: "Terminal", dependencies: ["SignupCore", "CLibedit"]),
        // SQLite through GRDB or PostgreSQL through libpq, Argon2id hashing, zxcvbn strength.
        .target(
            name: "AccountStore",
            dependencies: ["SignupCore", "CArgon2", "CZxcvbn", "CLibpq", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .executableTarget(
            name: "signup",
            dependencies: [
                "SignupCore", "Terminal", "AccountStore", "CSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Prints medians for scripts/bench; not a test, and not a product: SwiftPM still builds
        // it by name (`swift build --product signup-bench`) as the root package's executable.
        .executableTarget(name: "signup-bench", dependencies: ["SignupCore", "AccountStore"]),

        .testTarget(name: "SignupCoreTests", dependencies: ["SignupCore"], resources: [.copy("Resources")]),
        .testTarget(name: "AccountStoreTests", dependencies: ["AccountStore", "SignupCore"]),
        // Run the built binary: through pipes (CLITests) and in a pseudo-terminal (TranscriptTests).
        .testTarget(name: "CLITests", dependencies: ["signup"]),
        .testTarget(name: "TranscriptTests", dependencies: ["signup"], resources: [.copy("Transcripts")]),
    ]
)
