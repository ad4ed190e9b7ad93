import Glibc

extension PseudoTerminal {
    /// The path of the executable `name` of this package, built beside the running test binary.
    ///
    /// SwiftPM builds every product of a package into one folder (`.build/debug`, or
    /// `.build/<triple>/debug`), the test binary's too; a test target that lists the executable
    /// target among its `dependencies` has it built before its tests run:
    ///
    /// ```swift
    /// .testTarget(name: "TripTests", dependencies: ["trip-wizard", .product(name: "WizardTesting", package: "signup")])
    /// ```
    ///
    /// ```swift
    /// let terminal = try PseudoTerminal(executable: try PseudoTerminal.builtExecutable("trip-wizard"))
    /// ```
    ///
    /// Throws a ``Failure`` naming the folder searched when no such executable is there (the
    /// test target does not depend on it, or `name` is the target's module name rather than the
    /// executable's: `trip-wizard`, not `trip_wizard`).
    public static func builtExecutable(_ name: String) throws -> String {
        precondition(!name.isEmpty && !name.contains("/"), "an executable's name, not a path: \(name)")
        // The test binary's folder; on macOS it is inside a bundle (`….xctest/Contents/MacOS`),
        // so the folders above it are tried too.
        var folder = FormChild.executable
        for _ in 0..<4 {
            guard let slash = folder.lastIndex(of: "/") else { break }
            folder = String(folder[..<slash])
            let candidate = folder + "/" + name
            var status = stat()
            if stat(candidate, &status) == 0, status.st_mode & 0o170000 == 0o100000 /* a regular file */, access(candidate, X_OK) == 0 { return candidate }
        }
        let built = FormChild.executable.split(separator: "/").dropLast().joined(separator: "/")
        throw Failure(message: """
            no executable \(name) beside the test binary in /\(built): list its target in the test target's \
            dependencies, so that swift test builds it
            """)
    }
}
