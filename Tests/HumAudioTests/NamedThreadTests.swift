import Foundation
import Synchronization
import Testing

@testable import HumAudio

/// What replaced Foundation's Thread and localizedDescription in the binary: a thread that runs and carries its
/// name, and an errno said in the system's words.
@Suite struct NamedThreadTests {
    @Test func theThreadRunsUnderItsName() {
        let seen = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        NamedThread.start("hum-test-thread-long-name") {
            let name = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
            seen.withLock { $0 = name }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        // The kernel keeps 15 bytes of a thread's name.
        #expect(seen.withLock { $0 } == "hum-test-thread\n")
    }

    @Test func aFileErrorIsSaidInTheSystemsWords() {
        do {
            _ = try Data(contentsOf: URL(fileURLWithPath: "/nonexistent/sounds.json"))
            Issue.record("read a file that does not exist")
        } catch {
            #expect(fileErrorText(error) == "No such file or directory")
        }
        struct Other: Error {}
        #expect(fileErrorText(Other()) == "Other()")
    }
}
