import CSystemd

#if canImport(Glibc)
    import Glibc
#endif

/// A D-Bus message, read and written through sd-bus's non-variadic calls (one value at a time), so every type is
/// checked by the compiler. A borrowed message belongs to sd-bus (a callback's argument: never kept beyond it); an
/// owned one is unref'd when this object goes.
final class BusMessage {
    let handle: OpaquePointer
    private let owned: Bool

    init(borrowing handle: OpaquePointer) {
        self.handle = handle
        owned = false
    }

    init(owning handle: OpaquePointer) {
        self.handle = handle
        owned = true
    }

    deinit { if owned { sd_bus_message_unref(handle) } }

    /// Names a failed append or read in the error people see.
    private func checked(_ call: String, _ result: Int32) throws(BusError) {
        try check(call, on: "bus message", result)
    }

    // MARK: Errors

    /// The error name and message of an error reply; nil for a method return.
    var error: (name: String, message: String)? {
        guard sd_bus_message_is_method_error(handle, nil) > 0, let e = sd_bus_message_get_error(handle) else {
            return nil
        }
        return (e.pointee.name.map { String(cString: $0) } ?? "", e.pointee.message.map { String(cString: $0) } ?? "")
    }

    var member: String { sd_bus_message_get_member(handle).map { String(cString: $0) } ?? "" }

    // MARK: Writing

    func append(_ value: String) throws(BusError) {
        try checked(
            "sd_bus_message_append_basic(s)",
            value.withCString { sd_bus_message_append_basic(handle, CChar(UInt8(ascii: "s")), $0) })
    }

    func append(objectPath value: String) throws(BusError) {
        try checked(
            "sd_bus_message_append_basic(o)",
            value.withCString { sd_bus_message_append_basic(handle, CChar(UInt8(ascii: "o")), $0) })
    }

    func append(_ value: UInt32) throws(BusError) {
        var v = value
        try checked("sd_bus_message_append_basic(u)", sd_bus_message_append_basic(handle, CChar(UInt8(ascii: "u")), &v))
    }

    func append(_ value: Int32) throws(BusError) {
        var v = value
        try checked("sd_bus_message_append_basic(i)", sd_bus_message_append_basic(handle, CChar(UInt8(ascii: "i")), &v))
    }

    func append(_ value: Int64) throws(BusError) {
        var v = value
        try checked("sd_bus_message_append_basic(x)", sd_bus_message_append_basic(handle, CChar(UInt8(ascii: "x")), &v))
    }

    func append(_ value: Double) throws(BusError) {
        var v = value
        try checked("sd_bus_message_append_basic(d)", sd_bus_message_append_basic(handle, CChar(UInt8(ascii: "d")), &v))
    }

    /// A D-Bus boolean (an int on the wire, 0 or 1).
    func append(_ value: Bool) throws(BusError) {
        var v: Int32 = value ? 1 : 0
        try checked("sd_bus_message_append_basic(b)", sd_bus_message_append_basic(handle, CChar(UInt8(ascii: "b")), &v))
    }

    /// An array of strings (`as`).
    func append(_ values: [String]) throws(BusError) {
        let pointers = values.map { strdup($0) } + [nil]
        defer { for p in pointers { free(p) } }
        var list = pointers
        try checked(
            "sd_bus_message_append_strv",
            list.withUnsafeMutableBufferPointer { sd_bus_message_append_strv(handle, $0.baseAddress) })
    }

    /// Opens a container (`a`, `e`, `v`, `r`) holding `contents`; close it with `close()`.
    func open(_ type: Character, _ contents: String) throws(BusError) {
        let t = CChar(type.asciiValue ?? 0)
        try checked(
            "sd_bus_message_open_container(\(type))",
            contents.withCString { sd_bus_message_open_container(handle, t, $0) })
    }

    func close() throws(BusError) {
        try checked("sd_bus_message_close_container", sd_bus_message_close_container(handle))
    }

    /// One `{sv}` entry of a dictionary of variants, its value written by `value` inside a variant of `signature`.
    func entry(_ key: String, _ signature: String, _ value: (borrowing BusMessage) throws(BusError) -> Void)
        throws(BusError)
    {
        try open("e", "sv")
        try append(key)
        try open("v", signature)
        try value(self)
        try close()
        try close()
    }

    // MARK: Reading

    func readString() throws(BusError) -> String {
        var p: UnsafePointer<CChar>?
        try checked("sd_bus_message_read_basic(s)", sd_bus_message_read_basic(handle, CChar(UInt8(ascii: "s")), &p))
        return p.map { String(cString: $0) } ?? ""
    }

    func readObjectPath() throws(BusError) -> String {
        var p: UnsafePointer<CChar>?
        try checked("sd_bus_message_read_basic(o)", sd_bus_message_read_basic(handle, CChar(UInt8(ascii: "o")), &p))
        return p.map { String(cString: $0) } ?? ""
    }

    func readUInt32() throws(BusError) -> UInt32 {
        var v: UInt32 = 0
        try checked("sd_bus_message_read_basic(u)", sd_bus_message_read_basic(handle, CChar(UInt8(ascii: "u")), &v))
        return v
    }

    func readInt64() throws(BusError) -> Int64 {
        var v: Int64 = 0
        try checked("sd_bus_message_read_basic(x)", sd_bus_message_read_basic(handle, CChar(UInt8(ascii: "x")), &v))
        return v
    }

    func readDouble() throws(BusError) -> Double {
        var v: Double = 0
        try checked("sd_bus_message_read_basic(d)", sd_bus_message_read_basic(handle, CChar(UInt8(ascii: "d")), &v))
        return v
    }

    /// A file descriptor (`h`), duplicated (close-on-exec) so it outlives the message; the caller owns it.
    func readDescriptor() throws(BusError) -> Int32 {
        var fd: Int32 = -1
        try checked("sd_bus_message_read_basic(h)", sd_bus_message_read_basic(handle, CChar(UInt8(ascii: "h")), &fd))
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 3)
        guard copy >= 0 else { throw BusError(bus: "bus message", call: "fcntl(F_DUPFD_CLOEXEC)", code: errno) }
        return copy
    }

    /// A dictionary of variants (`a{sv}`), its string values by key; values of other types are skipped.
    func readStringHints() throws(BusError) -> [String: String] {
        try checked(
            "sd_bus_message_enter_container(a{sv})",
            sd_bus_message_enter_container(handle, CChar(UInt8(ascii: "a")), "{sv}"))
        var hints: [String: String] = [:]
        while true {
            let entered = sd_bus_message_enter_container(handle, CChar(UInt8(ascii: "e")), "sv")
            try checked("sd_bus_message_enter_container({sv})", entered)
            guard entered > 0 else { break }
            let key = try readString()
            if sd_bus_message_enter_container(handle, CChar(UInt8(ascii: "v")), "s") > 0 {
                hints[key] = try readString()
                try checked("sd_bus_message_exit_container(v)", sd_bus_message_exit_container(handle))
            } else {
                try checked("sd_bus_message_skip(v)", sd_bus_message_skip(handle, "v"))
            }
            try checked("sd_bus_message_exit_container({sv})", sd_bus_message_exit_container(handle))
        }
        try checked("sd_bus_message_exit_container(a{sv})", sd_bus_message_exit_container(handle))
        return hints
    }

    func readStrings() throws(BusError) -> [String] {
        var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        try checked("sd_bus_message_read_strv", sd_bus_message_read_strv(handle, &list))
        guard let list else { return [] }
        defer {
            var i = 0
            while let p = list[i] {
                free(p)
                i += 1
            }
            free(list)
        }
        var out: [String] = []
        var i = 0
        while let p = list[i] {
            out.append(String(cString: p))
            i += 1
        }
        return out
    }
}
