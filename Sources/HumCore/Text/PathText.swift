/// The parts of a file path, as text: what NSString's path methods gave (`lastPathComponent`,
/// `deletingLastPathComponent`, `pathExtension`, `deletingPathExtension`, `appendingPathComponent`), without
/// Foundation, whose full module links ICU's data into the binary (docs/PERFORMANCE.md, the release binary's size).
/// Pure text: nothing here looks at the file system.
public enum PathText {
    /// The last component: `/a/b.ogg` → `b.ogg`, `/a/b/` → `b`, `/` → `/`, `` → ``.
    public static func base(_ path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        if trimmed == "/" || trimmed.isEmpty { return trimmed }
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// Everything but the last component: `/a/b` → `/a`, `/a` → `/`, `a` → ``, `/a/b/` → `/a`, `/` → `/`.
    public static func directory(_ path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        if trimmed == "/" { return "/" }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        let head = trimmingTrailingSlashes(String(trimmed[..<slash]))
        return head.isEmpty ? "/" : head
    }

    /// The extension of the last component, without its dot: `a/b.ogg` → `ogg`, `.hidden` → ``, `a.` → ``.
    public static func `extension`(_ path: String) -> String {
        let name = base(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    /// The path without the last component's extension: `a/b.ogg` → `a/b`, `a/.hidden` → `a/.hidden`.
    public static func removingExtension(_ path: String) -> String {
        let ext = `extension`(path)
        guard !ext.isEmpty else { return trimmingTrailingSlashes(path) }
        let trimmed = trimmingTrailingSlashes(path)
        return String(trimmed.dropLast(ext.count + 1))
    }

    /// `component` under `path`: `a` + `b` → `a/b`, `a/` + `b` → `a/b`, `` + `b` → `b`.
    public static func appending(_ path: String, _ component: String) -> String {
        if path.isEmpty { return component }
        return trimmingTrailingSlashes(path) == "/" ? "/" + component : trimmingTrailingSlashes(path) + "/" + component
    }

    static func trimmingTrailingSlashes(_ path: String) -> String {
        var text = Substring(path)
        while text.count > 1 && text.hasSuffix("/") { text = text.dropLast() }
        return String(text)
    }
}
