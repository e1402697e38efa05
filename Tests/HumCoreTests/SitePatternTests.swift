import Testing

@testable import HumCore

@Suite struct SitePatternTests {
    func site(_ text: String) throws -> SitePattern { try SitePattern.checked(text) }

    @Test func sitesAreCheckedAndMadeCanonicalWhereTheyEnter() throws {
        #expect(try site("YouTube.com").text == "youtube.com")
        #expect(try site("https://www.YouTube.com/shorts").text == "www.youtube.com/shorts")
        #expect(try site("youtube.com.").text == "youtube.com")
        #expect(try site("youtube.com/").text == "youtube.com")
        #expect(try site("reddit.com/r/*").path == "/r/*")
        #expect(try site("video.test").domain == "video.test")
        #expect(try ShieldTarget.checked(.site, "reddit.com/r/*") == .site(try site("reddit.com/r/*")))
        for bad in [
            "", "*.youtube.com", "you tube.com", "youtube.com:443", "youtube.com/?v=1", "youtube.com#x", "-a.com",
            "a..com", "ютуб.рф", "a_b.com", "youtube.com//x", String(repeating: "a", count: 64) + ".com",
            "ftp://x.com", "a\nb.com",
        ] {
            #expect(throws: ShieldProblem.self, "\(bad)") { try SitePattern.checked(bad) }
        }
        let problem = #expect(throws: ShieldProblem.self) { try SitePattern.checked("*.youtube.com") }
        #expect(problem?.message.contains("subdomains") == true)
        #expect(problem?.kind == .usage)
    }

    @Test func aDomainMatchesItselfAndItsSubdomainsOnly() throws {
        let yt = try site("youtube.com")
        for url in [
            "https://youtube.com/", "https://www.youtube.com/watch?v=1", "http://m.youtube.com:8080/x",
            "https://YOUTUBE.COM", "https://user@youtube.com/", "https://youtube.com.", "https://a.b.youtube.com#t",
        ] {
            #expect(yt.matches(url: url), "\(url)")
        }
        for url in [
            "https://notyoutube.com/", "https://youtube.com.evil.org/", "https://evil.org/youtube.com",
            "https://evil.org/?u=https://youtube.com", "ftp://youtube.com/", "youtube.com", "https://youtube.co/",
        ] {
            #expect(!yt.matches(url: url), "\(url)")
        }
    }

    @Test func aPathMatchesItselfAndWhatIsBelowIt() throws {
        let shorts = try site("youtube.com/shorts")
        #expect(shorts.matches(url: "https://youtube.com/shorts"))
        #expect(shorts.matches(url: "https://www.youtube.com/shorts/abc?x=1"))
        #expect(!shorts.matches(url: "https://youtube.com/shortsfan"))
        #expect(!shorts.matches(url: "https://youtube.com/Shorts"))
        #expect(!shorts.matches(url: "https://youtube.com/watch?next=/shorts"))
        let slash = try site("example.com/docs/")
        #expect(slash.matches(url: "http://example.com/docs/") && slash.matches(url: "http://example.com/docs/a/b"))
        #expect(!slash.matches(url: "http://example.com/docs"))
    }

    @Test func aStarStandsForAnyRunOfCharactersSlashesIncluded() throws {
        let r = try site("reddit.com/r/*")
        #expect(r.matches(url: "https://reddit.com/r/"))
        #expect(r.matches(url: "https://old.reddit.com/r/games/comments/1"))
        #expect(!r.matches(url: "https://reddit.com/r"))
        #expect(!r.matches(url: "https://reddit.com/user/x"))
        let comments = try site("reddit.com/r/*/comments")
        #expect(comments.matches(url: "https://reddit.com/r/x/comments"))
        #expect(comments.matches(url: "https://reddit.com/r/x/y/comments/1"))
        #expect(!comments.matches(url: "https://reddit.com/r/x/commentsy"))
        #expect(!comments.matches(url: "https://reddit.com/r/x/"))
        let mid = try site("a.com/x*y")
        #expect(mid.matches(url: "https://a.com/xy") && mid.matches(url: "https://a.com/x/1/y"))
        #expect(mid.matches(url: "https://a.com/xay/z") && !mid.matches(url: "https://a.com/xya"))
    }

    /// The extension uses `regexSource` (as an ECMAScript regular expression): it must agree with `matches(url:)`.
    @Test func theRegexTheExtensionUsesAgreesWithTheMatcher() throws {
        let patterns = [
            "youtube.com", "youtube.com/shorts", "example.com/docs/", "reddit.com/r/*", "reddit.com/r/*/comments",
            "a.com/x*y", "a-b.c.d/e.f(g)",
        ]
        let urls = [
            "https://youtube.com/", "https://www.youtube.com/shorts/abc", "https://youtube.com/shortsfan",
            "https://notyoutube.com/", "http://example.com/docs", "http://example.com/docs/x",
            "https://reddit.com/r", "https://reddit.com/r/", "https://old.reddit.com/r/x/comments/1",
            "https://reddit.com/r/x/commentsy", "https://a.com/xay/z", "https://a.com/xya", "https://a.com/xy?q#f",
            "https://youtube.com.evil.org/", "https://u:p@youtube.com:8/", "https://a-b.c.d/e.f(g)/h",
            "https://a-b.c.d/eXf(g)",
        ]
        for text in patterns {
            let pattern = try site(text)
            let regex = try Regex(pattern.regexSource)
            for url in urls {
                #expect(
                    (url.prefixMatch(of: regex) != nil) == pattern.matches(url: url),
                    "\(text) on \(url): regex \(pattern.regexSource)")
            }
        }
    }

    @Test func aSiteNamesNoProcess() throws {
        let target = ShieldTarget.site(try site("steam.com"))
        #expect(!target.matches(facts(10, comm: "steam.com")))
        #expect(target.option == "--site steam.com")
    }
}

@Suite struct NativeFramesTests {
    func frame(_ text: String) -> [UInt8] { NativeFrames.encode(Array(text.utf8))! }

    @Test func framesAreCutWhateverTheReadsSizes() {
        let stream = frame("{\"type\":\"state\"}") + frame("") + frame("[1]")
        for chunk in [1, 2, 3, 5, 7, stream.count] {
            var reader = NativeFrames.Reader()
            var events: [NativeFrames.Event] = []
            var i = 0
            while i < stream.count {
                events += reader.feed(stream[i..<min(i + chunk, stream.count)])
                i += chunk
            }
            #expect(
                events == [.message(Array("{\"type\":\"state\"}".utf8)), .message([]), .message(Array("[1]".utf8))])
            #expect(!reader.isMidFrame)
        }
    }

    @Test func theLengthIsInTheMachinesOwnByteOrder() {
        let bytes = frame("ab")
        #expect(bytes.count == 6)
        #expect(bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) } == 2)
    }

    @Test func anOversizedFrameIsReportedOnceAndSkippedUnbuffered() {
        var reader = NativeFrames.Reader()
        let big = NativeFrames.limit + 1
        var events = reader.feed(withUnsafeBytes(of: UInt32(big)) { Array($0) })
        #expect(events == [.tooLarge(UInt32(big))])
        // Its bytes come in pieces and are dropped; the next frame is read as it should be.
        for _ in 0..<big / 65_536 { #expect(reader.feed([UInt8](repeating: 7, count: 65_536)).isEmpty) }
        events = reader.feed([UInt8](repeating: 7, count: big % 65_536) + frame("{}"))
        #expect(events == [.message(Array("{}".utf8))])
        #expect(NativeFrames.encode([UInt8](repeating: 0, count: NativeFrames.limit + 1)) == nil)
        #expect(NativeFrames.encode([UInt8](repeating: 0, count: NativeFrames.limit))?.count == NativeFrames.limit + 4)
    }

    @Test func textIsNotAFrameButNeverStopsTheReader() {
        var reader = NativeFrames.Reader()
        // "hello\n" read as a length is far over the limit.
        #expect(reader.feed(Array("hello\n".utf8)) == [.tooLarge(0x6c6c_6568)])
        #expect(reader.isMidFrame)
    }
}
