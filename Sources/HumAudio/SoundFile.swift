import CSndFile

#if canImport(Glibc)
    import Glibc
#endif

/// An open libsndfile handle, closed in deinit.
final class SoundFile {
    let handle: OpaquePointer
    let info: SF_INFO
    let path: String

    /// Opens for reading, checking first what libsndfile would only report vaguely: missing, a folder, not a regular
    /// file (a FIFO would block the read for ever, a device would be read without end), empty.
    ///
    /// The check opens the name itself, without blocking (a FIFO does not wait for a writer), and looks at what it
    /// got. libsndfile then opens the name again: by name, because it uses the extension to recognise some files
    /// (an MP3 without a clean first frame).
    init(reading path: String) throws(AudioFileError) {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = errno == ENOENT ? "no such file" : "\(String(cString: strerror(errno))) (open)"
            throw AudioFileError(path: path, reason: reason)
        }
        var st = stat()
        let statResult = fstat(fd, &st)
        let statError = errno
        Glibc.close(fd)
        guard statResult == 0 else {
            throw AudioFileError(path: path, reason: "\(String(cString: strerror(statError))) (fstat)")
        }
        if let kind = SoundFile.notAFile(st.st_mode) { throw AudioFileError(path: path, reason: kind) }
        if st.st_size == 0 { throw AudioFileError(path: path, reason: "the file is empty") }
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            throw AudioFileError(path: path, reason: SoundFile.openFailure(path))
        }
        self.handle = handle
        self.info = info
        self.path = path
        if info.channels <= 0 || info.samplerate <= 0 {
            throw AudioFileError(
                path: path, reason: "the header is invalid (\(info.channels) channels at \(info.samplerate) Hz)")
        }
        if info.frames <= 0 { throw AudioFileError(path: path, reason: "contains no audio") }
    }

    /// Opens for writing: the file at `path`, or, with `descriptor`, that open descriptor (left open on close; `path`
    /// then only names it in messages).
    init(writing path: String, descriptor: Int32? = nil, info: SF_INFO) throws(AudioFileError) {
        var info = info
        guard sf_format_check(&info) == SF_TRUE else {
            throw AudioFileError(
                path: path,
                reason: "libsndfile cannot write this format at \(info.samplerate) Hz with \(info.channels) channels")
        }
        let opened: OpaquePointer?
        if let descriptor {
            // libsndfile closes the descriptor it was given when the open fails, even when told not to close it:
            // it gets a copy of its own, which it always closes (on failure, or at sf_close), so the caller's
            // descriptor is never closed behind its back and then closed again (by then perhaps someone else's).
            let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
            guard copy >= 0 else {
                throw AudioFileError(
                    path: path, reason: "cannot write to its descriptor (dup: \(String(cString: strerror(errno))))")
            }
            opened = sf_open_fd(copy, Int32(SFM_WRITE), &info, Int32(SF_TRUE))
        } else {
            opened = sf_open(path, Int32(SFM_WRITE), &info)
        }
        guard let handle = opened else {
            throw AudioFileError(
                path: path, reason: "cannot create the file (sf_open: \(String(cString: sf_strerror(nil))))")
        }
        self.handle = handle
        self.info = info
        self.path = path
    }

    private var isOpen = true

    /// Closes now (writing the final header of a written file); deinit closes otherwise.
    func close() -> Int32 {
        guard isOpen else { return 0 }
        isOpen = false
        return sf_close(handle)
    }

    deinit { _ = close() }

    /// libsndfile notes a WAV/AIFF whose chunk sizes exceed the file ("data : 529200 (should be 99920)").
    var logMentionsTruncation: Bool {
        var log = [CChar](repeating: 0, count: 8192)
        sf_command(handle, Int32(SFC_GET_LOG_INFO), &log, Int32(log.count))
        let text = String(decoding: log.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: "\n").contains { $0.hasPrefix("data") && $0.contains("should be") }
    }

    /// Why something that is not a regular file cannot be a sound, or nil for a regular file.
    static func notAFile(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "is a directory, not an audio file"
        case S_IFIFO: return "is a FIFO (a named pipe), not an audio file; hum plays sounds from regular files"
        case S_IFCHR, S_IFBLK: return "is a device, not an audio file; hum plays sounds from regular files"
        case S_IFSOCK: return "is a socket, not an audio file; hum plays sounds from regular files"
        default: return "is not a regular file; hum plays sounds from regular files"
        }
    }

    private static func openFailure(_ path: String) -> String {
        let message = String(cString: sf_strerror(nil))
        // For a regular file (checked before), this message only means a decoder (mpg123) gave up on it.
        if message.contains("file is malformed") {
            return "the file is damaged or truncated (libsndfile knows the format but cannot parse it)"
        }
        if message.contains("not a regular file") {
            return
                "not an audio file libsndfile can read (no valid audio frames); use WAV, FLAC, Ogg Vorbis, Opus or MP3"
        }
        if message.contains("unknown format") || message.contains("Format not recognised") {
            return
                "not an audio file libsndfile can read (\(message.trimmingTrailingPeriod)); use WAV, FLAC, Ogg "
                + "Vorbis, Opus or MP3"
        }
        return "cannot decode (sf_open: \(message.trimmingTrailingPeriod))"
    }

    var formatName: String {
        var major = SF_FORMAT_INFO()
        major.format = info.format & Int32(SF_FORMAT_TYPEMASK)
        var sub = SF_FORMAT_INFO()
        sub.format = info.format & Int32(SF_FORMAT_SUBMASK)
        var names: [String] = []
        if sf_command(handle, Int32(SFC_GET_FORMAT_INFO), &major, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0,
            let n = major.name
        {
            names.append(String(cString: n))
        }
        if sf_command(handle, Int32(SFC_GET_FORMAT_INFO), &sub, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0,
            let n = sub.name
        {
            names.append(String(cString: n))
        }
        return names.joined(separator: ", ")
    }
}

extension String {
    /// libsndfile's messages end with a period; hum quotes them inside parentheses.
    var trimmingTrailingPeriod: String { hasSuffix(".") ? String(dropLast()) : self }
}
