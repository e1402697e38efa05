// The page a shielded site is replaced with: what is shielded, the bank, and buttons that ask hum for a lift
// through the extension's background (which talks to `hum shield-host`).
"use strict";

const api = globalThis.browser ?? globalThis.chrome;
const params = new URLSearchParams(location.search);
const shield = params.get("shield") ?? "";
const original = location.hash.slice(1);

function show(id, text) {
  document.getElementById(id).textContent = text;
}

async function refresh() {
  const { state, connected } = await api.runtime.sendMessage({ type: "get" });
  let host = "This site";
  try {
    host = new URL(original).hostname;
  } catch {}
  show("title", `${host} is shielded by hum (${shield})`);
  show("url", original);
  show("bank", state?.bank?.text ?? "?");
  show("emergency", state?.bank?.emergencyText ?? "?");
  const list = document.getElementById("shields");
  list.replaceChildren();
  const now = Date.now();
  for (const s of state?.shields ?? []) {
    const lease = (state.leases ?? []).find((l) => l.shield === s.name && l.endMs > now);
    const item = document.createElement("li");
    item.textContent =
      `${s.name}: ${s.sites.join(", ")}` + (lease ? ` (open until ${new Date(lease.endMs).toLocaleTimeString()})` : "");
    list.append(item);
  }
  show(
    "hum",
    connected
      ? "hum is in touch. From a terminal: hum pass 15m --on " + shield
      : "hum cannot be reached now: the shields stay as hum last said (run 'hum shield install-browser')."
  );
}

async function lift(minutes, emergency) {
  show("message", "asking hum…");
  const reason = document.getElementById("reason").value.trim();
  const answer = await api.runtime.sendMessage({ type: "lift", shield, minutes, emergency, reason });
  if (answer?.ok) {
    show("message", answer.message || "lifted");
    if (original) location.replace(original);
  } else {
    show("message", answer?.message || "hum did not answer; nothing was spent");
    refresh();
  }
}

document.getElementById("spend").addEventListener("click", () => lift(15, false));
document.getElementById("emergency-button").addEventListener("click", () => lift(5, true));
refresh();
