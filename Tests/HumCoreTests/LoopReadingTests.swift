import Testing

@testable import HumCore

/// What the audio thread publishes of where its voices read (`LoopReading`), and the segments' draws made one join
/// ahead: the joins land where drawing each at its join put them, and the next one is known before it comes.
@Suite struct LoopReadingTests {
    typealias B = BedSegmentsTests

    /// The joins as the mixer made them before the draws moved one join ahead: the segment's length drawn when its
    /// crossfade ends, the jump drawn at the join. Each: the output frame the crossfade starts at and the loop frame
    /// it crossfades into.
    static func modelJoins(_ plan: BedSegments, frames: Int, seed: UInt64, until end: Int) -> [(at: Int, to: Int)] {
        let t = plan.table.pointee
        let jumps = Mixer.Voice.segmentJumps(plan.table, frames: frames)!
        var random = Mixer.Voice.segmentGenerator(seed: seed, nameHash: t.nameHash)
        func grid(_ i: Int) -> Int { Int(Double(i) * Double(frames) / Double(jumps.steps) + 0.5) }
        func length() -> Int { t.shortestSteps + Int(random.next() % UInt64(t.stepChoices)) }
        var joinStep = length()
        var at = t.phase + grid(joinStep)
        var joins: [(at: Int, to: Int)] = []
        while at < end {
            joinStep = (joinStep + jumps.least + Int(random.next() % UInt64(jumps.choices))) % jumps.steps
            joins.append((at, (grid(joinStep) + t.phase) % frames))
            let start = joinStep
            joinStep = start + length()
            at += t.crossfadeFrames + grid(joinStep) - grid(start) - t.crossfadeFrames
        }
        return joins
    }

    @Test(arguments: [(UInt64(7), 0.5, nil as Double?), (UInt64(99), 0.2, nil), (UInt64(3), 0.25, 0.5)])
    func joinsLandWhereDrawingEachAtItsJoinPutThem(seed: UInt64, crossfade: Double, grid: Double?) {
        let plan = B.plan(3...7, crossfade: crossfade, grid: grid, offset: grid == nil ? 0 : 0.1)
        let seconds = 300.0
        let out = B.render(
            [Mixer.Track(loop: B.ruler(), segments: plan)], seed: seed, seconds: seconds, chunk: 333)
        let c = plan.table.pointee.crossfadeFrames
        let joins = Self.modelJoins(plan, frames: B.frames, seed: seed, until: Int(seconds) * B.rate - c)
        #expect(joins.count > 40)
        // After each crossfade the loop plays alone from where the join went, C frames on.
        let runs = B.runs(out)
        for join in joins {
            let run = runs.first { $0.at == join.at + c }
            #expect(run?.from == (join.to + c) % B.frames, "the join at \(join.at)")
        }
    }

    @Test func theNextJoinIsPublishedBeforeItComes() {
        let plan = B.plan(3...7, crossfade: 0.5)
        let controls = MixerControls(volumes: [100])
        let mixer = Mixer(
            sampleRate: B.rate, tracks: [Mixer.Track(loop: B.ruler(), segments: plan)], controls: controls,
            eventSeed: 5)
        let joins = Self.modelJoins(plan, frames: B.frames, seed: 5, until: 200 * B.rate)
        var rendered = 0
        var checked = 0
        while rendered < 190 * B.rate {
            _ = renderFrames(mixer, 250)
            rendered += 250
            let readings = controls.readings()
            #expect(readings.count == 1)
            guard let reading = readings.first else { return }
            // The voice's next join, still to come (the mixer mixes the limiter's delay ahead of what it hands out).
            let mixed = rendered + mixer.latencyFrames
            guard let next = joins.first(where: { $0.at > mixed }) else { break }
            // Where it reads, in how many frames: its crossfade starts exactly then.
            #expect(reading.reads.last == LoopReading.Read(from: next.to, after: next.at - mixed), "at \(rendered)")
            // Where it is, read on to the end of the next crossfade (or of the one under way).
            let c = plan.table.pointee.crossfadeFrames
            let crossfading = joins.last(where: { $0.at <= mixed }).map { mixed < $0.at + c } ?? false
            if !crossfading { #expect(reading.reads[0].atMost == next.at - mixed + c, "at \(rendered)") }
            #expect(reading.reads.count == (crossfading ? 3 : 2), "at \(rendered)")
            #expect(reading.shortestSegment != nil)
            checked += 1
        }
        #expect(checked > 500)
    }

    @Test func aPlainLoopPublishesWhereItIsAndNothingOnceLetGo() throws {
        let loop = B.ruler()
        let controls = MixerControls(volumes: [100])
        let mixer = Mixer(sampleRate: B.rate, tracks: [Mixer.Track(loop: loop)], controls: controls)
        _ = renderFrames(mixer, 1000)
        let reading = try #require(controls.readings().first)
        #expect(reading.address == UInt(bitPattern: loop.samples))
        #expect(reading.frames == B.frames && reading.channels == 2 && reading.shortestSegment == nil)
        #expect(reading.reads == [LoopReading.Read(from: 1000 + mixer.latencyFrames)])
        mixer.slots.remove(0, fadeFrames: 10)
        _ = renderFrames(mixer, 100)
        #expect(controls.readings().isEmpty)
    }

    @Test func windowsWrapMergeAndTakeTheWholeLoopForShortSegments() {
        typealias Read = LoopReading.Read
        var r = LoopReading(address: 1, frames: 1000, channels: 1, reads: [Read(from: 900)])
        #expect(r.windows(ahead: 200, horizon: 100) == [0..<100, 900..<1000])
        r.reads = [Read(from: 100), Read(from: 150), Read(from: 600)]
        #expect(r.windows(ahead: 100, horizon: 100) == [100..<250, 600..<700])
        r.reads = [Read(from: 10)]
        #expect(r.windows(ahead: 5000, horizon: 100) == [0..<1000])
        r.shortestSegment = 300
        #expect(r.windows(ahead: 200, horizon: 100) == [10..<210])
        #expect(r.windows(ahead: 200, horizon: 300) == [0..<1000])
        // A bed in segments: where it is up to its crossfade's end, the next join only for what is left of the
        // window once it comes, and not at all when it comes after the window.
        r.reads = [Read(from: 10, atMost: 50), Read(from: 500, after: 120)]
        #expect(r.windows(ahead: 200, horizon: 100) == [10..<60, 500..<580])
        #expect(r.windows(ahead: 100, horizon: 100) == [10..<60])
    }
}
