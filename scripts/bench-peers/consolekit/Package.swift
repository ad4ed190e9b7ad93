// swift-tools-version:6.0
// The three-field sign-up with vapor/console-kit, for scripts/bench: its prompts
// (`ask`, `ask(isSecure:)`), then Argon2id and an SQLite insert through their C libraries.
import PackageDescription

let package = Package(
    name: "consolekit-peer",
    dependencies: [.package(url: "https://github.com/vapor/console-kit", from: "4.16.2")],
    targets: [
        .systemLibrary(name: "CArgon2", path: "Sources/CArgon2"),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite"),
        .executableTarget(
            name: "peer",
            dependencies: [.product(name: "ConsoleKitTerminal", package: "console-kit"), "CArgon2", "CSQLite"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ]
)
