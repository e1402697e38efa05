/// The mix's limiter, run apart from the mixer: an offline render mixes on one thread (`Mixer.mixUnlimited`) and
/// limits on the one that writes the file, so both cores work at once. Frames go in as the mixer mixed them and
/// come out `delay` frames later; `finish` plays out what the line still holds. Every frame that goes in comes out
/// once, limited as `Mixer.render` limits it: the first `delay` frames prime the line as `render` primes it, and
/// the limiter's output does not depend on how the rest is cut into blocks (where it skips work, it skips only
/// what would have left the samples as they were).
///
/// All memory is allocated at init; the owner calls `deallocate()` once.
public struct LimiterStage {
    private var limiter: TruePeakLimiter
    /// Frames of the first `delay` taken in so far (the line is primed when it reaches `delay`).
    private var primed = 0
    /// Where the primed line's first output goes: the silence the line started with, dropped.
    private let scratch: UnsafeMutablePointer<Float>

    public init(sampleRate: Int) {
        limiter = TruePeakLimiter(sampleRate: sampleRate, maximumBlock: Mixer.maximumBlock)
        scratch = .allocate(capacity: 2 * limiter.delay)
    }

    public func deallocate() {
        limiter.deallocate()
        scratch.deallocate()
    }

    /// How many frames the line holds back: what `finish` gives at most.
    public var delay: Int { limiter.delay }

    /// Takes in `frames` frames (interleaved stereo) and writes the frames leaving the line to `out`, which has
    /// room for `frames`; returns how many (`frames`, less what primes the line at the start).
    public mutating func process(_ input: UnsafePointer<Float>, frames: Int, into out: UnsafeMutablePointer<Float>)
        -> Int
    {
        var taken = 0
        var written = 0
        let delay = limiter.delay
        while taken < frames {
            if primed < delay {
                let k = min(delay - primed, frames - taken)
                (limiter.input + 2 * primed).update(from: input + 2 * taken, count: 2 * k)
                primed += k
                taken += k
                if primed == delay { limiter.process(into: scratch, frames: delay) }
                continue
            }
            let n = min(frames - taken, Mixer.maximumBlock)
            limiter.input.update(from: input + 2 * taken, count: 2 * n)
            limiter.process(into: out + 2 * written, frames: n)
            taken += n
            written += n
        }
        return written
    }

    /// Plays out the frames still in the line, with silence coming in behind them as `Mixer.render` does once the
    /// mix has ended, into `out` (room for `delay` frames); returns how many.
    public mutating func finish(into out: UnsafeMutablePointer<Float>) -> Int {
        let delay = limiter.delay
        var held = delay
        if primed < delay {  // a mix shorter than the line: primed with what there was and silence
            (limiter.input + 2 * primed).update(repeating: 0, count: 2 * (delay - primed))
            limiter.process(into: scratch, frames: delay)
            held = primed
            primed = delay
        }
        guard held > 0 else { return 0 }
        limiter.input.update(repeating: 0, count: 2 * held)
        limiter.process(into: out, frames: held)
        return held
    }
}
