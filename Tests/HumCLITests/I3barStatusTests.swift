import Foundation
import HumTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `hum status --i3bar`: a block of i3bar's protocol, the object i3blocks reads with `format=json`, once and as a
/// follower (one object per line, at each change).
@Suite struct I3barStatusTests {
    func block(_ text: String) throws -> [String: Any] {
        try #require(json(text) as? [String: Any], "\(text)")
    }

    func player(_ box: Sandbox) throws -> Child {
        let child = Child(stdoutPath: box.path("player-\(UUID()).out"), stderrPath: box.path("player-\(UUID()).err"))
        child.pid = try spawnBinary(
            ["focus", "--no-sound", "--focus", "10m"], environment: box.environment, stdout: child.stdoutPath,
            stderr: child.stderrPath)
        let answered = eventually(within: 10) {
            (try? runBinary(["status", "--json"], environment: box.environment).out.contains("\"focus\"")) == true
        }
        #expect(answered, "\(child.stderr)")
        return child
    }

    @Test func oneShotPrintsOneI3barBlock() throws {
        let box = Sandbox()
        let idle = try runBinary(["status", "--i3bar"], environment: box.environment)
        #expect(idle.code == 0 && idle.out.filter { $0 == "\n" }.count == 1, "\(idle)")
        let object = try block(idle.out)
        #expect(Set(object.keys) == ["name", "full_text", "short_text", "color", "markup"])
        #expect(object["name"] as? String == "hum" && object["markup"] as? String == "none")
        #expect(object["full_text"] as? String == "idle" && object["color"] as? String == "#808080")
        let focus = try player(box)
        defer {
            focus.signal(SIGTERM)
            focus.wait()
        }
        let busy = try block(try runBinary(["status", "--i3bar"], environment: box.environment).out)
        #expect((busy["full_text"] as? String)?.hasPrefix("focus 1/4 ") == true, "\(busy)")
        let short = try #require(busy["short_text"] as? String)
        #expect(short.count == 5 && short.contains(":"), "the countdown alone: \(short)")
        #expect(busy["color"] == nil, "a running focus round takes the bar's own colour")
        let templated = try runBinary(
            ["status", "--i3bar", "--template", "{phase} <{round}>"], environment: box.environment)
        #expect(try block(templated.out)["full_text"] as? String == "focus <1>", "no markup escaping")
    }

    /// The follower prints a block per change: idle, then the round, then paused (dimmed), then idle again.
    @Test func followPrintsABlockAtEachChange() throws {
        let box = Sandbox()
        let follower = Child(stdoutPath: box.path("follow.out"), stderrPath: box.path("follow.err"))
        follower.pid = try spawnBinary(
            ["status", "--i3bar", "--follow", "--template", "{state} {phase}"], environment: box.environment,
            stdout: follower.stdoutPath, stderr: follower.stderrPath)
        defer {
            follower.signal(SIGTERM)
            follower.wait()
        }
        func blocks() -> [[String: Any]] {
            follower.stdout.split(separator: "\n").compactMap { json(String($0)) as? [String: Any] }
        }
        #expect(eventually(within: 10) { blocks().count >= 1 })
        let focus = try player(box)
        #expect(eventually(within: 10) { blocks().last?["full_text"] as? String == "playing focus" }, "\(blocks())")
        #expect(try runBinary(["ctl", "pause", "-q"], environment: box.environment).code == 0)
        #expect(eventually(within: 10) { blocks().last?["full_text"] as? String == "paused focus" }, "\(blocks())")
        #expect(blocks().last?["color"] as? String == "#808080")
        focus.signal(SIGTERM)
        focus.wait()
        #expect(eventually(within: 10) { blocks().last?["full_text"] as? String == "idle " }, "\(blocks())")
        let texts = blocks().map { $0["full_text"] as? String ?? "?" }
        #expect(texts == ["idle ", "playing focus", "paused focus", "idle "], "one block per change: \(texts)")
    }
}
