// /t/{id} without a seat in this browser: choose a free seat (with a name) or watch.

import { api, storedName, storeName } from "./api.js";
import { clear, h, put } from "./dom.js";
import { t } from "./i18n.js";
import { presetLabel, rulesPanel, seatLabel, sitDown, statusLabel, teamLetter } from "./lobby.js";

export function showChooser(page, id, notice = null) {
  const view = page.view();
  view.className = "lobby";
  const panel = h("section", { class: "panel narrow chooser" }, h("p", { class: "muted" }, t("loading")));
  view.append(panel);
  page.title(t("chooser.title"));
  let stopped = false;
  let timer = null;
  let lastKey = null;

  async function load() {
    let info;
    try {
      info = await api.table(id);
    } catch (error) {
      if (stopped) return;
      clear(panel);
      panel.append(
        h("h1", {}, error.status === 404 ? t("error.no_table") : t("error.server", { message: error.message })),
        h("p", {}, h("a", { href: "/", "data-link": true, class: "button" }, t("nav.lobby"))),
      );
      return;
    }
    if (stopped) return;
    // look again every few seconds, and redraw only when the seats changed (not under the user's fingers)
    const key = JSON.stringify([info.status, info.seats]);
    if (key === lastKey) {
      timer = setTimeout(load, 5000);
      return;
    }
    lastKey = key;
    const keepName = document.getElementById("name");
    const hadFocus = keepName && document.activeElement === keepName;
    const name = keepName ? keepName.value : storedName();
    clear(panel);
    const errorLine = h("p", { class: "error-line", role: "alert" });
    const free = info.seats.filter((s) => s.kind === "person" && !s.name);
    const ruleName = String(info.rules.name || "").replace(/\*$/, "");
    const input = h("input", { id: "name", type: "text", maxlength: 30, autocomplete: "nickname", value: name, placeholder: t("name.placeholder") });
    input.addEventListener("change", () => storeName(input.value.trim()));
    put(
      panel,
      h("h1", {}, t("chooser.heading", { rules: presetLabel(ruleName) })),
      notice ? h("p", { class: "notice" }, notice) : null,
      h("p", { class: "muted" }, statusLabel(info.status)),
      rulesPanel(info.rules),
      h(
        "ul",
        { class: "seat-list big" },
        info.seats.map((seat) => {
          const team = h("span", { class: `team-dot team-${seat.team}` }, teamLetter(seat.team));
          let who;
          let action = null;
          if (seat.kind === "bot") who = h("span", { class: "seat-who" }, h("span", { class: "badge bot" }, t("bot.badge")), " ", t(`bot.${seat.bot}`));
          else if (seat.name) who = h("span", { class: "seat-who" }, seat.name);
          else {
            who = h("span", { class: "seat-who free" }, t("seat.free"));
            action = h(
              "button",
              {
                type: "button",
                class: "primary",
                "data-testid": "join-seat",
                "data-seat": seat.seat,
                "data-table": id,
                onclick: () => sitDown(page, id, seat.seat, errorLine),
              },
              t("seat.join"),
            );
          }
          return h("li", { class: "seat-row" }, team, h("span", { class: "seat-num" }, seatLabel(seat.seat)), who, action);
        }),
      ),
      free.length ? null : h("p", {}, t("chooser.full")),
      h(
        "label",
        { class: "field name-field" },
        h("span", { class: "field-label" }, free.length ? t("name.label") : t("name.watcher_label")),
        input,
        free.length ? null : h("span", { class: "help" }, t("name.watcher_help")),
      ),
      errorLine,
      h(
        "div",
        { class: "row-actions" },
        h(
          "a",
          { class: "button", id: "watch", href: `/t/${encodeURIComponent(id)}?watch`, "data-link": true, onclick: () => storeName(input.value.trim()) },
          t("chooser.watch"),
        ),
        info.status === "over" ? h("a", { class: "button", href: `/t/${encodeURIComponent(id)}?replay`, "data-link": true, id: "replay-link" }, t("result.replay")) : null,
        h("a", { class: "button", href: "/", "data-link": true }, t("nav.lobby")),
      ),
    );
    if (hadFocus || (free.length && !input.value && lastKey !== null && !keepName)) input.focus();
    timer = setTimeout(load, 5000);
  }
  load();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
