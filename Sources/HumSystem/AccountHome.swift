import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// The home directory of the user running hum, from the password database (`getpwuid_r`): where hum's files go
/// when `HOME` is unset, instead of a shared directory.
public enum AccountHome {
    /// The home of the effective user, or nil when the password database has no entry (or no absolute home) for it.
    public static func lookup() -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>? = nil
        var size = max(1024, Int(sysconf(Int32(_SC_GETPW_R_SIZE_MAX))))
        while size <= 1 << 20 {
            var buffer = [CChar](repeating: 0, count: size)
            let rc = getpwuid_r(geteuid(), &entry, &buffer, size, &result)
            if rc == ERANGE {
                size *= 4
                continue
            }
            guard rc == 0, result != nil, let dir = entry.pw_dir else { return nil }
            let home = String(cString: dir)
            return home.hasPrefix("/") && home != "/" ? home : nil
        }
        return nil
    }
}
