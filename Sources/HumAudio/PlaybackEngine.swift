import Dispatch
import HumCore
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// The real-time engine: one thread that waits until the sink has room for a period, then pulls that period from
/// the mixer and pushes it to the sink (room first, so a control change waits behind the device's buffer only).
///
/// Its loop allocates nothing, takes no lock and does no file I/O: the mixer reads its controls through atomics,
/// the period buffer is allocated before the thread starts, and state goes out through atomics; the owner learns
/// of changes through `onStateChange` and `onRelease` (an eventfd write each, at rare moments), not by polling.
/// When the device goes away it says so through `state`, keeps the mixer as it is, and tries to reopen the device
/// every half second; playback resumes where it stopped. `abort()` ends a write, a drain or that wait at once.
///
/// The thread asks for real-time scheduling before its loop, and falls back quietly; `scheduling` says what it got.
///
/// Beside it, while it runs, a `LoopPager` keeps resident the pages of loops mapped from the cache that the voices
/// will read in the next seconds, so this thread never waits for one.
public final class PlaybackEngine<Sink: AudioSink>: @unchecked Sendable {
    // @unchecked: the mixer and sink are used only by the engine thread once it runs; shared state is atomic.

    public enum State: UInt8, Sendable {
        case idle, playing, deviceLost, finished
    }

    public let mixer: Mixer
    public let sink: Sink
    private let stateValue = Atomic<UInt8>(State.idle.rawValue)
    private let underrunCount = Atomic<Int>(0)
    /// When the first `keptUnderrunTimes` underruns happened, in seconds since the engine thread started: each
    /// written by the engine thread before it counts that underrun, so a reader may read as many as it counted.
    private let underrunTimes: UnsafeMutablePointer<Double>
    private let lostCode = Atomic<Int32>(0)
    private let reopenCount = Atomic<Int>(0)
    private let abortFlag = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    /// Signalled by `abort()`: ends the wait between attempts to reopen a lost device.
    private let wake = DispatchSemaphore(value: 0)
    /// Set while the thread closes or reopens a lost device: calls that can hang for as long as a sound server
    /// that stopped answering does. An abort then does not wait for them (see `wait`).
    private let inDeviceCall = Atomic<Bool>(false)
    /// Written once by the engine thread before its loop, signalled by `scheduled`.
    private let granted = Mutex<ThreadScheduling>(.normal(reason: "the engine has not started"))
    private let scheduled = DispatchSemaphore(value: 0)
    private let buffer: UnsafeMutablePointer<Float>
    /// How long to wait between attempts to reopen a lost device.
    public var reopenInterval: Double = 0.5
    /// Called on the engine thread at each change of `state` and after the first period was written (set before
    /// `start`): how an event loop learns of it without polling. It must be cheap and wait-free (an eventfd write).
    public var onStateChange: (@Sendable () -> Void)?
    /// Called on the engine thread when the mixer let go of sounds removed from the mix (`MixerControls.releases`
    /// moved), so the owner can free them (`TrackSlots.reclaim()`). Set before `start`; cheap and wait-free too.
    public var onRelease: (@Sendable () -> Void)?
    private let wroteFirst = Atomic<Bool>(false)
    /// Keeps what the voices read soon resident (for loops mapped from the cache; it sleeps while there are none).
    public let pager: LoopPager

    /// - Parameter sink: already opened (so its format is known before the mixer was built).
    public init(mixer: Mixer, sink: Sink) {
        self.mixer = mixer
        self.sink = sink
        buffer = .allocate(capacity: 2 * PlaybackEngine.maximumPeriod)
        underrunTimes = .allocate(capacity: PlaybackEngine.keptUnderrunTimes)
        underrunTimes.initialize(repeating: 0, count: PlaybackEngine.keptUnderrunTimes)
        pager = LoopPager(controls: mixer.controls, sampleRate: mixer.sampleRate)
    }

    deinit {
        buffer.deallocate()
        underrunTimes.deallocate()
    }

    /// The most frames mixed for one write (a device's period, mixed in blocks of `Mixer.maximumBlock`): 170 ms at
    /// 48 kHz, past any period hum asks a device for.
    public static var maximumPeriod: Int { 4 * Mixer.maximumBlock }

    public var state: State { State(rawValue: stateValue.load(ordering: .acquiring)) ?? .idle }
    /// Whether the device has begun to play the mix (it consumed what was written, not merely buffered it): the
    /// mix is reaching the ears. A sound server may take a while to start a stream (a PulseAudio null sink up to
    /// 2 s); this says when it did.
    public var hasStarted: Bool { wroteFirst.load(ordering: .acquiring) }
    /// Underruns recovered so far.
    public var underruns: Int { underrunCount.load(ordering: .relaxed) }
    /// How many underrun times the engine keeps (`underrunSeconds`).
    public static var keptUnderrunTimes: Int { 64 }
    /// When the first underruns happened (at most `keptUnderrunTimes`), in seconds since the engine started.
    public var underrunSeconds: [Double] {
        let count = min(underrunCount.load(ordering: .acquiring), PlaybackEngine.keptUnderrunTimes)
        return Array(UnsafeBufferPointer(start: underrunTimes, count: count))
    }
    /// The error code of the write that lost the device (negative errno), while lost.
    public var lostErrorCode: Int32 { lostCode.load(ordering: .relaxed) }
    /// How many times the device was reopened after being lost.
    public var reopens: Int { reopenCount.load(ordering: .relaxed) }
    /// How the engine thread is scheduled: known once `start` returned.
    public var scheduling: ThreadScheduling { granted.withLock { $0 } }

    /// Starts the engine thread, and returns once it has asked for its scheduling (see `scheduling`).
    public func start() {
        stateValue.store(State.playing.rawValue, ordering: .releasing)
        pager.start()
        // The thread asks the kernel for its scheduling itself, in `run`.
        NamedThread.start("hum-audio") { [self] in run() }
        scheduled.wait()
    }

    /// Stops at once, without a fade (a second Ctrl-C): a write waiting for the device, a drain, or the wait to
    /// reopen a lost device ends now.
    public func abort() {
        abortFlag.store(true, ordering: .sequentiallyConsistent)
        sink.interrupt()
        wake.signal()
        if inDeviceCall.load(ordering: .sequentiallyConsistent) { done.signal() }
    }

    /// Waits until the engine finished, up to `timeout` seconds. Returns false on timeout. After `abort()`, it also
    /// returns (false) when the thread is stuck closing or reopening a lost device: the engine will never play
    /// again, and the device may never answer.
    @discardableResult
    public func wait(timeout: Double) -> Bool {
        done.wait(timeout: .now() + timeout) == .success
    }

    private func run() {
        let changed = onStateChange
        let released = onRelease
        var releases = mixer.releases
        let scheduling = SchedulingRequest.applyToCurrentThread()
        let began = PlaybackEngine.now()
        granted.withLock { $0 = scheduling }
        scheduled.signal()
        defer {
            pager.stop()
            stateValue.store(State.finished.rawValue, ordering: .releasing)
            done.signal()
            changed?()
        }
        var period = min(max(sink.periodFrames, 64), PlaybackEngine.maximumPeriod)
        while !abortFlag.load(ordering: .relaxed) {
            if state == .deviceLost {
                if wake.wait(timeout: .now() + reopenInterval) == .success { continue }  // aborted
                do throws(AudioSinkError) {
                    try deviceCall { () throws(AudioSinkError) in try sink.open() }
                    guard sink.sampleRate == mixer.sampleRate else {
                        sink.close()  // came back at another rate: keep waiting for the one the loops were made for
                        continue
                    }
                    period = min(max(sink.periodFrames, 64), PlaybackEngine.maximumPeriod)
                    reopenCount.add(1, ordering: .relaxed)
                    lostCode.store(0, ordering: .relaxed)
                    stateValue.store(State.playing.rawValue, ordering: .releasing)
                    changed?()
                } catch {
                    continue
                }
                continue
            }
            // Room first, then the mix: the controls are read as late as they can be, so what is queued ahead
            // of them is at most the device's buffer.
            switch sink.awaitRoom() {
            case .written, .recovered: break
            case .interrupted: continue  // aborted: the loop ends
            case .lost(let code):
                lose(code, changed)
                continue
            }
            var n = 0
            while n < period {
                let block = min(period - n, Mixer.maximumBlock)
                let made = mixer.render(into: buffer + 2 * n, frames: block)
                n += made
                if made < block { break }
            }
            let nowReleased = mixer.releases
            if nowReleased != releases {
                releases = nowReleased
                released?()
            }
            if n > 0 {
                switch sink.write(buffer, count: n) {
                case .written: break
                case .recovered(let underruns): counted(underruns, since: began)
                case .interrupted: continue  // aborted: the loop ends
                case .lost(let code):
                    lose(code, changed)
                    continue
                }
                if !wroteFirst.load(ordering: .relaxed), sink.hasBegunPlaying {
                    wroteFirst.store(true, ordering: .releasing)
                    changed?()
                }
            }
            if n < period {
                if !abortFlag.load(ordering: .relaxed) { sink.finish() }
                break
            }
        }
        sink.close()
    }

    /// Counts underruns the sink reported, noting when (on the engine thread: no allocation, no lock).
    private func counted(_ underruns: Int, since began: Double) {
        let at = PlaybackEngine.now() - began
        for _ in 0..<max(underruns, 0) {
            let index = underrunCount.load(ordering: .relaxed)
            if index < PlaybackEngine.keptUnderrunTimes { underrunTimes[index] = at }
            underrunCount.store(index + 1, ordering: .releasing)
        }
    }

    /// Monotonic seconds.
    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The device went away: said before closing it, since closing a stream on a sound server that hangs can hang
    /// too, and the owner must not wait on that to learn the device is gone (a stop then ends at once).
    private func lose(_ code: Int32, _ changed: (@Sendable () -> Void)?) {
        lostCode.store(code, ordering: .relaxed)
        stateValue.store(State.deviceLost.rawValue, ordering: .releasing)
        changed?()
        deviceCall { sink.close() }
    }

    /// Runs a call on a lost device, letting an abort stop waiting for it (see `wait`).
    private func deviceCall<T, E: Error>(_ call: () throws(E) -> T) throws(E) -> T {
        inDeviceCall.store(true, ordering: .sequentiallyConsistent)
        if abortFlag.load(ordering: .sequentiallyConsistent) { done.signal() }
        defer { inDeviceCall.store(false, ordering: .sequentiallyConsistent) }
        return try call()
    }
}
