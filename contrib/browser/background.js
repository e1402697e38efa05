// hum shields for websites: the extension's background (a service worker in Chromium, an event page in Firefox).
//
// It asks hum (the native messaging host "hum.shield", `hum shield-host`) for the shielded sites and the leases in
// force, blocks the shielded pages with declarativeNetRequest rules that redirect to blocked.html, and relocks each
// lifted site at its lease's absolute end by itself (a timer and an alarm), even when hum is gone. What it last
// heard is kept in storage.local: when hum cannot be reached, it keeps that and relocks at the ends it knows (fail
// closed). It reports the time spent on lifted sites' active tabs. docs/shields.md, "Sites".
"use strict";

const api = globalThis.browser ?? globalThis.chrome;
const HOST = "hum.shield";
const BLOCKED_PAGE = api.runtime.getURL("blocked.html");

let state = null; // the last state hum sent: {shields: [{name, sites, regexes, state}], leases: [{shield, endMs}], bank}
let port = null;
let connected = false;
let leaseTimers = [];
let reconnectDelay = 1000;
let pendingLift = null; // {resolve, result}
let loaded = null;

function load() {
  if (!loaded) {
    loaded = api.storage.local.get("state").then((stored) => {
      if (state === null && stored.state) state = stored.state;
    });
  }
  return loaded;
}

// A shield is open while a lease on it ends later than now; every other shield is up (fail closed).
function isOpen(shield, now) {
  return (state?.leases ?? []).some((lease) => lease.shield === shield && lease.endMs > now);
}

// The shields that are up now, each with its patterns' regular expressions (made by hum: SitePattern.regexSource).
function upShields(now) {
  return (state?.shields ?? []).filter((shield) => !isOpen(shield.name, now));
}

const compiled = new Map();

// Whether a site's regular expression (hum made it; it compiles) matches `url`. One that does not compile here
// matches every http(s) page: fail closed.
function matches(source, url) {
  let regex = compiled.get(source);
  if (regex === undefined) {
    try {
      regex = new RegExp(source);
    } catch {
      regex = /^https?:/;
    }
    compiled.set(source, regex);
  }
  return regex.test(url);
}

// The shield that blocks `url` now, or null.
function blockingShield(url, now) {
  for (const shield of upShields(now)) {
    if (shield.regexes.some((source) => matches(source, url))) return shield.name;
  }
  return null;
}

// The shield (open now) whose sites hold `url`, or null: where active time is counted.
function liftedShield(url, now) {
  for (const shield of state?.shields ?? []) {
    if (isOpen(shield.name, now) && shield.regexes.some((source) => matches(source, url))) {
      return shield.name;
    }
  }
  return null;
}

function blockedURL(shield, url) {
  return `${BLOCKED_PAGE}?shield=${encodeURIComponent(shield)}#${url}`;
}

// Makes the browser match the state now: the rules for the shields that are up, the open tabs on them sent to the
// blocked page, and a timer and an alarm at each lease's end.
async function apply() {
  await load();
  const now = Date.now();
  const rules = [];
  for (const shield of upShields(now)) {
    for (const source of shield.regexes) {
      rules.push({
        id: rules.length + 1,
        priority: 1,
        action: {
          type: "redirect",
          redirect: {
            regexSubstitution: `${BLOCKED_PAGE}?shield=${encodeURIComponent(shield.name)}#\\0`,
          },
        },
        condition: {
          regexFilter: `(?:${source}).*`,
          isUrlFilterCaseSensitive: true,
          resourceTypes: ["main_frame", "sub_frame"],
        },
      });
    }
  }
  // The open tabs first (what is on screen), the rules for new requests at the same time.
  const tabs = api.tabs.query({}).then((all) => {
    for (const tab of all) {
      const url = tab.url ?? tab.pendingUrl;
      if (!url || url.startsWith(BLOCKED_PAGE)) continue;
      const shield = blockingShield(url, now);
      if (shield) api.tabs.update(tab.id, { url: blockedURL(shield, url) }).catch(() => {});
    }
  });
  const old = await api.declarativeNetRequest.getDynamicRules();
  try {
    await api.declarativeNetRequest.updateDynamicRules({
      removeRuleIds: old.map((rule) => rule.id),
      addRules: rules,
    });
  } catch {
    // One rule the browser refuses would keep them all out: add them one by one, so the others still block.
    await api.declarativeNetRequest.updateDynamicRules({ removeRuleIds: old.map((rule) => rule.id) }).catch(() => {});
    for (const rule of rules) {
      await api.declarativeNetRequest.updateDynamicRules({ addRules: [rule] }).catch(() => {});
    }
  }
  await tabs;
  armLeaseEnds(now);
  noteActive();
}

function armLeaseEnds(now) {
  for (const timer of leaseTimers) clearTimeout(timer);
  leaseTimers = [];
  for (const lease of state?.leases ?? []) {
    if (lease.endMs <= now || lease.endMs - now > 2 ** 31 - 1) continue;
    // The timer is precise while this background lives; the alarm wakes it if the browser suspended it.
    leaseTimers.push(setTimeout(apply, lease.endMs - now + 1));
    api.alarms.create(`lease:${lease.shield}`, { when: lease.endMs + 1 });
  }
}

// MARK: hum

function connect() {
  if (port) return;
  try {
    port = api.runtime.connectNative(HOST);
  } catch (error) {
    scheduleReconnect();
    return;
  }
  port.onMessage.addListener(onMessage);
  port.onDisconnect.addListener(() => {
    port = null;
    connected = false;
    // What it last knew stays, and so do the rules and the lease ends: fail closed.
    if (pendingLift) {
      pendingLift.resolve({ ok: false, message: "hum could not be reached; nothing was spent" });
      pendingLift = null;
    }
    scheduleReconnect();
  });
  port.postMessage({ type: "state" });
}

function scheduleReconnect() {
  setTimeout(connect, reconnectDelay);
  api.alarms.create("reconnect", { delayInMinutes: 1 });
  reconnectDelay = Math.min(reconnectDelay * 2, 60000);
}

async function onMessage(message) {
  if (message.type === "state") {
    connected = true;
    reconnectDelay = 1000;
    state = { shields: message.shields, leases: message.leases, bank: message.bank, receivedMs: Date.now() };
    await api.storage.local.set({ state });
    await apply();
    if (pendingLift?.result) {
      pendingLift.resolve(pendingLift.result);
      pendingLift = null;
    }
  } else if (message.type === "lift") {
    if (!pendingLift) return;
    if (message.ok) {
      pendingLift.result = { ok: true, message: message.message }; // resolved once the new state is applied
    } else {
      pendingLift.resolve({ ok: false, message: message.message });
      pendingLift = null;
    }
  } else if (message.type === "error" && pendingLift) {
    pendingLift.resolve({ ok: false, message: message.error });
    pendingLift = null;
  }
}

// MARK: active time on lifted sites

let active = null; // {shield, site, since}

async function noteActive() {
  const now = Date.now();
  const [tab] = await api.tabs.query({ active: true, lastFocusedWindow: true }).catch(() => []);
  const url = tab?.url ?? "";
  const shield = url ? liftedShield(url, now) : null;
  if (active && (active.shield !== shield || active.url !== url)) flushActive(now);
  if (shield && !active) {
    active = { shield, url, since: now };
    // A report every minute while a lifted site is on screen, and no alarm otherwise.
    api.alarms.create("usage", { periodInMinutes: 1 });
  }
}

function flushActive(now) {
  if (!active) return;
  const seconds = Math.max(0, (now - active.since) / 1000);
  let site = "";
  try {
    site = new URL(active.url).hostname;
  } catch {}
  if (seconds >= 1 && port) port.postMessage({ type: "usage", shield: active.shield, site, seconds });
  active = null;
  api.alarms.clear("usage");
}

// MARK: events

api.tabs.onUpdated.addListener((tabId, change, tab) => {
  // Pages that change their address without a request (history.pushState) are caught here.
  if (change.url && !change.url.startsWith(BLOCKED_PAGE)) {
    load().then(() => {
      const shield = blockingShield(change.url, Date.now());
      if (shield) api.tabs.update(tabId, { url: blockedURL(shield, change.url) }).catch(() => {});
    });
  }
  if (tab.active) noteActive();
});
api.tabs.onActivated.addListener(() => noteActive());
api.windows?.onFocusChanged.addListener(() => noteActive());

api.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name.startsWith("lease:")) apply();
  if (alarm.name === "reconnect" && !port) connect();
  if (alarm.name === "usage") {
    flushActive(Date.now());
    noteActive(); // starts again (and re-arms) if the tab is still on a lifted site
  }
});

// The blocked page asks for the state and for lifts.
api.runtime.onMessage.addListener((message, sender, reply) => {
  if (message.type === "get") {
    load().then(() => reply({ state, connected }));
    return true;
  }
  if (message.type === "lift") {
    if (!port) {
      reply({ ok: false, message: "hum cannot be reached; is it installed ('hum shield install-browser')?" });
      return false;
    }
    if (pendingLift) {
      reply({ ok: false, message: "another request is on its way to hum" });
      return false;
    }
    pendingLift = { resolve: reply, result: null };
    port.postMessage({
      type: "lift",
      shield: message.shield,
      minutes: message.minutes,
      emergency: Boolean(message.emergency),
      reason: message.reason || undefined,
    });
    return true;
  }
  return false;
});

load().then(apply);
connect();
