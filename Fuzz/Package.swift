// swift-tools-version:6.0
// libFuzzer targets for signup. Built only by scripts/fuzz, with sanitizers; never by
// the main package's `swift build`.
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name, which depends on where the
// repository was cloned: read it instead of assuming "signup".
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let signup = root.lastPathComponent
let core = Target.Dependency.product(name: "SignupCore", package: signup)
let terminal = Target.Dependency.product(name: "WizardTerminal", package: signup)
let strength = Target.Dependency.product(name: "PasswordStrength", package: signup)
let store = Target.Dependency.product(name: "AccountStore", package: signup)

let package = Package(
    name: "signup-fuzz",
    dependencies: [.package(path: "..")],
    targets: [
        .systemLibrary(name: "CLibFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CLibFuzzer"]),
        .executableTarget(name: "FuzzLineInput", dependencies: ["FuzzSupport", core, terminal]),
        .executableTarget(name: "FuzzEmail", dependencies: ["FuzzSupport", core, store]),
        .executableTarget(name: "FuzzPassword", dependencies: ["FuzzSupport", core, strength]),
        .executableTarget(name: "FuzzPolicyFile", dependencies: ["FuzzSupport", core]),
        .executableTarget(name: "FuzzWizard", dependencies: ["FuzzSupport", core, strength]),
        .executableTarget(name: "FuzzStore", dependencies: ["FuzzSupport", store]),
    ]
)
