# Sourced by scripts/test.sh and bench/playback.sh: makes sure a PulseAudio daemon runs with a null sink named
# `testsink` (paced in real time; ALSA `default` reaches it through libasound2-plugins) and makes it the default.
# Sets HUM_PULSE_STARTED=1 when it started the daemon itself (call stop_null_sink_daemon to stop it).
start_null_sink() {
    export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d /tmp/hum-runtime.XXXXXX)}"
    mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
    HUM_PULSE_STARTED=0
    if ! pactl info >/dev/null 2>&1; then
        # As a desktop runs it: its I/O threads (the null sink's) at real-time priority, the rest at nice -11
        # (granted as root; a desktop's server gets the same from rtkit).
        pulseaudio -n --daemonize=yes --exit-idle-time=-1 --system=no --disallow-exit --realtime=yes \
            --high-priority=yes \
            --load="module-null-sink sink_name=testsink format=float32le rate=48000 channels=2" \
            --load="module-native-protocol-unix" 2>/dev/null || true
        for _ in $(seq 50); do pactl info >/dev/null 2>&1 && break; sleep 0.1; done
        HUM_PULSE_STARTED=1
    fi
    pactl info >/dev/null 2>&1 || return 1
    pactl list short sinks | grep -q testsink ||
        pactl load-module module-null-sink sink_name=testsink format=float32le rate=48000 channels=2 >/dev/null
    pactl set-default-sink testsink
}

stop_null_sink_daemon() {
    if [ "${HUM_PULSE_STARTED:-0}" = 1 ]; then pulseaudio --kill 2>/dev/null || true; fi
}
