import Foundation
import HumAudio
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Silencing a descriptor while decoder libraries print, from many threads at once, as parallel loads and
/// in-process tests do: it always comes back to what it was.
@Suite struct LibraryNoiseTests {
    /// The file a descriptor points at (device and inode).
    static func identity(_ fd: Int32) -> (UInt, UInt)? {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        return (UInt(info.st_dev), UInt(info.st_ino))
    }

    @Test func overlappingCallsOnManyThreadsGiveTheDescriptorBack() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { for fd in ends { close(fd) } }
        // A descriptor of the test's own (not the runner's stderr), pointing at the pipe.
        let fd = fcntl(ends[1], F_DUPFD_CLOEXEC, 100)
        #expect(fd >= 0)
        defer { close(fd) }
        let before = try #require(Self.identity(fd))
        let silencer = DescriptorSilencer(fd)
        let nullFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let null = try #require(Self.identity(nullFD))
        close(nullFD)
        let sawNull = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for i in 0..<300 {
                silencer.silenced {
                    if let now = Self.identity(fd), now == null { sawNull.add(1, ordering: .relaxed) }
                    if (i + thread) % 7 == 0 { usleep(50) }  // a time: other threads come in while this one is in
                }
            }
        }
        let after = try #require(Self.identity(fd))
        #expect(after == before, "the descriptor was left elsewhere")
        #expect(sawNull.load(ordering: .relaxed) == 8 * 300, "the body ran with the descriptor at /dev/null")
    }
}
