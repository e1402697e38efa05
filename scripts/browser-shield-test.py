#!/usr/bin/python3
"""The shields' browser extension in a real browser (Tests/HumCLITests/BrowserShieldTests.swift runs it).

Headless Chromium, driven by chromedriver through Selenium, loads contrib/browser unpacked in a profile whose
NativeMessagingHosts folder holds the manifest `hum shield install-browser` wrote (the profile is the sandbox's
~/.config/chromium). A web server on 127.0.0.1 serves every name; Chromium maps video.test and other.test to it
(--host-resolver-rules), so nothing leaves the machine. The shield `video` names video.test.

It prints one JSON object per line: {"step": ..., ...} with the measured times, and exits 1 with a line on stderr
when something is not as it should be.

Environment: HUM_BIN, EXTENSION (contrib/browser), the sandbox's HOME and XDG variables.
"""

import json
import os
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from browser_shield_common import HOME, eventually, hum, kill_hum, say, serve, shield_hosts

EXTENSION = os.environ["EXTENSION"]
PROFILE = os.path.join(os.environ.get("XDG_CONFIG_HOME", HOME + "/.config"), "chromium")
EXTENSION_ID = "icijkclhbacomgclikafmoifhoeogkme"
BLOCKED = f"chrome-extension://{EXTENSION_ID}/blocked.html"


def fail(message):
    detail = f" (the driver's last error: {last_error[0]})" if last_error[0] else ""
    print(f"browser-shield-test.py: {message}{detail}", file=sys.stderr, flush=True)
    sys.exit(1)


def main():
    server, port = serve()
    video = f"http://video.test:{port}/watch"
    other = f"http://other.test:{port}/"

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--no-default-browser-check",
        f"--user-data-dir={PROFILE}",
        f"--load-extension={EXTENSION}",
        f"--disable-extensions-except={EXTENSION}",
        "--host-resolver-rules=MAP video.test 127.0.0.1, MAP other.test 127.0.0.1, MAP * ~NOTFOUND",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-features=DisableLoadExtensionCommandLineSwitch",
    ]:
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(10)
    try:
        run(driver, video, other)
    finally:
        driver.quit()
        server.shutdown()


last_error = [""]


def current(driver):
    """The tab's address, or "" when the driver cannot say (the error is kept for the failure's message)."""
    try:
        return driver.current_url
    except Exception as error:
        last_error[0] = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
        # The window the driver followed may have been replaced under it: follow the one that is there.
        try:
            driver.switch_to.window(driver.window_handles[-1])
        except Exception:
            pass
        return ""


def blocked(driver):
    return current(driver).startswith(BLOCKED)


def load(driver, url):
    try:
        driver.get(url)
    except Exception as error:
        last_error[0] = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
        # chromedriver sometimes loses a tab whose navigation the extension redirected while it waited for the
        # page ("Timed out receiving message from renderer"); the tab stays unusable for it. Go on in a new tab:
        # what is tested is the extension's blocking, which applies to every tab.
        if "renderer" in str(error):
            try:
                driver.switch_to.new_window("tab")
                driver.get(url)
            except Exception:
                pass


def run(driver, video, other):
    # The extension learns the shields from hum when it starts: the host notes the contact when the extension
    # connects, and the page is blocked once the state has come.
    start = time.time()
    contact = os.path.join(os.environ["XDG_STATE_HOME"], "hum", "browser-contact.json")
    if not eventually(30, lambda: os.path.exists(contact), step=0.05):
        fail("the extension never started hum shield-host (no contact note)")
    say(step="host-started", seconds=round(time.time() - start, 3))
    time.sleep(0.3)

    def tried_blocked():
        load(driver, video)
        return blocked(driver)

    # Generous: on a loaded machine Chromium and its first page can take long to start.
    if not eventually(30, tried_blocked, step=0.3):
        fail(f"{video} was never blocked; the tab shows {current(driver)!r}")
    say(step="blocked", seconds=round(time.time() - start, 3), url=current(driver))
    load(driver, other)
    if blocked(driver) or "other.test" not in current(driver):
        fail(f"{other} should open; the tab shows {current(driver)!r}")
    say(step="other-opens")

    # A 3 s pass opens it; the tab on it is sent back to the blocked page when the lease ends.
    code, out, err = hum("pass", "3s", "--on", "video")
    replied = time.time()
    if code != 0:
        fail(f"hum pass 3s --on video: exit {code}: {err}")

    def tried_open():
        load(driver, video)
        return current(driver).startswith(video)

    if not eventually(2.5, tried_open, step=0.1):
        fail(f"{video} did not open during the pass; the tab shows {current(driver)!r}")
    opened = time.time() - replied
    say(step="opened", seconds=round(opened, 3))
    if not eventually(6, lambda: blocked(driver), step=0.01):
        fail(f"{video} was not blocked again after the pass; the tab shows {current(driver)!r}")
    say(step="relocked", afterEnd=round(time.time() - replied - 3, 3))
    load(driver, video)
    if not blocked(driver):
        fail(f"{video} opened after the pass ended: {current(driver)!r}")

    # The time the tab was on the lifted site was reported to the host (hum notes the last report).

    def usage():
        try:
            with open(contact) as f:
                return json.load(f).get("lastUsage")
        except (OSError, ValueError):
            return None

    reported = eventually(3, lambda: (usage() or {}).get("site") == "video.test" and usage(), step=0.1)
    if not reported or not 1 <= reported["seconds"] <= 5:
        fail(f"the active time on the lifted site was not reported: {usage()!r}")
    say(step="usage-reported", seconds=round(reported["seconds"], 3))

    # The blocked page: what is shielded, the bank, and its buttons, which ask hum through the host.
    page = lambda: driver.find_element(By.TAG_NAME, "body").text
    if not eventually(3, lambda: "video.test" in page() and "Banked: ?" not in page(), step=0.1):
        fail(f"the blocked page does not show the shield and the bank: {page()!r}")
    say(step="blocked-page", text=page().replace("\n", " | ")[:300])
    clicked = time.time()
    driver.find_element(By.ID, "spend").click()
    if not eventually(5, lambda: current(driver).startswith(video), step=0.05):
        fail(f"'Spend 15 min' did not open the page: {current(driver)!r}; the page says {page()!r}")
    say(step="spend-button-opened", seconds=round(time.time() - clicked, 3))
    code, out, err = hum("ledger", "--json")
    if '"hold"' not in out or "900" not in out:
        fail(f"no 15-minute hold in the ledger after the button: {out[-400:]}")
    code, out, err = hum("pass", "end")
    ended = time.time()
    if not eventually(3, lambda: blocked(driver), step=0.01):
        fail(f"'hum pass end' did not block the page again: {current(driver)!r}")
    say(step="pass-end-relocked", seconds=round(time.time() - ended, 3))
    eventually(3, lambda: "Banked: ?" not in page(), step=0.1)
    driver.find_element(By.ID, "reason").send_keys("the form")
    driver.find_element(By.ID, "emergency-button").click()
    if not eventually(5, lambda: current(driver).startswith(video), step=0.05):
        fail(f"'Emergency 5 min' did not open the page: {current(driver)!r}; the page says {page()!r}")
    code, out, err = hum("ledger", "--json")
    if "the form" not in out:
        fail("the emergency draw's reason is not in the ledger")
    say(step="emergency-button-opened")
    hum("pass", "end")
    if not eventually(3, lambda: blocked(driver), step=0.01):
        fail(f"'hum pass end' did not block the page again after the emergency: {current(driver)!r}")

    # Again, and this time hum is killed during the lease: the player, the host, and the way to start a host.
    code, out, err = hum("pass", "3s", "--on", "video")
    replied = time.time()
    if code != 0:
        fail(f"second hum pass 3s --on video: exit {code}: {err}")
    if not eventually(2.5, tried_open, step=0.1):
        fail(f"{video} did not open during the second pass; the tab shows {current(driver)!r}")
    code, out, err = hum("shield", "show", "video", "--json")
    lifts = [lift for lift in json.loads(out)["lifts"] if lift.get("ended") is None]
    deadline = max(lift["deadline"] for lift in lifts)
    player, hosts, restore = kill_hum(fail)
    killed = time.time()
    say(step="killed", player=player, hosts=hosts, secondsIntoLease=round(killed - replied, 3))
    if blocked(driver):
        fail("the page was blocked as soon as hum was killed; the lease should run to its end")
    if not eventually(6, lambda: blocked(driver), step=0.01):
        fail(f"{video} was not blocked again after the lease with hum killed; the tab shows {current(driver)!r}")
    now = time.time()
    say(step="relocked-without-hum", afterEnd=round(now - replied - 3, 3), afterDeadline=round(now - deadline, 3))
    if shield_hosts():
        fail("a hum shield-host runs again although the wrapper fails")
    load(driver, video)
    if not blocked(driver):
        fail(f"{video} opened after the lease ended with hum gone: {current(driver)!r}")
    restore()


if __name__ == "__main__":
    main()
