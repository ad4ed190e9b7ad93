import SignupCore

/// An Argon2id PHC string signup can store and check: the only thing a store accepts as a password hash.
///
/// There are two ways to make one: ``PasswordHasher/hash(_:costs:)``, or ``init(parsing:)`` on a
/// string that is already an Argon2id PHC string (`$argon2id$v=19$m=…,t=…,p=…$salt$hash`,
/// for example one another Argon2 library made). There is no initializer from a `String`
/// literal and no other way in, so a password cannot be handed to
/// ``AccountBackend/create(email:passwordHash:at:whenLocked:)`` by mistake: it does not compile.
///
/// A hash is not a secret, but it can be guessed at offline: its description and mirror
/// name only the algorithm and its costs.
public struct PasswordHash: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The PHC string, as stored in `password_hash` and as any Argon2 library verifies it.
    public let phc: String
    /// The Argon2 costs the string asks for: memory in KiB, passes, lanes.
    let costs: PasswordHasher.Costs

    /// Parses `phc` as an Argon2id PHC string that ``PasswordHasher/check(_:against:)-(_,String?)`` can verify.
    ///
    /// It must be `$argon2id$v=19$m=M,t=T,p=P$SALT$HASH` exactly: costs in that order, in
    /// decimal, within what signup will spend; salt (at least 8 bytes) and hash (at least 4)
    /// in base64 without padding, as libargon2 decodes them. Anything else, a password
    /// included, throws ``Invalid``, whose reason never quotes the string.
    public init(parsing phc: String) throws(Invalid) {
        switch PasswordHasher.parse(phc) {
        case .success(let costs): self.init(phc: phc, costs: costs)
        case .failure(let invalid): throw invalid
        }
    }

    /// For ``PasswordHasher/hash(_:)``, whose output libargon2 made with these costs.
    init(phc: String, costs: PasswordHasher.Costs) {
        self.phc = phc
        self.costs = costs
    }

    /// Whether checking a password against it costs no more than `costs` (memory, passes and
    /// lanes each): how an import refuses a hash that would make every check of it expensive.
    public func costsAtMost(_ costs: PasswordPolicy.Argon2Costs) -> Bool {
        self.costs.memoryKiB <= costs.memoryKiB && self.costs.iterations <= costs.iterations && self.costs.parallelism <= costs.parallelism
    }

    /// `Argon2id hash (m=19456, t=2, p=1)`: never the salt or the hash.
    public var description: String {
        "Argon2id hash (m=\(costs.memoryKiB), t=\(costs.iterations), p=\(costs.parallelism))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// A mirror that shows the ``description`` only.
    public var customMirror: Mirror { Mirror(self, children: ["hash": description]) }

    /// Why a string is not a ``PasswordHash``: a short English sentence that never quotes the string.
    public struct Invalid: Error, Equatable, Sendable, CustomStringConvertible {
        /// What is wrong, for example "it is a bcrypt hash, not Argon2id".
        public let reason: String

        /// Makes the error; `reason` must not quote the string it is about.
        init(_ reason: String) {
            self.reason = reason
        }

        /// `not an Argon2id password hash: ` and the reason.
        public var description: String { "not an Argon2id password hash: \(reason)" }
    }
}
