#!/usr/bin/python3
"""The shields' browser extension in a real Firefox (Tests/HumCLITests/BrowserShieldTests.swift runs it).

Debian has no geckodriver, so Firefox is driven through the WebDriver BiDi protocol it serves itself
(`--remote-debugging-port`), over a WebSocket (python3-websocket): `webExtension.install` loads contrib/browser as
a temporary add-on (unsigned is allowed so), `browsingContext.navigate` opens pages. The profile is a fresh folder;
Firefox starts `hum shield-host` through the manifest `hum shield install-browser` wrote in the sandbox's
~/.mozilla. A web server on 127.0.0.1 serves every name; `network.dns.localDomains` makes video.test and other.test
resolve to this machine, and the test runs in a network namespace of its own with only loopback (the Swift test
starts it with `unshare --net`), so nothing can leave the machine.

It prints one JSON object per line: {"step": ..., ...} with the measured times, and exits 1 with a line on stderr
when something is not as it should be.

Environment: HUM_BIN, EXTENSION (contrib/browser), the sandbox's HOME and XDG variables.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import websocket

from browser_shield_common import eventually, hum, kill_hum, say, serve

EXTENSION = os.environ["EXTENSION"]


def fail(message):
    print(f"browser-shield-firefox.py: {message}", file=sys.stderr, flush=True)
    sys.exit(1)


class BiDi:
    """A WebDriver BiDi session on Firefox's own WebSocket: one command at a time, events ignored."""

    def __init__(self, port):
        self.socket = None
        start = time.time()
        while self.socket is None and time.time() - start < 60:
            try:
                self.socket = websocket.create_connection(
                    f"ws://127.0.0.1:{port}/session", timeout=120, suppress_origin=True)
            except OSError:
                time.sleep(0.1)
            except websocket.WebSocketException:
                time.sleep(0.1)
        if self.socket is None:
            fail("Firefox's WebDriver BiDi socket never answered")
        self.last = 0

    def call(self, method, **params):
        self.last += 1
        self.socket.send(json.dumps({"id": self.last, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == self.last:
                if message.get("type") == "error":
                    raise RuntimeError(f"{method}: {message.get('error')}: {message.get('message')}")
                return message["result"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    server, port = serve()
    profile = tempfile.mkdtemp(prefix="hum-firefox-")
    with open(os.path.join(profile, "user.js"), "w") as f:
        for name, value in [
            ("network.dns.localDomains", "video.test,other.test"),
            ("network.proxy.type", 0),
            ("browser.shell.checkDefaultBrowser", False),
            ("app.update.enabled", False),
            ("extensions.update.enabled", False),
            ("network.captive-portal-service.enabled", False),
            ("network.connectivity-service.enabled", False),
            ("toolkit.telemetry.enabled", False),
            ("datareporting.policy.dataSubmissionEnabled", False),
        ]:
            f.write(f"user_pref({json.dumps(name)}, {json.dumps(value)});\n")
    debug = free_port()
    log = open(os.path.join(profile, "firefox.log"), "w")
    firefox = subprocess.Popen(
        ["/usr/bin/firefox-esr", "--headless", "--no-remote", "--profile", profile,
         f"--remote-debugging-port={debug}", "about:blank"],
        env=dict(os.environ, MOZ_HEADLESS="1"), stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        run(BiDi(debug), f"http://video.test:{port}/watch", f"http://other.test:{port}/")
    finally:
        try:
            os.killpg(firefox.pid, signal.SIGKILL)
        except OSError:
            pass
        firefox.wait()
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)


def run(bidi, video, other):
    start = time.time()
    bidi.call("session.new", capabilities={})
    installed = bidi.call("webExtension.install", extensionData={"type": "path", "path": EXTENSION})
    say(step="installed", extension=installed.get("extension"), seconds=round(time.time() - start, 3))
    tab = bidi.call("browsingContext.getTree")["contexts"][0]["context"]

    def current():
        return bidi.call("browsingContext.getTree", root=tab)["contexts"][0]["url"]

    def blocked():
        url = current()
        return url.startswith("moz-extension://") and "/blocked.html" in url

    def load(url):
        try:
            bidi.call("browsingContext.navigate", context=tab, url=url, wait="complete")
        except RuntimeError:
            pass  # a navigation the extension redirected can be reported as aborted: the address says what happened

    contact = os.path.join(os.environ["XDG_STATE_HOME"], "hum", "browser-contact.json")
    if not eventually(30, lambda: os.path.exists(contact), step=0.05):
        fail("the extension never started hum shield-host (no contact note)")
    say(step="host-started", seconds=round(time.time() - start, 3))

    def tried_blocked():
        load(video)
        return blocked()

    if not eventually(30, tried_blocked, step=0.3):
        fail(f"{video} was never blocked; the tab shows {current()!r}")
    say(step="blocked", seconds=round(time.time() - start, 3), url=current())
    load(other)
    if blocked() or "other.test" not in current():
        fail(f"{other} should open; the tab shows {current()!r}")
    say(step="other-opens")

    # A 3 s pass opens it; the tab on it is sent back to the blocked page when the lease ends.
    code, out, err = hum("pass", "3s", "--on", "video")
    replied = time.time()
    if code != 0:
        fail(f"hum pass 3s --on video: exit {code}: {err}")

    def tried_open():
        load(video)
        return current().startswith(video)

    if not eventually(2.5, tried_open, step=0.1):
        fail(f"{video} did not open during the pass; the tab shows {current()!r}")
    say(step="opened", seconds=round(time.time() - replied, 3))
    if not eventually(6, blocked, step=0.01):
        fail(f"{video} was not blocked again after the pass; the tab shows {current()!r}")
    say(step="relocked", afterEnd=round(time.time() - replied - 3, 3))

    # Again, and this time hum is killed during the lease: the player, the host, and the way to start a host.
    code, out, err = hum("pass", "3s", "--on", "video")
    replied = time.time()
    if code != 0:
        fail(f"second hum pass 3s --on video: exit {code}: {err}")
    if not eventually(2.5, tried_open, step=0.1):
        fail(f"{video} did not open during the second pass; the tab shows {current()!r}")
    player, hosts, restore = kill_hum(fail)
    say(step="killed", player=player, hosts=hosts, secondsIntoLease=round(time.time() - replied, 3))
    if blocked():
        fail("the page was blocked as soon as hum was killed; the lease should run to its end")
    if not eventually(6, blocked, step=0.01):
        fail(f"{video} was not blocked again after the lease with hum killed; the tab shows {current()!r}")
    say(step="relocked-without-hum", afterEnd=round(time.time() - replied - 3, 3))
    load(video)
    if not blocked():
        fail(f"{video} opened after the lease ended with hum gone: {current()!r}")
    restore()


if __name__ == "__main__":
    main()
