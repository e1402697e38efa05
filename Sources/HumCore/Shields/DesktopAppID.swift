/// The desktop application id of a process, from what Linux desktops leave on it (read by HumSystem; parsed here).
public enum DesktopAppID {
    /// From `GIO_LAUNCHED_DESKTOP_FILE` or `BAMF_DESKTOP_FILE_HINT`: the path of the .desktop file; its file name
    /// without `.desktop` is the id (`/usr/share/applications/org.telegram.desktop.desktop` → `org.telegram.desktop`).
    public static func fromDesktopFile(_ path: String) -> String? {
        guard let name = path.split(separator: "/").last, name.hasSuffix(".desktop") else { return nil }
        let id = name.dropLast(".desktop".count)
        return id.isEmpty ? nil : String(id)
    }

    /// From the last unit of a cgroup path (`/proc/PID/cgroup`), following systemd's naming for desktop apps
    /// (docs/DESKTOP_ENVIRONMENTS.md): `app[-<launcher>]-<ApplicationID>-<RANDOM>.scope` or
    /// `app[-<launcher>]-<ApplicationID>[@<RANDOM>].service`, where a `-` inside the id is escaped as `\x2d`.
    public static func fromCgroup(_ path: String) -> String? {
        guard let unit = path.split(separator: "/").last, unit.hasPrefix("app-") else { return nil }
        var body = unit.dropFirst("app-".count)
        if body.hasSuffix(".scope") {
            body = body.dropLast(".scope".count)
            // The random part after the last dash.
            guard let dash = body.lastIndex(of: "-") else { return nil }
            body = body[..<dash]
        } else if body.hasSuffix(".service") {
            body = body.dropLast(".service".count)
            if let at = body.firstIndex(of: "@") { body = body[..<at] }
        } else {
            return nil
        }
        // What is left is `<launcher>-<id>` or `<id>`; the id's own dashes are escaped, so a dash left parts them.
        if let dash = body.firstIndex(of: "-") { body = body[body.index(after: dash)...] }
        let id = body.replacing("\\x2d", with: "-")
        return id.isEmpty ? nil : String(id)
    }
}
