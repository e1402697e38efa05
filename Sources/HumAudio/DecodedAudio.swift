import HumCore

/// What a file holds, read from its header.
public struct AudioFileInfo: Sendable, Equatable {
    public var frames: Int
    public var sampleRate: Int
    public var channels: Int
    /// libsndfile's name of the container and codec, e.g. "OGG (OGG Container format), Vorbis".
    public var formatName: String

    public var durationSeconds: Double { sampleRate > 0 ? Double(frames) / Double(sampleRate) : 0 }
}

/// Audio decoded to interleaved float samples.
public struct DecodedAudio: Sendable {
    public var samples: [Float]
    public var channels: Int
    public var sampleRate: Int

    public var frames: Int { channels > 0 ? samples.count / channels : 0 }

    public init(samples: [Float], channels: Int, sampleRate: Int) {
        self.samples = samples
        self.channels = channels
        self.sampleRate = sampleRate
    }
}

/// Audio decoded to interleaved 16-bit samples (1 or 2 channels), in memory a loop can be built in.
public struct DecodedSamples: Sendable {
    public var storage: SampleStorage
    public var frames: Int
    public var channels: Int
    public var sampleRate: Int

    /// The decoded samples (the storage may be larger).
    public var samples: UnsafeMutableBufferPointer<Int16> {
        UnsafeMutableBufferPointer(start: storage.base, count: frames * channels)
    }
}

/// Decoded 16-bit samples at frame `start` of memory still being built (the loader's working form).
struct DecodedRegion {
    let memory: SampleMemory
    var start: Int
    var frames: Int
    let channels: Int
    let sampleRate: Int

    var samples: UnsafeMutableBufferPointer<Int16> {
        UnsafeMutableBufferPointer(start: memory.base + start * channels, count: frames * channels)
    }
}
