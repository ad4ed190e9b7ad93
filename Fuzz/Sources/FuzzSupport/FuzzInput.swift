/// Structured values read one after the other from a fuzz input; past its end every
/// read returns zero or empty, so any input decodes to something.
public struct FuzzInput {
    private let bytes: [UInt8]
    private var index = 0

    public init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    }

    /// Whether every byte has been read.
    public var isEmpty: Bool { index >= bytes.count }

    /// The next byte, or 0 past the end.
    public mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// A length byte, then that many bytes (fewer at the end of the input).
    public mutating func shortBytes() -> [UInt8] {
        take(Int(byte()))
    }

    /// A two-byte little-endian length, then that many bytes (fewer at the end of the input).
    public mutating func longBytes() -> [UInt8] {
        let low = Int(byte())
        let high = Int(byte())
        return take(high << 8 | low)
    }

    /// Text decoded from ``shortBytes()``; bad UTF-8 becomes U+FFFD.
    public mutating func shortText() -> String {
        String(decoding: shortBytes(), as: UTF8.self)
    }

    /// Text decoded from ``longBytes()``; bad UTF-8 becomes U+FFFD.
    public mutating func longText() -> String {
        String(decoding: longBytes(), as: UTF8.self)
    }

    /// One of `choices`, chosen by the next byte.
    public mutating func pick<T>(_ choices: [T]) -> T {
        choices[Int(byte()) % choices.count]
    }

    /// Every byte not read yet.
    public mutating func rest() -> [UInt8] {
        take(bytes.count - index)
    }

    private mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, index + max(0, count))
        defer { index = end }
        return Array(bytes[index..<end])
    }
}

extension String {
    /// Whether `part` occurs in this text, Character by Character.
    ///
    /// The standard library's search: Foundation's `contains`, the default wherever Foundation
    /// is imported, traps on some texts holding NUL (Fuzz/Regressions/FuzzPassword).
    public func includes(_ part: String) -> Bool {
        firstRange(of: part) != nil
    }

    /// Whether `secret` (4 characters or more, so a hit means something) appears in this text.
    public func reveals(_ secret: String) -> Bool {
        secret.count >= 4 && includes(secret)
    }
}
