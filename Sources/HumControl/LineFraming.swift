/// Cuts a byte stream into lines of at most `limit` bytes (newline included). A longer line is an error the owner
/// acts on (reply and drop the peer): the buffer never grows past the limit.
struct LineFraming {
    let limit: Int
    private(set) var buffer: [UInt8] = []

    init(limit: Int) {
        self.limit = limit
        buffer.reserveCapacity(4096)
    }

    enum Piece: Equatable {
        case line([UInt8])
        case tooLong
    }

    /// Adds bytes; returns the complete lines (without their newline), and `.tooLong` when the unfinished line
    /// passes the limit (the buffer is then dropped).
    mutating func add(_ bytes: UnsafeRawBufferPointer) -> [Piece] {
        var pieces: [Piece] = []
        for byte in bytes {
            if byte == 10 {
                pieces.append(.line(buffer))
                buffer.removeAll(keepingCapacity: true)
            } else {
                if buffer.count + 1 >= limit {
                    buffer.removeAll()
                    pieces.append(.tooLong)
                    return pieces
                }
                buffer.append(byte)
            }
        }
        return pieces
    }
}
