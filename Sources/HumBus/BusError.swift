import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// An sd-bus call that failed: which bus, which call, and the errno it returned (sd-bus returns `-errno`).
public struct BusError: UserFacingError, Equatable, Sendable {
    public var bus: String
    public var call: String
    public var code: Int32

    public init(bus: String, call: String, code: Int32) {
        self.bus = bus
        self.call = call
        self.code = code
    }

    public var message: String { "the \(bus): \(call) failed: \(String(cString: strerror(code)))" }
}

/// Checks an sd-bus return value: negative is `-errno`, named by the call that returned it. Returns it otherwise
/// (some calls say something with a positive value).
@discardableResult
func check(_ call: String, on bus: String, _ result: Int32) throws(BusError) -> Int32 {
    guard result >= 0 else { throw BusError(bus: bus, call: call, code: -result) }
    return result
}
