// Quick play (/play: docs/protocol.md, "Quick play"): a signed-in player asks for a table of a preset, waits
// while the server looks for players of their level (any server process may find them), and is taken to the
// table once seated.  The matching is the server's; this page asks, shows the wait, and takes the seat.

import { api, storeSeat } from "./api.js";
import { clear, h } from "./dom.js";
import { t } from "./i18n.js";
import { presetLabel } from "./lobby.js";

/** Seconds between two looks at where the wait stands. */
const LOOK_EVERY = 1000;

export function showQuickPlay(page) {
  const view = page.view();
  view.className = "lobby";
  page.title(t("quick.title"));
  const panel = h("section", { class: "panel narrow quick", "aria-labelledby": "quick-title" }, h("p", { class: "muted" }, t("loading")));
  view.append(panel);
  let stopped = false;
  let timer = null;
  let looking = 0; // the wait being shown: a look that comes back after Cancel, or after another look began, is dropped

  const heading = () => [h("h1", { id: "quick-title" }, t("quick.title")), h("p", { class: "lead" }, t("quick.lead"))];
  const failed = (error) => {
    if (stopped) return;
    clear(panel);
    panel.append(...heading(), h("p", { class: "error-line", role: "alert", id: "quick-error" }, error.message));
    panel.append(h("a", { href: "/play", "data-link": true, class: "button" }, t("quick.again")));
  };

  function ask(rules) {
    clear(panel);
    const presets = Object.keys(rules.presets || {}).map((name) => h("option", { value: name }, presetLabel(name)));
    const preset = h("select", { id: "quick-rules", name: "rules" }, presets);
    const bots = h("input", { id: "quick-bots", type: "checkbox", checked: true });
    const wait = h("input", { id: "quick-wait", type: "number", min: 5, max: 600, step: 1, value: 20, inputmode: "numeric" });
    const partner = h("input", { id: "quick-partner", type: "text", maxlength: 60, autocomplete: "off", autocapitalize: "off", "aria-describedby": "quick-partner-help" });
    const partnerField = h(
      "label",
      { class: "field" },
      h("span", { class: "field-label" }, t("quick.partner")),
      partner,
      h("span", { class: "help", id: "quick-partner-help" }, t("quick.partner_hint")),
    );
    /** A partner only where the preset plays in partnerships (/api/rules writes its option as "true" or "false"). */
    const showPartner = () => {
      partnerField.hidden = String(((rules.presets[preset.value] || {}).options || {}).partnerships) === "false";
    };
    preset.addEventListener("change", showPartner);
    showPartner();
    const error = h("p", { class: "error-line", role: "alert", id: "quick-error" });
    const form = h(
      "form",
      { id: "quick-form", class: "create-form", novalidate: true },
      h("label", { class: "field" }, h("span", { class: "field-label" }, t("quick.rules")), preset),
      h("label", { class: "check" }, bots, " ", t("quick.bots")),
      h("label", { class: "field" }, h("span", { class: "field-label" }, t("quick.wait")), wait),
      partnerField,
      error,
      h("div", { class: "row-actions" }, h("button", { type: "submit", id: "quick-start", class: "primary" }, t("quick.start"))),
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      error.textContent = "";
      try {
        const ask = { rules: preset.value, bots: bots.checked, wait: Number(wait.value) };
        if (!partnerField.hidden && partner.value.trim()) ask.partner = partner.value.trim();
        waiting(await api.quickPlay(ask));
      } catch (failure) {
        error.textContent = failure.message;
      }
    });
    panel.append(...heading(), form);
  }

  function waiting(status) {
    if (stopped) return;
    const mine = ++looking;
    if (status.status === "seated") {
      seated(status);
      return;
    }
    clear(panel);
    const cancel = h("button", { type: "button", id: "quick-cancel" }, t("quick.cancel"));
    cancel.addEventListener("click", async () => {
      clearTimeout(timer);
      looking += 1;
      try {
        await api.quickLeave();
      } catch (failure) {
        if (failure.status !== 404) return failed(failure); // 404: no longer waiting, which is what was asked
      }
      start();
    });
    const words = status.bots ? "quick.waiting_bots" : "quick.waiting";
    panel.append(
      ...heading(),
      h("p", { id: "quick-status", "data-testid": "quick-waiting", role: "status" }, t(words, { rules: presetLabel(status.rules), n: Math.round(status.waited || 0), wait: Math.round(status.wait) })),
      ...(status.partner ? [h("p", { id: "quick-partner-status" }, t(status.partner_waiting ? "quick.partner_ready" : "quick.partner_not_yet", { name: status.partner }))] : []),
      h("div", { class: "row-actions" }, cancel),
    );
    timer = setTimeout(() => look(mine), LOOK_EVERY);
  }

  async function look(mine) {
    try {
      const status = await api.quickStatus();
      if (mine === looking) waiting(status);
    } catch (failure) {
      if (mine !== looking) return;
      if (failure.status === 404) start(); // no longer waiting (forgotten after a long while): ask again
      else failed(failure);
    }
  }

  /** The seat the server found: taken on this device (the wait ends with it), then the table. */
  async function seated(status) {
    try {
      const me = await api.me();
      const answer = await api.takeBack(status.table, status.seat);
      storeSeat(status.table, { token: answer.token, seat: answer.seat, name: me.name });
      if (!stopped) page.navigate(`/t/${encodeURIComponent(status.table)}`);
    } catch (failure) {
      failed(failure);
    }
  }

  async function start() {
    try {
      const me = await api.me();
      if (stopped) return;
      if (!me.name) {
        clear(panel);
        panel.append(...heading(), h("p", { id: "quick-sign-in" }, t("quick.sign_in")), h("a", { href: "/", "data-link": true, class: "button primary" }, t("nav.lobby")));
        return;
      }
      try {
        waiting(await api.quickStatus()); // already waiting (another tab, a reload): go on waiting
      } catch (failure) {
        if (failure.status !== 404) throw failure;
        ask(await api.rules());
      }
    } catch (failure) {
      failed(failure);
    }
  }

  start();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
