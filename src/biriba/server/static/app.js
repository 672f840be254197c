// The page: picks the language, routes "/" to the lobby and "/t/{id}" to a
// table (its seat chooser when this browser holds no seat there, or the
// replay with ?replay), and swaps screens without reloading.

import { $, clear, h } from "./dom.js";
import { LANGUAGES, language, onLanguage, preferredLanguage, setLanguage, t } from "./i18n.js";
import { api, storeSeat, storedSeat } from "./api.js";
import { showLobby } from "./lobby.js";
import { showChooser } from "./join.js";
import { showTable } from "./table/index.js";
import { showReplay } from "./replay.js";
import { showLeaderboard, showProfile } from "./profile.js";
import { showQuickPlay } from "./quick.js";

let cleanup = null;

export function navigate(path, replace = false) {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  route();
}

function setTopbar(content) {
  const info = $("#topbar-info");
  clear(info);
  if (content) info.append(content);
}

function setHelp(handler) {
  const button = $("#help-button");
  button.hidden = !handler;
  button.onclick = handler || null;
}

/** What every screen may use. */
export const page = {
  navigate,
  setTopbar,
  setHelp,
  view: () => $("#view"),
  banner(text) {
    const banner = $("#banner");
    banner.hidden = !text;
    banner.textContent = text || "";
  },
  announce(text) {
    const live = $("#live");
    live.textContent = "";
    setTimeout(() => { live.textContent = text; }, 30);
  },
  title(text) {
    document.title = text ? `${text} · ${t("app.name")}` : t("app.name");
  },
};

function route() {
  if (cleanup) {
    try { cleanup(); } catch (error) { console.error(error); }
    cleanup = null;
  }
  page.banner(null);
  setTopbar(null);
  setHelp(null);
  page.title(null);
  const view = $("#view");
  clear(view);
  view.className = "";
  const path = location.pathname.replace(/\/+$/, "") || "/";
  const params = new URLSearchParams(location.search);
  const match = path.match(/^\/t\/([^/]+)$/);
  if (match) {
    const id = decodeURIComponent(match[1]);
    if (params.has("replay")) cleanup = showReplay(page, id, params);
    else if (storedSeat(id) || params.has("watch")) cleanup = showTable(page, id, params.has("watch") && !storedSeat(id));
    else {
      cleanup = showChooser(page, id);
      takeBack(id, path);
    }
  } else if (path === "/") {
    cleanup = showLobby(page);
  } else if (path.startsWith("/p/")) {
    cleanup = showProfile(page, decodeURIComponent(path.slice(3)));
  } else if (path === "/play") {
    cleanup = showQuickPlay(page);
  } else if (path === "/leaderboard") {
    cleanup = showLeaderboard(page, params);
  } else {
    view.append(h("section", { class: "panel narrow" }, h("h1", {}, t("error.no_page")), h("p", {}, h("a", { href: "/", "data-link": true }, t("nav.lobby")))));
  }
}

/** Signed in, a seat bound to the account at table ``id`` is taken back on this device, and the table shown. */
async function takeBack(id, path) {
  try {
    const me = await api.me();
    if (!me.name) return;
    const held = (await api.mySeats()).seats.find((seat) => seat.table === id);
    if (!held) return;
    const answer = await api.takeBack(id, held.seat);
    storeSeat(id, { token: answer.token, seat: answer.seat, name: held.name });
    if (location.pathname.replace(/\/+$/, "") === path && !new URLSearchParams(location.search).has("watch")) route();
  } catch (error) {
    console.warn("the seat could not be taken back", error);
  }
}

function fillLanguages() {
  const select = $("#lang");
  clear(select);
  for (const [code, name] of Object.entries(LANGUAGES)) {
    select.append(h("option", { value: code, selected: code === language(), lang: code }, name));
  }
  $("#lang-label").textContent = t("lang.label");
  $("#brand-name").textContent = t("app.name");
  $("#help-button").textContent = "?";
  $("#help-button").setAttribute("aria-label", t("help.open"));
  $("#help-button").title = t("help.open");
}

async function start() {
  await setLanguage(preferredLanguage());
  fillLanguages();
  $("#lang").addEventListener("change", async (event) => {
    await setLanguage(event.target.value, true);
  });
  onLanguage(() => {
    fillLanguages();
    route();
  });
  document.addEventListener("click", (event) => {
    const link = event.target.closest("a[data-link]");
    if (!link || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    const url = new URL(link.href, location.href);
    if (url.origin !== location.origin) return;
    event.preventDefault();
    navigate(url.pathname + url.search);
  });
  window.addEventListener("popstate", route);
  route();
}

start().catch((error) => {
  console.error(error);
  const view = $("#view");
  clear(view);
  view.append(h("p", { class: "fatal" }, String(error)));
});
