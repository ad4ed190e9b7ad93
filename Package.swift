// swift-tools-version:6.1
// signup and its libraries are licensed under the Apache License 2.0: see LICENSE.
import PackageDescription

let package = Package(
    name: "signup",
    products: [
        .executable(name: "signup", targets: ["signup"]),
        // The libraries another program builds on (SignupCore.docc, "Depending on signup"). signup-bench is
        // an executable target only: a benchmark is not something to depend on.
        .library(name: "SignupCore", targets: ["SignupCore"]),
        .library(name: "WizardTerminal", targets: ["WizardTerminal"]),
        .library(name: "PasswordStrength", targets: ["PasswordStrength"]),
        .library(name: "AccountStore", targets: ["AccountStore"]),
        // For a library user's test target: any form run in a child at a pseudo-terminal or
        // through pipes, screens and recorded transcripts (WizardTesting.docc, "Testing your form").
        .library(name: "WizardTesting", targets: ["WizardTesting"]),
    ],
    // What a package that uses only the forms needs nothing of: the store and the command line.
    // Both are on by default (this repository builds everything); a consumer of SignupCore,
    // WizardTerminal and PasswordStrength says `traits: []` and does not resolve
    // swift-argument-parser (SwiftPM leaves out the dependencies of disabled traits). The store
    // reaches SQLite through its C API (the system's libsqlite3), so its trait guards no package.
    traits: [
        .trait(name: "AccountStore", description: "The AccountStore library: SQLite through its C API, PostgreSQL, Argon2id."),
        .trait(name: "CommandLine", description: "The signup command: swift-argument-parser.", enabledTraits: ["AccountStore"]),
        .default(enabledTraits: ["AccountStore", "CommandLine"]),
    ],
    dependencies: [
        // Lowest versions the code allows (SignupCore.docc, "Depending on signup"), so a consumer that also
        // uses these packages resolves: argument-parser 1.5.0 is the first release its changelog
        // says compiles cleanly in Swift 6 language mode (ours needs Sendable CommandConfiguration,
        // 1.3.1). Only the versions in Package.resolved are built and tested.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `swift package generate-documentation`: each library product has a DocC catalog.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // C libraries, each behind one module map and a shim header.
        // libedit's header (libedit-dev), and its functions loaded with dlopen on first use: the
        // first terminal session that draws with escape sequences. A pipe, or a command that
        // asks nothing, never maps it nor libtinfo, libbsd and libmd.
        .target(name: "CLibedit", dependencies: ["CLoader"]),
        // libargon2, SQLite and zxcvbn-c: their headers (the -dev packages), and their functions
        // loaded with dlopen on first use through CLoader, so a run that ends at its first prompt
        // maps none of the three. SQLite 3.37 or later (SQLITE_OPEN_EXRESCODE); Debian 12 has 3.40.1.
        .target(name: "CLoader"),
        .target(name: "CArgon2", dependencies: ["CLoader"]),
        .target(name: "CSQLite", dependencies: ["CLoader"]),
        .target(name: "CZxcvbn", dependencies: ["CLoader"]),
        // libsodium's header (libsodium-dev), and its Argon2id loaded the same way, the first time a
        // password is hashed or checked: the vectorised Argon2id that hashes with one lane and
        // checks every string (libargon2 stays for more lanes).
        .target(name: "CSodium", dependencies: ["CLoader"]),
        // Unicode normalization and case folding, called only from SignupCore/UnicodeText.swift
        // (Foundation's would bring ICU's 37 MB of data into every binary).
        // No pkgConfig: Debian's libutf8proc.pc adds -DUTF8PROC_EXPORTS, a flag SwiftPM refuses with a warning.
        .systemLibrary(name: "CUtf8proc", providers: [.apt(["libutf8proc-dev"])]),
        // libpq's header, and its functions loaded with dlopen on first use (libpq-dev for the
        // header): a run without PostgreSQL never loads libpq's two dozen libraries.
        .target(name: "CLibpq"),
        // libidn2's header (libidn2-dev), and its functions loaded with dlopen on first use: IDNA
        // (UTS #46) for the domains of email addresses, called only from SignupCore/IDNA.swift.
        // Nothing before the first prompt and no all-ASCII address loads it.
        .target(name: "CIdn2"),
        // prctl and setrlimit for the process's own hardening: non-dumpable, no core file.
        .systemLibrary(name: "CSystem"),

        // Rules, fields, forms, policies, the wizard state machine: Swift, utf8proc for Unicode and
        // libidn2 for domains.
        .target(name: "SignupCore", dependencies: ["CUtf8proc", "CIdn2"]),
        // The only code that touches termios, signals and libedit. Not "Terminal": a module name
        // that generic clashes with other packages' modules in a consumer.
        .target(name: "WizardTerminal", dependencies: ["SignupCore", "CLibedit", "CSystem"]),
        // Runs a test's form in a child (the test binary started again), drives it like `expect`,
        // renders what a person sees and compares it with a transcript file. swift-testing and
        // the standard library only: it depends on no other target of this package.
        .target(name: "WizardTesting"),
        // zxcvbn behind the core's `StrengthEstimator` seam, usable without the store.
        .target(name: "PasswordStrength", dependencies: ["SignupCore", "CZxcvbn"]),
        // SQLite through its C API (SQLite.swift) or PostgreSQL through libpq (Libpq.swift), Argon2id
        // hashing through libsodium and libargon2 (PasswordHasher.swift).
        .target(name: "AccountStore", dependencies: ["SignupCore", "CArgon2", "CLibpq", "CSQLite", "CSodium"]),
        // The command: each command's options and settings, its plans and flows, the live
        // environment. A library target, so that tests run its flows in their own process.
        .target(
            name: "SignupCommand",
            dependencies: [
                "SignupCore", "WizardTerminal", "PasswordStrength", "AccountStore", "CSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["CommandLine"])),
            ]
        ),
        // The entry point only: one line that runs the command.
        .executableTarget(name: "signup", dependencies: ["SignupCommand"]),
        // Prints medians for scripts/bench; not a test, and not a product: SwiftPM still builds
        // it by name (`swift build --product signup-bench`) as the root package's executable.
        // CArgon2 and CSodium: the raw hash of each library, side by side.
        .executableTarget(name: "signup-bench", dependencies: ["SignupCore", "AccountStore", "PasswordStrength", "CArgon2", "CSodium"]),
        // WizardTerminal.docc's "Build your own wizard" as a program: only the public library products.
        // An executable target, not a product: documentation to read and run, not to depend on.
        .executableTarget(
            name: "wizard-example", dependencies: ["SignupCore", "WizardTerminal", "PasswordStrength"],
            path: "Examples/WizardExample", exclude: ["README.md"]
        ),
        // The first program to copy: `import WizardTerminal` alone, a form, one call.
        .executableTarget(name: "wizard-quickstart", dependencies: ["WizardTerminal"], path: "Examples/QuickStart", exclude: ["README.md"]),

        .testTarget(name: "SignupCoreTests", dependencies: ["SignupCore"], resources: [.copy("Resources")]),
        // Resources: database files made by earlier releases, which every later one must open.
        .testTarget(name: "AccountStoreTests", dependencies: ["AccountStore", "SignupCore"], resources: [.copy("Resources")]),
        .testTarget(name: "PasswordStrengthTests", dependencies: ["PasswordStrength", "SignupCore"]),
        // The terminal library in this process: real pseudo-terminals, the signal actions it changes.
        .testTarget(name: "WizardTerminalTests", dependencies: ["WizardTerminal", "SignupCore"]),
        // Run the built binary: through pipes (CLITests) and in a pseudo-terminal (TranscriptTests).
        .testTarget(name: "CLITests", dependencies: ["signup", "SignupCommand"]),
        .testTarget(name: "TranscriptTests", dependencies: ["signup", "WizardTesting"], resources: [.copy("Transcripts")]),
        // The example program in a pseudo-terminal and through pipes, and the wizard guide's code.
        // Transcripts: WizardTesting's recorded screens, read from the source folder, not a resource.
        .testTarget(
            name: "ExampleTests", dependencies: ["wizard-example", "wizard-quickstart", "SignupCore", "WizardTerminal", "PasswordStrength", "WizardTesting"],
            exclude: ["Transcripts"]
        ),
    ]
)
