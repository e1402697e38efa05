import HumCore

#if canImport(Glibc)
    import Glibc
#endif

extension Chime {
    /// The chime at the output rate, matched to the sounds' loudness (`targetLUFS`) with libebur128, measured as
    /// dual mono, as it plays; at its fixed level when the measurement fails.
    public static func matched(rate: Int, targetLUFS: Double) -> LoopBuffer {
        var samples = render(sampleRate: rate)
        if let meter = try? LoudnessMeter(channels: 2, sampleRate: rate) {
            var stereo = [Float](repeating: 0, count: samples.count * 2)
            for (i, s) in samples.enumerated() {
                stereo[2 * i] = s
                stereo[2 * i + 1] = s
            }
            if (try? meter.add(stereo)) != nil, let m = try? meter.measurement(), m.integratedLUFS.isFinite {
                let gain = Float(pow(10, (targetLUFS - m.integratedLUFS) / 20))
                samples = samples.map { $0 * gain }
            }
        }
        return LoopBuffer(interleaved: samples, channels: 1)
    }
}
