import HumCore

/// Digital silence at the ends of a user's file, cut before the loop is made: a file with half a second of
/// silence at each end would otherwise loop with a one-second hole (silence to silence passes the seam's step
/// test, so it is not even crossfaded). Built-in sounds are made to loop and are never trimmed.
enum SilenceTrim {
    /// A sample at or under this (of 32768) is silence: under −80 dBFS (3.28 steps of 16 bits).
    static let threshold: Int16 = 3
    /// Silence counts only from 10 ms on: shorter quiet at an end is part of the sound (a note's attack).
    static func minimumFrames(sampleRate: Int) -> Int { max(1, sampleRate / 100) }

    /// The silent frames at the start and at the end of `samples` (interleaved), each 0 when shorter than the
    /// minimum; both 0 for a file that is silent throughout (nothing would be left to play).
    static func silentEnds(_ samples: UnsafeBufferPointer<Int16>, channels: Int, sampleRate: Int)
        -> (lead: Int, trail: Int)
    {
        let frames = samples.count / channels
        func silent(_ frame: Int) -> Bool {
            for c in 0..<channels where abs(Int(samples[frame * channels + c])) > Int(threshold) { return false }
            return true
        }
        var lead = 0
        while lead < frames, silent(lead) { lead += 1 }
        guard lead < frames else { return (0, 0) }
        var trail = 0
        while trail < frames - lead, silent(frames - 1 - trail) { trail += 1 }
        let minimum = minimumFrames(sampleRate: sampleRate)
        return (lead >= minimum ? lead : 0, trail >= minimum ? trail : 0)
    }

    /// Cuts the silent ends off a decoded file (its first frame moves on, its length shrinks; nothing is copied).
    static func trim(_ decoded: inout DecodedRegion) {
        let (lead, trail) = silentEnds(
            UnsafeBufferPointer(decoded.samples), channels: decoded.channels, sampleRate: decoded.sampleRate)
        decoded.start += lead
        decoded.frames -= lead + trail
    }
}
