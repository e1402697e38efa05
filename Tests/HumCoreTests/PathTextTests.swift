import Testing

@testable import HumCore

/// The parts of a path, as NSString's path methods gave them (checked against Foundation's answers for these
/// paths; where Foundation trapped, as `deletingLastPathComponent` of `a` did, the answer is the one it documents).
@Suite struct PathTextTests {
    @Test(arguments: [
        ("/a/b.ogg", "b.ogg", "/a", "ogg", "/a/b"),
        ("/a/b/", "b", "/a", "", "/a/b"),
        ("/", "/", "/", "", "/"),
        ("", "", "", "", ""),
        ("a", "a", "", "", "a"),
        ("/a", "a", "/", "", "/a"),
        ("a/b", "b", "a", "", "a/b"),
        (".hidden", ".hidden", "", "", ".hidden"),
        ("a/.hidden", ".hidden", "a", "", "a/.hidden"),
        ("a.b.c", "a.b.c", "", "c", "a.b"),
        ("dir.x/a", "a", "dir.x", "", "dir.x/a"),
        ("a/b.ogg/", "b.ogg", "a", "ogg", "a/b"),
    ])
    func partsOfAPath(path: String, base: String, directory: String, ext: String, withoutExtension: String) {
        #expect(PathText.base(path) == base)
        #expect(PathText.directory(path) == directory)
        #expect(PathText.extension(path) == ext)
        #expect(PathText.removingExtension(path) == withoutExtension)
    }

    @Test func appending() {
        #expect(PathText.appending("/a/b", "c") == "/a/b/c")
        #expect(PathText.appending("/a/b/", "c") == "/a/b/c")
        #expect(PathText.appending("/", "c") == "/c")
        #expect(PathText.appending("", "c") == "c")
        #expect(PathText.appending("/opt/hum/bin/..", "share/hum/sounds") == "/opt/hum/bin/../share/hum/sounds")
    }
}
