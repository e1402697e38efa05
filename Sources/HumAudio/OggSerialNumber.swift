#if canImport(Glibc)
    import Glibc
#endif

/// Sets the serial number of every page of a single-stream Ogg file, fixing each page's checksum.
///
/// libsndfile gives each Ogg stream it writes a random serial number, so the same audio encodes to different
/// bytes every run and `make sounds` would rewrite every file in Sounds/ with nothing changed. Fixing the serial
/// (hum-soundgen derives it from the sound's seed) makes the generator's files reproducible byte for byte.
public enum OggSerialNumber {
    public static func set(_ serial: UInt32, inFile path: String) throws(AudioFileError) {
        var bytes = try read(path)
        var offset = 0
        var pages = 0
        while offset < bytes.count {
            guard offset + 27 <= bytes.count, bytes[offset] == 0x4F, bytes[offset + 1] == 0x67,
                bytes[offset + 2] == 0x67, bytes[offset + 3] == 0x53
            else {
                throw AudioFileError(path: path, reason: "not an Ogg file (no page at byte \(offset))")
            }
            let segments = Int(bytes[offset + 26])
            guard offset + 27 + segments <= bytes.count else {
                throw AudioFileError(path: path, reason: "truncated Ogg page")
            }
            var length = 27 + segments
            for s in 0..<segments { length += Int(bytes[offset + 27 + s]) }
            guard offset + length <= bytes.count else { throw AudioFileError(path: path, reason: "truncated Ogg page") }
            for k in 0..<4 {
                bytes[offset + 14 + k] = UInt8((serial >> (8 * UInt32(k))) & 0xFF)
                bytes[offset + 22 + k] = 0
            }
            let crc = checksum(bytes[offset..<(offset + length)])
            for k in 0..<4 { bytes[offset + 22 + k] = UInt8((crc >> (8 * UInt32(k))) & 0xFF) }
            offset += length
            pages += 1
        }
        guard pages > 0 else { throw AudioFileError(path: path, reason: "the file is empty") }
        try write(bytes, to: path)
    }

    /// Ogg's CRC-32: polynomial 0x04C11DB7, not reflected, initial value 0, no final XOR.
    static let table: [UInt32] = (0..<256).map { i in
        var r = UInt32(i) << 24
        for _ in 0..<8 { r = (r & 0x8000_0000) != 0 ? (r << 1) ^ 0x04C1_1DB7 : r << 1 }
        return r
    }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0
        for b in bytes { crc = (crc << 8) ^ table[Int(((crc >> 24) ^ UInt32(b)) & 0xFF)] }
        return crc
    }

    static func read(_ path: String) throws(AudioFileError) -> [UInt8] {
        guard let file = fopen(path, "rb") else {
            throw AudioFileError(path: path, reason: String(cString: strerror(errno)))
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n > 0 { bytes.append(contentsOf: buffer[0..<n]) }
            if n < buffer.count { break }
        }
        if ferror(file) != 0 { throw AudioFileError(path: path, reason: "cannot read the file") }
        return bytes
    }

    static func write(_ bytes: [UInt8], to path: String) throws(AudioFileError) {
        guard let file = fopen(path, "wb") else {
            throw AudioFileError(path: path, reason: String(cString: strerror(errno)))
        }
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        let closed = fclose(file)
        if written != bytes.count || closed != 0 { throw AudioFileError(path: path, reason: "cannot write the file") }
    }
}
