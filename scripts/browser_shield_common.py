"""What the two browser tests of the shields' extension share (scripts/browser-shield-test.py for Chromium,
scripts/browser-shield-firefox.py for Firefox): the steps they print, the web server on 127.0.0.1, hum run as a
command, waiting, and killing hum during a lease so that no host can be started again.

Environment: HUM_BIN, the sandbox's HOME and XDG variables.
"""

import http.server
import json
import os
import signal
import subprocess
import threading
import time

HUM = os.environ["HUM_BIN"]
HOME = os.environ["HOME"]


def say(**fields):
    """One step of the test, as a JSON line the Swift test reads."""
    print(json.dumps(fields), flush=True)


class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = f"<html><title>page {self.headers.get('Host')}</title><body>hello</body></html>".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def serve():
    """A web server on 127.0.0.1 that answers every name with a small page; returns it and its port."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


def hum(*words):
    run = subprocess.run([HUM, *words], capture_output=True, text=True, timeout=30)
    return run.returncode, run.stdout, run.stderr


def eventually(seconds, check, step=0.02):
    end = time.time() + seconds
    while time.time() < end:
        value = check()
        if value:
            return value
        time.sleep(step)
    return check()


def shield_hosts():
    """The `hum shield-host` processes of this test (their HOME is the sandbox's)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                words = f.read().split(b"\0")
            if b"shield-host" not in words:
                continue
            with open(f"/proc/{name}/environ", "rb") as f:
                environ = f.read().split(b"\0")
            if ("HOME=" + HOME).encode() in environ:
                found.append(int(name))
        except OSError:
            continue
    return found


def kill_hum(fail):
    """Kills hum during a lease: the player and the hosts, after making the wrapper the browsers start fail (so no
    hum can be reached again). Returns the player's pid, the hosts' pids, and a function that puts the wrapper back.
    """
    code, out, err = hum("status", "--json")
    player = json.loads(out)["pid"]
    hosts = shield_hosts()
    if not hosts:
        fail("no hum shield-host of this test runs during the lease")
    wrapper = os.path.join(os.environ["XDG_DATA_HOME"], "hum", "hum-shield-host")
    with open(wrapper) as f:
        saved = f.read()
    with open(wrapper + ".tmp", "w") as f:
        f.write("#!/bin/sh\nexit 1\n")
    os.chmod(wrapper + ".tmp", 0o755)
    os.rename(wrapper + ".tmp", wrapper)
    for pid in [player, *hosts]:
        os.kill(pid, signal.SIGKILL)

    def restore():
        with open(wrapper, "w") as f:
            f.write(saved)

    return player, hosts, restore
