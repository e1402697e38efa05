import CSystemd
import HumCore
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

/// hum as an MPRIS media player (org.mpris.MediaPlayer2 and .Player at /org/mpris/MediaPlayer2), on the session
/// bus: what media keys, desktop panels and `playerctl` see and steer. Every request becomes a `PlayerCommand`
/// run by the player's one interpreter; every change the player reports is announced with PropertiesChanged
/// (Position is read on demand, as the specification says) and Seeked when the position jumps.
public final class MediaPlayerService {
    public static let objectPath = "/org/mpris/MediaPlayer2"
    public static let rootInterface = "org.mpris.MediaPlayer2"
    public static let playerInterface = "org.mpris.MediaPlayer2.Player"

    private let connection: BusConnection
    private let player: DesktopPlayer
    /// The name asked for first; `.instance<pid>` is added when another player of the same name owns it.
    public let baseName: String
    /// The bus name owned, once the bus said so.
    public private(set) var name: String?
    /// Told the outcome of the name request: the name owned, or why none.
    var onName: ((Result<String, BusError>) -> Void)?
    /// What was last announced (Position left out of the comparison), and when (monotonic seconds): clients
    /// extrapolate the position from there while Playing.
    private var shown: MediaPlayerView
    private var shownAt = monotonicSeconds()
    private var vtables: [UnsafeMutablePointer<sd_bus_vtable>] = []
    private var slots: [OpaquePointer] = []

    init(connection: BusConnection, player: DesktopPlayer, name: String = "org.mpris.MediaPlayer2.hum")
        throws(BusError)
    {
        self.connection = connection
        self.player = player
        baseName = name
        shown = MediaPlayerView(status: player.status())
        guard let bus = connection.bus else {
            throw BusError(bus: "session bus", call: "sd_bus_add_object_vtable", code: ENOTCONN)
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        guard let root = hum_mpris_root_vtable(Self.method, Self.get),
            let playerTable = hum_mpris_player_vtable(Self.method, Self.get, Self.set)
        else { throw BusError(bus: "session bus", call: "malloc of the MPRIS vtables", code: ENOMEM) }
        vtables = [root, playerTable]
        for (interface, table) in [(Self.rootInterface, root), (Self.playerInterface, playerTable)] {
            var slot: OpaquePointer?
            do {
                try check(
                    "sd_bus_add_object_vtable(\(interface))", on: "session bus",
                    sd_bus_add_object_vtable(bus, &slot, Self.objectPath, interface, table, me))
            } catch {
                close()
                throw error
            }
            if let slot { slots.append(slot) }
        }
        try request(name)
    }

    deinit { close() }

    /// Drops the object (the connection's end drops the name).
    func close() {
        for slot in slots { sd_bus_slot_unref(slot) }
        slots = []
        for table in vtables { free(table) }
        vtables = []
    }

    // MARK: The name

    private func request(_ wanted: String) throws(BusError) {
        guard let bus = connection.bus else {
            throw BusError(bus: "session bus", call: "sd_bus_request_name_async", code: ENOTCONN)
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        // Not queued: taken means taken, and the instance name is asked for instead.
        let r = wanted.withCString { name in
            sd_bus_request_name_async(
                bus, nil, name, 0,
                { reply, userdata, _ in
                    guard let reply, let userdata else { return 0 }
                    Unmanaged<MediaPlayerService>.fromOpaque(userdata).takeUnretainedValue().named(
                        BusMessage(borrowing: reply))
                    return 1
                }, me)
        }
        try check("sd_bus_request_name_async(\(wanted))", on: "session bus", r)
        pendingName = wanted
        connection.reschedule()
    }

    private var pendingName = ""

    private func named(_ reply: BusMessage) {
        let wanted = pendingName
        if let error = reply.error {
            onName?(
                .failure(
                    BusError(
                        bus: "session bus", call: "RequestName(\(wanted)): \(error.name) \(error.message)", code: EIO)))
            return
        }
        // 1: now the owner, 4: already was; 3: another owns it (not queued).
        let answer = (try? reply.readUInt32()) ?? 0
        switch answer {
        case 1, 4:
            name = wanted
            onName?(.success(wanted))
        case 3 where wanted == baseName:
            do {
                try request("\(baseName).instance\(getpid())")
            } catch {
                onName?(.failure(error))
            }
        default:
            onName?(
                .failure(BusError(bus: "session bus", call: "RequestName(\(wanted)) answered \(answer)", code: EEXIST)))
        }
    }

    // MARK: Changes

    /// The player changed: announces the properties that differ from what was last announced, and Seeked when the
    /// same track's position is not where a client following the clock would put it (a restart) or its length
    /// moved (an extension moves the deadline).
    func update(_ status: PlayerStatus) {
        let now = MediaPlayerView(status: status)
        let before = shown
        let time = monotonicSeconds()
        let followed =
            before.positionMicroseconds
            + (before.playbackStatus == .playing ? Int64((time - shownAt) * 1_000_000) : 0)
        shown = now
        shownAt = time
        guard let bus = connection.bus else { return }
        var names: [String] = []
        if now.playbackStatus != before.playbackStatus { names.append("PlaybackStatus") }
        if now.trackID != before.trackID || now.title != before.title || now.artist != before.artist
            || now.lengthMicroseconds != before.lengthMicroseconds
        {
            names.append("Metadata")
        }
        if now.volume != before.volume { names.append("Volume") }
        if now.canGoNext != before.canGoNext { names.append("CanGoNext") }
        if now.canGoPrevious != before.canGoPrevious { names.append("CanGoPrevious") }
        if !names.isEmpty {
            let list = names.map { strdup($0) } + [nil]
            defer { for p in list { free(p) } }
            var pointers = list
            _ = pointers.withUnsafeMutableBufferPointer {
                sd_bus_emit_properties_changed_strv(bus, Self.objectPath, Self.playerInterface, $0.baseAddress)
            }
        }
        // Positions come in whole seconds: a difference within 1.5 s is the clock, not a jump.
        if now.trackID == before.trackID,
            now.lengthMicroseconds != before.lengthMicroseconds
                || abs(now.positionMicroseconds - followed) > 1_500_000
        {
            _ = hum_bus_emit_seeked(bus, Self.objectPath, now.positionMicroseconds)
        }
        connection.reschedule()
    }

    // MARK: Requests from the bus

    /// A method of either interface.
    private func call(_ member: String, _ message: BusMessage) throws -> Bool {
        let view = MediaPlayerView(status: player.status())
        switch member {
        case "PlayPause": try player.handle(.toggle)
        case "Play": if view.playbackStatus == .paused { try player.handle(.resume) }
        case "Pause": if view.playbackStatus == .playing { try player.handle(.pause) }
        case "Stop", "Quit": try player.handle(.stop)
        case "Next": if view.canGoNext { try player.handle(.skip) }
        case "Previous": if view.canGoPrevious { try player.handle(.restart) }
        case "Raise", "Seek", "SetPosition": break  // CanRaise and CanSeek are false: no effect, as the spec asks
        case "OpenUri": return false
        default: return false
        }
        return true
    }

    private static let method: sd_bus_message_handler_t = { message, userdata, busError in
        guard let message, let userdata else { return -EINVAL }
        let me = Unmanaged<MediaPlayerService>.fromOpaque(userdata).takeUnretainedValue()
        let wrapped = BusMessage(borrowing: message)
        do {
            guard try me.call(wrapped.member, wrapped) else {
                return sd_bus_error_set(
                    busError, "org.freedesktop.DBus.Error.NotSupported", "hum plays its own sounds; it opens no URI")
            }
        } catch let failure as any UserFacingError {
            return sd_bus_error_set(busError, "org.freedesktop.DBus.Error.Failed", failure.message)
        } catch {
            return sd_bus_error_set(busError, "org.freedesktop.DBus.Error.Failed", "\(error)")
        }
        return hum_bus_reply_empty(message)
    }

    /// A property's value, appended to the reply.
    private func get(_ property: String, into reply: BusMessage) throws(BusError) {
        let view = shown
        switch property {
        case "CanQuit", "CanPlay", "CanPause", "CanControl": try reply.append(true)
        case "CanRaise", "HasTrackList", "CanSeek": try reply.append(false)
        case "Identity": try reply.append("hum")
        case "SupportedUriSchemes", "SupportedMimeTypes": try reply.append([String]())
        case "PlaybackStatus": try reply.append(view.playbackStatus.rawValue)
        case "Rate", "MinimumRate", "MaximumRate": try reply.append(1.0)
        case "Volume": try reply.append(view.volume)
        case "CanGoNext": try reply.append(view.canGoNext)
        case "CanGoPrevious": try reply.append(view.canGoPrevious)
        case "Position": try reply.append(MediaPlayerView(status: player.status()).positionMicroseconds)
        case "Metadata":
            try reply.open("a", "{sv}")
            try reply.entry("mpris:trackid", "o") { m throws(BusError) in try m.append(objectPath: view.trackID) }
            try reply.entry("xesam:title", "s") { m throws(BusError) in try m.append(view.title) }
            try reply.entry("xesam:artist", "as") { m throws(BusError) in try m.append([view.artist]) }
            if let length = view.lengthMicroseconds {
                try reply.entry("mpris:length", "x") { m throws(BusError) in try m.append(length) }
            }
            try reply.close()
        default:
            throw BusError(bus: "session bus", call: "Get(\(property))", code: ENOENT)
        }
    }

    private static let get: sd_bus_property_get_t = { _, _, _, property, reply, userdata, busError in
        guard let property, let reply, let userdata else { return -EINVAL }
        let me = Unmanaged<MediaPlayerService>.fromOpaque(userdata).takeUnretainedValue()
        do throws(BusError) {
            try me.get(String(cString: property), into: BusMessage(borrowing: reply))
        } catch let failure {
            return sd_bus_error_set(busError, "org.freedesktop.DBus.Error.Failed", failure.message)
        }
        return 1
    }

    /// Volume, the one writable property: the master follows (see `MediaPlayerView.master(volume:)`).
    private static let set: sd_bus_property_set_t = { _, _, _, property, value, userdata, busError in
        guard let property, let value, let userdata else { return -EINVAL }
        let me = Unmanaged<MediaPlayerService>.fromOpaque(userdata).takeUnretainedValue()
        guard String(cString: property) == "Volume" else {
            return sd_bus_error_set(busError, "org.freedesktop.DBus.Error.PropertyReadOnly", "only Volume can be set")
        }
        do {
            let volume = try BusMessage(borrowing: value).readDouble()
            guard let master = MediaPlayerView.master(volume: volume) else {
                return sd_bus_error_set(
                    busError, "org.freedesktop.DBus.Error.InvalidArgs", "the volume is not a number")
            }
            try me.player.handle(.master(volume: master))
        } catch let failure as any UserFacingError {
            return sd_bus_error_set(busError, "org.freedesktop.DBus.Error.Failed", failure.message)
        } catch {
            return sd_bus_error_set(busError, "org.freedesktop.DBus.Error.Failed", "\(error)")
        }
        return 1
    }
}
